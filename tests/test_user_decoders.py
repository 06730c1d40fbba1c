"""A user's decoder gets every check the project's own get (issue your-decoder): the experiment's ``verify``,
``check_structure`` and ``evaluate`` apply whatever module a decoder lives in (tests/user_decoders.py, outside the
package), a module adds checks but never removes one, a wrong structure is an ``error`` record (the others kept),
failures are summed up per variant, and misspelt names are found before any job runs."""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import user_decoders

from decoders.bnb.decoders import check_structure as bnb_check
from decoders.bnb.instance import ParseInstance
from decoders.chains.decoders import check_structure as chains_check
from decoders.chains.instance import ChainInstance, ChainScores
from decoders.corpora.wikispeedia import Graph
from decoders.errors import ConfigError
from decoders.harness.jobs import DecodeErrors, decode_shard, failure_lines
from decoders.harness.protocol import (
    checks_of,
    decoder_problems,
    get_evaluator,
    get_structure_check,
    get_verifier,
)
from decoders.harness.runner import run_instances
from decoders.linking.decoders import check_structure as linking_check
from decoders.linking.instance import LinkingInstance
from decoders.parsing.features import N_ATTRIBUTES
from decoders.ppc.decoders import check_structure as ppc_check
from decoders.ppc.instance import PPCInstance
from decoders.titles.decoders import VERIFY_BRUTE_FORCE_PATHS
from decoders.titles.decoders import check_structure as titles_check
from decoders.titles.instance import TitleInstance

MODULE = user_decoders.MODULE


def chains_items(
    count: int = 12, n: int = 7, labels: int = 4, seed: int = 3
) -> list[tuple[str, int, ChainInstance]]:
    rng = np.random.default_rng(seed)
    scores = ChainScores(rng.normal(size=(labels, labels)) * 2.0, tuple(f"L{i}" for i in range(labels)))
    return [
        (f"s{i}", n, ChainInstance(rng.normal(size=(n, labels)), scores, rng.integers(0, labels, n)))
        for i in range(count)
    ]


def run(experiment: str, decoder: str, items, module: str | None = MODULE) -> pd.DataFrame:
    return run_instances(
        experiment,
        "toy",
        decoder,
        decoder,
        {},
        items,
        time_limit=10.0,
        evaluate=get_evaluator(experiment, module),
        isolate=False,
        progress=False,
        decoder_module=module,
    )


def reasons(frame: pd.DataFrame) -> list[str]:
    return [json.loads(stats).get("error", "") for stats in frame["stats"]]


# -- the experiment's checks, whatever the module --------------------------------------------------------------


def test_a_user_module_gets_the_experiment_checks_and_cannot_replace_them():
    checks = checks_of("chains", MODULE)
    assert checks["verify"] == ["decoders.chains.decoders.verify", "user_decoders.verify"]
    assert checks["structure"] == ["decoders.chains.decoders.check_structure"]
    assert checks["evaluate"] == ["decoders.chains.decoders.evaluate"]
    assert get_structure_check("chains", MODULE) is chains_check
    assert get_verifier("chains") is get_verifier("chains", "decoders.chains.decoders")


def test_a_greedy_answer_claimed_optimal_is_an_error_where_it_is_not_the_optimum():
    items = chains_items()
    liar, viterbi = run("chains", "user-greedy-liar", items), run("chains", "viterbi", items, None)
    wrong = liar["objective"].isna()
    assert wrong.any() and (~wrong).any(), "the instances must catch greedy decoding sometimes, not always"
    assert (liar.loc[wrong, "status"] == "error").all()
    assert all("certificate check failed: Viterbi finds" in r for r in reasons(liar[wrong]))
    kept = liar[~wrong]
    assert (kept["status"] == "optimal").all()
    np.testing.assert_allclose(kept["objective"], viterbi.loc[~wrong, "objective"], rtol=1e-12)
    assert kept["correct"].notna().all()  # the experiment's evaluate filled the accuracy columns


