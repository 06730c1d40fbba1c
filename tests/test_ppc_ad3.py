"""The peer AD3 (decoders.ppc.ad3): its LP against ours on the same polytope (ArcGP+GPArc with cycle cuts), its
branch and bound against every tree enumerated, the recomputed bound's validity, its install step's patch, the
error where AD3 is missing, and the ad3 tables on hand-made records.

The solver tests need AD3 built by ``python -m decoders.ppc.ad3_install``; without it they skip with the install
step's reason, except under CI (``CI`` set), which runs that step first, where they fail."""

from __future__ import annotations

import json
import math
import os
import sys
import time

import numpy as np
import pandas as pd
import pytest

from decoders.errors import ConfigError
from decoders.harness.protocol import Solution
from decoders.harness.records import make_record, records_frame
from decoders.parsing.trees import enumerate_trees
from decoders.ppc import ad3 as ad3_solver
from decoders.ppc import ad3_install
from decoders.ppc.decoders import _ad3_options
from decoders.ppc.lp import DenseGrandparents, brute_force
from decoders.ppc.model import gold_parts
from decoders.tables import ppc as tables

try:
    ad3_solver.ad3_module()
    MISSING = None
except ad3_solver.AD3Unavailable as error:
    MISSING = str(error)


@pytest.fixture
def needs_ad3():
    if MISSING is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI runs python -m decoders.ppc.ad3_install first, yet: {MISSING}")
        pytest.skip(MISSING)