@pytest.mark.parametrize(
    ("decoder", "reason"),
    [
        (
            "user-short",
            "invalid structure: structure must be 7 integer label ids; got shape (6,), dtype int64",
        ),
        (
            "user-floats",
            "invalid structure: structure must be 7 integer label ids; got shape (7,), dtype float64",
        ),
    ],
)
def test_a_wrong_structure_is_an_error_record_not_a_failed_job(decoder, reason):
    frame = run("chains", decoder, chains_items(count=3))
    assert frame["status"].tolist() == ["error"] * 3
    assert all(r == reason for r in reasons(frame))
    claimed = json.loads(frame["stats"].iloc[0])["claimed"]
    assert claimed["status"] == "feasible"


def test_a_titles_beam_answer_claimed_optimal_is_rejected_on_enumerable_instances():
    rng = np.random.default_rng(5)
    items = []
    for i in range(10):
        n, k = 7, 4
        edge = rng.normal(size=(n, n))
        np.fill_diagonal(edge, -np.inf)
        items.append((f"t{i}", n, title_instance(n, k, rng.normal(size=n), edge, rng.normal(size=n))))
    frame = run("titles", "user-beam-liar", items)
    exact = run("titles", "exhaustive", items, None)
    wrong = frame["objective"].isna()
    assert wrong.any()
    assert all("scores" in r and "> objective" in r for r in reasons(frame[wrong]))
    np.testing.assert_allclose(frame.loc[~wrong, "objective"], exact.loc[~wrong, "objective"], rtol=1e-12)


def random_instance(seed: int, n: int, k: int, missing: float) -> TitleInstance:
    rng = np.random.default_rng(seed)
    edge = np.log(rng.random((n, n)))
    edge[rng.random((n, n)) < missing] = -np.inf
    np.fill_diagonal(edge, -np.inf)
    return title_instance(n, k, np.log(rng.random(n)), edge, np.log(rng.random(n)))


def title_instance(n: int, k: int, start, edge, end, klass=None) -> TitleInstance:
    return TitleInstance(
        words=tuple(f"w{v}" for v in range(n)),
        klass=np.arange(n) if klass is None else np.asarray(klass),
        start=np.asarray(start, float),
        edge=np.asarray(edge, float),
        end=np.asarray(end, float),
        k=k,
        start_aux=np.full(n, -1),
        edge_aux=np.full((n, n), -1),
        end_aux=np.full(n, -1),
        aux_words=("of",),
        reference="w0 w1",
    )


@pytest.fixture(scope="module")
def graph_path():
    folder = Path(tempfile.mkdtemp(prefix="user-decoders-"))
    edges = [(0, 1), (1, 2), (2, 3), (3, 4), (2, 5)]  # the path 0-1-2-3-4 and the leaf 5 on 2
    rows = [a for a, b in edges] + [b for a, b in edges]
    cols = [b for a, b in edges] + [a for a, b in edges]
    adjacency = sp.csr_array((np.ones(len(rows), np.int8), (rows, cols)), shape=(6, 6))
    adjacency.sort_indices()
    graph = Graph(
        adjacency.indptr.astype(np.int64), adjacency.indices.astype(np.int32), np.arange(6, dtype=np.int32)
    )
    path = folder / "graph.npz"
    graph.save(str(path))
    yield str(path)
    shutil.rmtree(folder, ignore_errors=True)


def linking_instance(graph_path: str, sets) -> LinkingInstance:
    sets = tuple(np.array(s, np.int32) for s in sets)
    mentions = tuple(f"m{i}" for i in range(len(sets)))
    return LinkingInstance(graph_path, sets, np.zeros(len(sets), np.int64), mentions, "doc")


def test_a_linking_retrieval_answer_claimed_optimal_is_rejected(graph_path):
    # retrieval takes 0, 5, 3 (cost 3 + 3 + 2 = 8); 4, 3, 3 costs 2
    items = [("d0", 3, linking_instance(graph_path, [[0, 4], [5, 3], [3]]))]
    items.append(("d1", 3, linking_instance(graph_path, [[4, 0], [3, 5], [3]])))  # retrieval is the optimum
    frame = run("linking", "user-retrieval-liar", items)
    assert frame["status"].tolist() == ["error", "optimal"]
    assert frame["objective"].iloc[1] == 2.0
    out = run("linking", "user-out-of-range", items)
    assert out["status"].tolist() == ["error", "error"]
    assert reasons(out)[0] == "invalid structure: structure[0] is 2, outside 0..1 (set 0's positions)"


# -- check_structure of every experiment -------------------------------------------------------------------------


def test_chains_check_structure_reasons():
    tau = np.zeros((3, 3))
    tau[0, 1] = -np.inf
    instance = ChainInstance(np.zeros((3, 3)), ChainScores(tau, ("A", "B", "C")), np.array([0, 0, 0]))
    assert chains_check(instance, np.array([0, 0, 2])) is None
    assert chains_check(instance, [0, 0, 2]) is None
    assert "forbidden transition 0 -> 1 at token 2" in chains_check(instance, [2, 0, 1])
    assert "label id outside 0..2" in chains_check(instance, [0, 3, 0])
    assert "got shape (2,)" in chains_check(instance, [0, 0])
    assert "dtype bool" in chains_check(instance, np.array([True, False, True]))
    assert "got shape (3, 1)" in chains_check(instance, np.zeros((3, 1), np.int64))
    with pytest.raises(ValueError, match="instance must be a ChainInstance"):
        chains_check(np.zeros((3, 3)), [0, 0, 0])


def test_titles_check_structure_reasons():
    edge = np.zeros((3, 3))
    edge[0, 2] = -np.inf
    instance = title_instance(3, 2, np.zeros(3), edge, np.zeros(3), klass=[0, 1, 1])
    assert titles_check(instance, np.array([0, 1])) is None
    assert "repeated equivalence class" in titles_check(instance, [1, 2])
    assert "missing edge" in titles_check(instance, [0, 2])
    assert "k = 2 words" in titles_check(instance, [0])
    assert "out of range" in titles_check(instance, [0, 7])
    assert "integer word ids" in titles_check(instance, [0.0, 1.0])
    assert "integer word ids" in titles_check(instance, [[0, 1]])


def test_linking_check_structure_reasons(graph_path):
    instance = linking_instance(graph_path, [[0, 4], [5, 3], [3]])
    assert linking_check(instance, [1, 1, 0]) is None
    assert "one position per set (3)" in linking_check(instance, [0, 0])
    assert "outside 0..0" in linking_check(instance, [0, 0, 1])
    assert "must be an integer array" in linking_check(instance, [0.5, 0, 0])
    assert "structure[0] is -1" in linking_check(instance, [-1, 0, 0])


def parse_instance(n: int) -> ParseInstance:
    allowed = np.ones((n + 1, n + 1), bool)
    allowed[:, 0] = False
    np.fill_diagonal(allowed, False)
    tokens = np.ones((N_ATTRIBUTES, n + 1), np.int64)
    gold = np.array([-1] + [0] + list(range(1, n)))
    return ParseInstance(tokens, gold, np.ones(n, bool), allowed, "model.npz")


def test_bnb_check_structure_reasons():
    instance = parse_instance(4)
    assert bnb_check(instance, [0, 1, 2, 3]) is None
    assert "not projective" in bnb_check(instance, [0, 4, 1, 1])
    assert "2 words attach to the root" in bnb_check(instance, [0, 0, 2, 3])
    assert "cycle" in bnb_check(instance, [0, 3, 2, 3])
    assert "outside 0..4" in bnb_check(instance, [0, 1, 2, 9])
    assert "4 integer heads" in bnb_check(instance, [0, 1, 2])
    assert "4 integer heads" in bnb_check(instance, [0.0, 1.0, 2.0, 3.0])
    pruned = parse_instance(3)
    pruned.allowed[1, 2] = False
    assert "pruning removed" in bnb_check(pruned, [0, 1, 2])