def instance(rng: np.random.Generator, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Arc scores (n + 1, n + 1) and grandparent scores (n + 1)^3 of one kind: random, ties (small integers),
    tiny (1e-7 scale), huge (1e5 scale), forbidden (a third of the arcs -inf, every word keeping a head)."""
    arc = rng.normal(size=(n + 1, n + 1))
    gp = rng.normal(size=(n + 1,) * 3) * rng.choice([0.3, 1.5])
    if kind == "ties":
        arc, gp = (
            rng.integers(-1, 2, size=arc.shape).astype(float),
            rng.integers(-1, 2, size=gp.shape).astype(float),
        )
    elif kind == "tiny":
        arc, gp = arc * 1e-7, gp * 1e-7
    elif kind == "huge":
        arc, gp = arc * 1e5, gp * 1e5
    elif kind == "forbidden":
        cut = rng.random(arc.shape) < 0.33
        cut[0, :] = False  # the root may head every word: a tree exists
        arc[cut] = -np.inf
    return arc, gp


def best_tree(arc: np.ndarray, gp: np.ndarray) -> float:
    """The best tree's score, every arborescence enumerated (several root modifiers allowed)."""
    n = arc.shape[0] - 1
    best = -np.inf
    for heads in enumerate_trees(n, projective=False, single_root=False):
        score = arc[heads[1:], np.arange(1, n + 1)].sum()
        if np.isfinite(score):
            g, p, c = gold_parts(heads)
            best = max(best, score + gp[g, p, c].sum())
    return float(best)


KINDS = ("random", "ties", "tiny", "huge", "forbidden")
CASES = [(n, kind, seed) for n in (1, 2, 3, 4, 5) for kind in KINDS
         for seed in range(2)]  # fmt: skip


@pytest.mark.parametrize(("n", "kind", "seed"), CASES)
def test_lp_equals_arcgp_with_cycle_cuts(needs_ad3, n, kind, seed):
    """AD3's LP, when it certifies, has the value of our full LP on ArcGP+GPArc with every cycle inequality
    (1e-6 relative); its bound is never below that LP's certified optimum."""
    arc, gp = instance(np.random.default_rng(1000 * n + seed + KINDS.index(kind)), n, kind)
    ours = brute_force(arc, DenseGrandparents(gp), polytope="arcgp", cycle_cuts=True)
    theirs = ad3_solver.solve(arc, DenseGrandparents(gp), max_iterations=5000, tolerance=1e-9)
    assert ours.status == "optimal"
    scale = 1.0 + abs(ours.objective)
    assert theirs.bound >= ours.objective - 1e-6 * scale
    if theirs.status == "optimal":
        assert abs(theirs.objective - ours.objective) <= 1e-6 * scale
    assert theirs.status == "optimal", theirs.stats  # the scores normalised: tiny and huge converge too


@pytest.mark.parametrize(("n", "kind", "seed"), CASES)
def test_exact_against_every_tree(needs_ad3, n, kind, seed):
    """AD3's branch and bound returns a tree scoring at most the enumerated optimum, exactly that when it claims
    optimal, and a bound not below it."""
    arc, gp = instance(np.random.default_rng(7000 * n + seed + 10 * KINDS.index(kind)), n, kind)
    best = best_tree(arc, gp)
    found = ad3_solver.solve(arc, DenseGrandparents(gp), exact=True, max_iterations=5000, tolerance=1e-9)
    scale = 1.0 + abs(best)
    assert (found.heads[1:] >= 0).all()
    assert found.objective <= best + 1e-9 * scale
    assert found.bound >= best - 1e-9 * scale
    if found.status == "optimal":
        assert abs(found.objective - best) <= 1e-6 * scale
    # measured: its trees score the optimum on every case (the scores normalised: branching adds +-1000)
    assert abs(found.objective - best) <= 1e-6 * scale, found.stats


def test_without_normalising_huge_scores_are_not_certified(needs_ad3):
    """Why the scores are normalised: at 1e5 AD3's absolute penalty and tolerance leave its LP unconverged
    after 5000 iterations; the bound stays valid."""
    arc, gp = instance(np.random.default_rng(5000 + 0 + KINDS.index("huge")), 5, "huge")
    ours = brute_force(arc, DenseGrandparents(gp), polytope="arcgp", cycle_cuts=True)
    raw = ad3_solver.solve(arc, DenseGrandparents(gp), max_iterations=5000, tolerance=1e-9, normalize=False)
    assert raw.status == "feasible" and raw.bound >= ours.objective - 1e-6 * (1 + abs(ours.objective))


def test_child_stops_at_the_deadline(needs_ad3):
    """With ``child``, the branch and bound runs in a forked child: the same answer within the deadline, a
    timeout (and the child killed) past it."""
    arc, gp = instance(np.random.default_rng(11), 4, "random")
    alone = ad3_solver.solve(arc, DenseGrandparents(gp), exact=True)
    forked = ad3_solver.solve(
        arc, DenseGrandparents(gp), exact=True, child=True, deadline=time.perf_counter() + 60
    )
    assert (forked.objective, forked.status) == (alone.objective, alone.status)
    arc, gp = instance(np.random.default_rng(12), 25, "random")
    start = time.perf_counter()
    late = ad3_solver.solve(arc, DenseGrandparents(gp), exact=True, child=True, deadline=start + 0.2)
    assert late.status == "timeout" and math.isnan(late.objective) and time.perf_counter() - start < 30


def test_empty_and_headless(needs_ad3):
    """No words: the empty tree, optimal; a word no arc can head: no tree, certified (-inf)."""
    empty = ad3_solver.solve(np.zeros((1, 1)), DenseGrandparents(np.zeros((1, 1, 1))))
    assert (empty.status, empty.objective, empty.bound) == ("optimal", 0.0, 0.0)
    arc = np.zeros((3, 3))
    arc[:, 2] = -np.inf
    none = ad3_solver.solve(arc, DenseGrandparents(np.zeros((3, 3, 3))), exact=True)
    assert none.status == "optimal" and none.objective == -np.inf and (none.heads[1:] < 0).all()


def test_bad_arguments(needs_ad3):
    arc, gp = np.zeros((3, 3)), DenseGrandparents(np.zeros((3, 3, 3)))
    with pytest.raises(ValueError, match="exact"):
        ad3_solver.solve(arc, gp, exact="yes")
    with pytest.raises(ValueError, match="max_iterations"):
        ad3_solver.solve(arc, gp, max_iterations=0)
    with pytest.raises(ValueError, match="eta"):
        ad3_solver.solve(arc, gp, eta=0.0)
    with pytest.raises(ValueError, match="normalize"):
        ad3_solver.solve(arc, gp, normalize="no")
    with pytest.raises(ValueError, match="arc"):
        ad3_solver.solve(np.full((3, 3), np.nan), gp)


@pytest.mark.parametrize(
    ("options", "key"),
    [({"max_iterations": 0}, "max_iterations"), ({"max_iterations": True}, "max_iterations"),
     ({"tolerance": -1.0}, "tolerance"), ({"eta": "fast"}, "eta"), ({"eta": float("nan")}, "eta"),
     ({"normalize": 1}, "normalize"), ({"child": "yes"}, "child")],
)  # fmt: skip
def test_config_values_checked(options, key):
    full = {"max_iterations": 1000, "tolerance": 1e-6, "eta": 0.1, **options}
    with pytest.raises(ConfigError, match=key):
        _ad3_options(**full)


def test_dual_bound_holds_for_any_duals():
    """The Lagrangian bound is valid whatever the duals: random duals on a 4-word instance never go below the
    best tree (AD3 not needed)."""
    rng = np.random.default_rng(5)
    arc, gp = instance(rng, 4, "random")
    best = best_tree(arc, gp)
    arc_id, arcs = ad3_solver._candidate_arcs(arc)
    from decoders.ppc.lp import all_parts

    parts = all_parts(arc_id)
    pairs = np.stack([arc_id[parts[:, 0], parts[:, 1]], arc_id[parts[:, 1], parts[:, 2]]], axis=1)
    scores = arc[arcs[:, 0], arcs[:, 1]]
    for _ in range(50):
        duals = rng.normal(size=len(arcs) + 2 * len(parts)) * rng.choice([0.01, 1.0, 10.0])
        bound = ad3_solver.dual_bound(
            arc_id, arcs, scores, pairs, gp[parts[:, 0], parts[:, 1], parts[:, 2]], duals
        )
        assert bound >= best


def test_missing_ad3_names_the_install_reason(monkeypatch, tmp_path):
    """Without AD3 every call fails with "AD3 not installed: <the install step's reason>"."""
    monkeypatch.setitem(sys.modules, "ad3", None)
    marker = tmp_path / "ad3-build.json"
    monkeypatch.setattr(ad3_install, "marker_path", lambda: marker)
    with pytest.raises(ad3_solver.AD3Unavailable, match="has not been run"):
        ad3_solver.solve(np.zeros((2, 2)), DenseGrandparents(np.zeros((2, 2, 2))))
    marker.write_text(json.dumps({"ok": False, "step": "build", "reason": "gcc exited 1"}))
    with pytest.raises(ad3_solver.AD3Unavailable, match="AD3 not installed: .*build step: gcc exited 1"):
        ad3_solver.ad3_module()
    assert ad3_solver.ad3_version() is None


def test_install_patch(tmp_path):
    """The RunCLE patch adds the return once, and fails naming the text when the source differs."""
    source = tmp_path / "FactorTree.cpp"
    source.write_text("int f() {\n" + ad3_install.RUNCLE_END + "x) {}\n")
    ad3_install.patch_runcle(source)
    assert ad3_install.RUNCLE_FIXED in source.read_text()
    with pytest.raises(ad3_install.BuildError, match="expected the end of FactorTree::RunCLE"):
        ad3_install.patch_runcle(source)  # already patched: the 2.2.1 text is gone


def test_install_failure_writes_the_marker(monkeypatch, tmp_path):
    """A failed build writes its step and reason, exits 0 (1 with --strict)."""
    marker = tmp_path / "ad3-build.json"
    monkeypatch.setattr(ad3_install, "marker_path", lambda: marker)
    monkeypatch.setattr(ad3_install, "installed_version", lambda: None)

    def fail(work):
        raise ad3_install.BuildError("download", "no network")

    monkeypatch.setattr(ad3_install, "build", fail)
    assert ad3_install.main([]) == 0
    assert json.loads(marker.read_text())["reason"] == "no network"
    assert ad3_install.main(["--strict"]) == 1


# --- the tables, on hand-made records ---

SETTINGS = {
    "datasets": ["szeged"],
    "harness": {"time_limit": 60},
    "variants": {
        "ppc": {"decoder": "ppc", "params": {"start": "tree"}},
        "ilp": {"decoder": "ilp"},
        "arcgp": {"decoder": "full-lp", "params": {"polytope": "arcgp"}},
        "arcgp-cycles": {"decoder": "full-lp", "params": {"polytope": "arcgp", "cycle_cuts": True}},
        "ad3-lp": {"decoder": "ad3-lp"},
        "ad3-exact": {"decoder": "ad3-exact"},
    },
}


def run(variant: str, rows: list[tuple]) -> pd.DataFrame:
    """(status, objective, seconds, correct, stats) per sentence s0..s2 of 4 words, 4 scored."""
    records = []
    for i, (status, objective, seconds, correct, stats) in enumerate(rows):
        solution = Solution(None if correct is None else [0] * 4, objective, None, status, stats)
        records.append(
            make_record(
                experiment="ppc", dataset="szeged", variant=variant, params={}, instance_id=f"s{i}", size=64,
                seconds=seconds, solution=solution,
                evaluation={} if correct is None else {"correct": correct, "total": 4},
            )
        )  # fmt: skip
    return records_frame(records)


def lp(integral: bool, **more) -> dict:
    return {"words": 4, "parts_scored": 36, "parts_added": 36, "integral": integral, **more}


def frame() -> pd.DataFrame:
    ad3 = {"ad3_version": "2.2.1", "seconds_build": 0.5}
    runs = [
        run("ppc", [("optimal", 10.0, 1, 4, lp(True)), ("optimal", 20.0, 1, 3, lp(False)),
                    ("optimal", 30.0, 1, 2, lp(True))]),
        run("ilp", [("optimal", 10.0, 2, 4, lp(True)), ("optimal", 19.0, 2, 3, lp(True, ilp_solved=True)),
                    ("optimal", 30.0, 2, 2, lp(True))]),
        run("arcgp", [("optimal", 10.0, 1, 4, lp(True)), ("optimal", 21.0, 1, 3, lp(False)),
                      ("optimal", 30.0, 1, 2, lp(True))]),
        run("arcgp-cycles", [("optimal", 10.0, 1, 4, lp(True)), ("optimal", 20.5, 1, 3, lp(False)),
                             ("optimal", 30.0, 1, 2, lp(True))]),
        # AD3's LP: s1 certified at arcgp-cycles' value, s2 stopped at its cap (not certified)
        run("ad3-lp", [("optimal", 10.0, 2, 4, lp(True, **ad3, iteration_cap=False)),
                       ("optimal", 20.5 + 1e-9, 2, 3, lp(False, **ad3, iteration_cap=False)),
                       ("feasible", 29.0, 2, 2, lp(False, **ad3, iteration_cap=True))]),
        # AD3's branch and bound: s1's tree misses the ILP's optimum, s2 timed out
        run("ad3-exact", [("optimal", 10.0, 4, 4, lp(True, **ad3, iteration_cap=False)),
                          ("feasible", 18.0, 4, 2, lp(True, **ad3, iteration_cap=False)),
                          ("timeout", float("nan"), 60, None, {})]),
    ]  # fmt: skip
    return tables.load_runs_frame(pd.concat(runs, ignore_index=True).assign(problem=""))


def test_ad3_table():
    table = tables.ad3_table(frame(), SETTINGS).set_index("variant")
    assert list(table.index) == ["ad3-lp", "ad3-exact", "arcgp-cycles", "ppc", "ilp"]
    row = table.loc["ad3-lp"]
    assert (row["lp_compared"], row["lp_differs"]) == (2, 0)
    assert row["lp_max_rel_diff"] < 1e-9
    assert row["iteration_caps"] == 1 and row["optimal"] == 2
    assert row["integer_pct"] == pytest.approx(100 / 3)
    assert row["speed_rel_ppc_pct"] == pytest.approx(50.0)  # 6 s against PPC's 3 s
    assert row["speed_rel_ilp_pct"] == pytest.approx(100.0)
    assert row["build_seconds_per_sent"] == pytest.approx(0.5)
    assert row["uas"] == pytest.approx(100 * 9 / 12)
    exact = table.loc["ad3-exact"]
    assert (exact["best_tree_compared"], exact["best_tree_pct"]) == (2, 50.0)
    assert exact["timeouts"] == 1 and exact["speed_rel_ppc_is"] == "upper bound"
    assert exact["uas"] == pytest.approx(100 * 6 / 12)
    assert table.loc["ilp", "best_tree_pct"] == 100.0
    assert tables.ad3_versions(frame()) == "2.2.1"


def test_ad3_lp_table():
    table = tables.ad3_lp_table(frame(), SETTINGS).set_index("variant")
    assert list(table.index) == ["arcgp-cycles", "arcgp", "ppc"]
    same = table.loc["arcgp-cycles"]
    assert (same["compared"], same["equal"], same["ad3_tighter"], same["ad3_looser"]) == (2, 2, 0, 0)
    loose = table.loc["arcgp"]  # AD3's 20.5 against 21: tighter by 0.5 / 21
    assert (loose["ad3_tighter"], loose["equal"]) == (1, 1)
    assert loose["max_tighter_rel_diff"] == pytest.approx(0.5 / 21)
    ppc = table.loc["ppc"]  # 20.5 against 20: looser (AD3's arcs are the tree polytope, ArcGP's pairs weaker)
    assert ppc["ad3_looser"] == 1 and ppc["max_looser_rel_diff"] == pytest.approx(0.5 / 20.5)


def test_ad3_rows_show_the_install_failure():
    """AD3's records all errors (not installed): its rows say why, with no speed ratio."""
    failed = {"error": "AD3 not installed: the build failed at its build step: gcc exited 1"}
    runs = [
        frame()[lambda f: ~f["variant"].str.startswith("ad3")],
        run("ad3-lp", [("error", float("nan"), 0.01, None, failed)] * 3),
    ]
    table = tables.ad3_table(tables.load_runs_frame(pd.concat(runs, ignore_index=True)), SETTINGS)
    row = table.set_index("variant").loc["ad3-lp"]
    assert row["errors"] == 3 and row["error"].startswith("AD3 not installed: the build failed")
    assert np.isnan(row["speed_rel_ppc_pct"])