def test_ppc_check_structure_reasons():
    from decoders.ppc import model

    n = 3
    attributes = model.SentenceAttributes(
        np.full((4, n + 1), 3, np.int64), np.zeros(n + 2, np.int64), np.zeros(0, np.int64)
    )
    instance = PPCInstance(np.ones((N_ATTRIBUTES, n + 1), np.int64), attributes, np.array([-1, 0, 1, 2]),
                           np.ones(n, bool), "m", "f")  # fmt: skip
    assert ppc_check(instance, [0, 1, 2]) is None
    assert ppc_check(instance, [0, 0, 1]) is None  # several root modifiers: an arborescence
    assert "not an arborescence" in ppc_check(instance, [2, 1, 0])
    assert "outside 0..3" in ppc_check(instance, [0, 1, 5])
    assert "3 integer heads" in ppc_check(instance, [0, 1])


# -- failures summed up, the names checked at load -----------------------------------------------------------


def test_failure_lines_name_the_count_and_the_first_reason():
    frame = run("chains", "user-short", chains_items(count=2))
    assert failure_lines(frame) == [
        "chains/toy/user-short: 2 errors, 0 timeouts in 2 instances; first, instance s0: invalid structure: "
        "structure must be 7 integer label ids; got shape (6,), dtype int64"
    ]
    assert failure_lines(run("chains", "viterbi", chains_items(count=2), None)) == []


def test_fail_on_error_writes_nothing(tmp_path):
    from decoders.harness.instances import write_instance_shards

    shard, index = tmp_path / "shard-0.pkl", tmp_path / "index.tsv"
    write_instance_shards(chains_items(count=2), [shard], index)
    spec = {"decoder": "user-short", "module": MODULE}
    config = {"experiments": {"chains": {"variants": {"user-short": spec}}}}
    harness = {"time_limit": 5.0, "isolate": False, "fail_on_error": True}

    def decode(**changes):
        options = {"harness": harness, "index": index, **changes}
        return decode_shard(experiment="chains", dataset="toy", variant="user-short", spec=spec, instances=shard,
                            records=tmp_path / "out.parquet", provenance=tmp_path / "out.json", seed=0,
                            config=config, progress=False, **options)  # fmt: skip

    with pytest.raises(DecodeErrors, match="chains/toy/user-short: 2 errors"):
        decode()
    assert not (tmp_path / "out.parquet").exists() and not (tmp_path / "out.json").exists()
    with pytest.raises(ConfigError, match="fail_on_error: must be true or false"):
        decode(harness={**harness, "fail_on_error": "yes"})


def test_decoder_names_are_checked_before_any_job_runs(tmp_path):
    variants = {
        "fine": {"decoder": "cg"},
        "user": {"decoder": "user-greedy-liar", "module": MODULE},
        "misspelt": {"decoder": "gredy", "module": MODULE},
        "ours-misspelt": {"decoder": "viterbii"},
        "no-module": {"decoder": "x", "module": "my_missing_decoders"},
    }
    problems = decoder_problems("chains", variants)
    assert len(problems) == 3
    assert problems[0].startswith("experiments.chains.variants.misspelt.decoder: unknown decoder 'gredy'")
    assert "known decoders: " in problems[0] and "user-greedy-liar" in problems[0]
    assert problems[1].startswith(
        "experiments.chains.variants.ours-misspelt.decoder: unknown decoder 'viterbii'"
    )
    assert problems[2].startswith("experiments.chains.variants.no-module.module: decoder module")
    # a module found on an extra path (Snakemake's scripts folder), read without being imported
    (tmp_path / "elsewhere_decoders.py").write_text(
        'from decoders.harness.protocol import register\nEXPERIMENT = "chains"\n\n'
        '@register(EXPERIMENT, "elsewhere")\ndef f(instance, *, deadline=None):\n    raise AssertionError\n'
    )
    spec = {"decoder": "elsewhere", "module": "elsewhere_decoders"}
    assert decoder_problems("chains", {"v": spec}, [tmp_path]) == []
    assert "not found" in decoder_problems("chains", {"v": spec})[0]


# -- beyond what verify enumerates: the project's exact decoder re-solves a user's claims ----------------------


def test_titles_claims_beyond_enumeration_are_set_against_the_ilp():
    items = [(f"t{seed}", 14, random_instance(seed, n=14, k=5, missing=0.05)) for seed in range(12)]
    assert math.perm(14, 5) > VERIFY_BRUTE_FORCE_PATHS
    frame = run("titles", "user-beam-liar", items)
    optimum = run("titles", "exhaustive", items, None)["objective"]  # independent: every ordering
    claimed = run("titles", "beam", items, None)["objective"]
    false = (claimed < optimum - 1e-9 * optimum.abs()).to_numpy()
    assert false.any() and (~false).any()
    assert (frame.loc[false, "status"] == "error").all()
    assert all("exact check failed: the ILP (CP-SAT) finds" in r for r in reasons(frame[false]))
    kept = frame[~false]
    assert (kept["status"] == "optimal").all()
    assert {json.loads(s)["exact_check"] for s in kept["stats"]} == {"confirmed"}
    assert frame.attrs["harness"]["exact_check"] == ["decoders.titles.decoders.exact_check"]
    # the project's own decoders are not re-solved (the tables set them against each other)
    assert run("titles", "ilp", items[:2], None).attrs["harness"]["exact_check"] == []


def test_linking_claims_beyond_enumeration_are_set_against_cp_sat(tmp_path):
    rng = np.random.default_rng(2)
    n = 120
    edges = [(i, i + 1) for i in range(n - 1)] + [tuple(rng.choice(n, 2, replace=False)) for _ in range(60)]
    rows = [a for a, b in edges] + [b for a, b in edges]
    cols = [b for a, b in edges] + [a for a, b in edges]
    adjacency = sp.csr_array((np.ones(len(rows), np.int8), (rows, cols)), shape=(n, n))
    adjacency.sum_duplicates()
    adjacency.sort_indices()
    path = tmp_path / "graph.npz"
    Graph(
        adjacency.indptr.astype(np.int64), adjacency.indices.astype(np.int32), np.arange(n, dtype=np.int32)
    ).save(str(path))
    items = []
    for d in range(6):
        sets = [rng.choice(n, 14, replace=False) for _ in range(5)]  # 14^5 choices, 70 candidates: beyond
        items.append((f"d{d}", 5, linking_instance(str(path), sets)))
    frame = run("linking", "user-retrieval-liar", items)
    exact = run("linking", "exact", items, None)
    assert (exact["status"] == "optimal").all()
    false = (frame["objective"].isna()).to_numpy()
    retrieval = run("linking", "retrieval", items, None)["objective"].to_numpy()
    np.testing.assert_array_equal(false, retrieval > exact["objective"].to_numpy())
    assert false.any()
    assert all(
        r.startswith("certificate check failed") or r.startswith("exact check failed: CP-SAT finds")
        for r in reasons(frame[false])
    )


def test_bnb_claims_beyond_enumeration_are_set_against_branch_and_bound(tmp_path):
    from parsing_toys import long_parse_instances

    from decoders.bnb.decoders import VERIFY_ENUMERATE, decode_bnb

    items = long_parse_instances(tmp_path, 8)
    assert all(n > VERIFY_ENUMERATE for _, n, _ in items)  # beyond verify's enumeration
    frame = run("bnb", "user-eisner-liar", items)
    optimum = np.array([decode_bnb(item[2]).objective for item in items])
    claimed = np.array(
        [user_decoders.bnb_liar(item[2]).objective for item in items]
    )  # the claims, before the harness's checks
    false = claimed < optimum
    assert false.any(), "Eisner's first-order tree was optimal under the full model on every sentence"
    assert (frame.loc[false, "status"] == "error").all()
    assert all("exact check failed: the model's exact decoder finds" in r for r in reasons(frame[false]))
    assert (frame.loc[~false, "status"] == "optimal").all()
