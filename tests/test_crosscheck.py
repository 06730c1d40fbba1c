"""The cross-check of claimed optima against certified exact answers (decoders.tables.crosscheck): synthetic
record frames, then real decoders' false claims on titles and sentences beyond what ``verify`` enumerates."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from parsing_toys import long_parse_instances
from test_titles_decoders import random_instance

from decoders.bnb import decoders as bnb_decoders
from decoders.harness.protocol import Solution, get_decoder
from decoders.harness.records import RecordError, make_record, records_frame, write_records
from decoders.harness.runner import run_instances
from decoders.tables import bnb as bnb_tables
from decoders.tables import chains as chains_tables
from decoders.tables import linking as linking_tables
from decoders.tables import ppc as ppc_tables
from decoders.tables import titles as titles_tables
from decoders.tables.crosscheck import Certified, cross_check, cross_check_counts, cross_check_note
from decoders.titles import decoders as titles_decoders

CERTIFIED = Certified(("exact", "other-exact"))


def _record(
    variant: str, instance: str, objective: float, status: str = "optimal", stats: dict | None = None, **extra
) -> dict:
    bound = objective if status == "optimal" else None
    solution = Solution([1, 2], objective, bound, status, {"nodes": 3} if stats is None else stats)
    return make_record(
        experiment="toy",
        dataset=extra.pop("dataset", "d"),
        variant=variant,
        params={},
        instance_id=instance,
        size=2,
        seconds=0.5,
        solution=solution,
        evaluation=extra or {"correct": 2, "total": 2},
    )


def _frame(*rows: dict) -> pd.DataFrame:
    return records_frame(list(rows))


def _stats(frame: pd.DataFrame, variant: str, instance: str) -> dict:
    row = frame[(frame["variant"] == variant) & (frame["instance_id"] == instance)].iloc[0]
    return json.loads(row["stats"])


def test_a_claim_below_a_certified_optimum_becomes_an_error_with_the_reason():
    frame = _frame(_record("exact", "a", 10.0), _record("mine", "a", 9.0), _record("mine", "b", 4.0))
    checked = cross_check(frame, CERTIFIED)
    mine = checked[checked["variant"] == "mine"].set_index("instance_id")
    assert mine.loc["a", "status"] == "error"
    assert math.isnan(mine.loc["a", "objective"]) and math.isnan(mine.loc["a", "bound"])
    assert mine.loc["a", "structure"] == "null" and math.isnan(mine.loc["a", "correct"])
    stats = _stats(checked, "mine", "a")
    assert "'exact'" in stats["error"] and "10.0" in stats["error"] and "9.0" in stats["error"]
    assert stats["claimed"] == {"objective": 9.0, "bound": 9.0, "status": "optimal"}
    assert stats["decoder_stats"] == {"nodes": 3}
    # the instance without a certified answer keeps its claim; the certified record is untouched
    assert mine.loc["b", "status"] == "optimal" and mine.loc["b", "objective"] == 4.0
    pd.testing.assert_frame_equal(
        checked[checked["variant"] == "exact"], frame[frame["variant"] == "exact"], check_dtype=False
    )
    # applying it again changes nothing, and the counts still see the rejection
    pd.testing.assert_frame_equal(cross_check(checked, CERTIFIED), checked)
    counts = cross_check_counts(checked, CERTIFIED).set_index("variant")
    assert counts.loc["mine", ["claims", "checked", "unchecked", "agree", "worse", "better"]].tolist() == [
        2,
        1,
        1,
        0,
        1,
        0,
    ]
    assert "now errors: mine 1" in cross_check_note(counts.reset_index(), CERTIFIED)


def test_true_claims_and_ties_within_the_relative_tolerance_are_kept():
    for optimum in (1e12, -3.5, 1e-12, -1e-300):
        tie = optimum * (1 + 1e-10)  # within 1e-9 of the magnitude
        frame = _frame(
            _record("exact", "a", optimum),
            _record("mine", "a", optimum),
            _record("yours", "a", tie),
            _record("far", "a", optimum - abs(optimum) * 1e-6),
        )
        checked = cross_check(frame, CERTIFIED)
        status = checked.set_index("variant")["status"]
        assert status["mine"] == status["yours"] == "optimal", optimum
        assert status["far"] == "error", optimum


def test_the_tolerance_is_relative_never_absolute():
    # at tiny magnitudes a difference far below any absolute tolerance still rejects a false claim
    frame = _frame(_record("exact", "a", 2e-20), _record("mine", "a", 1e-20))
    assert cross_check(frame, CERTIFIED).set_index("variant").loc["mine", "status"] == "error"
    # at huge magnitudes a difference of 1 is within 1e-9 relative
    frame = _frame(_record("exact", "a", 1e15 + 1.0), _record("mine", "a", 1e15))
    assert cross_check(frame, CERTIFIED).set_index("variant").loc["mine", "status"] == "optimal"
    strict = Certified(("exact",), rtol=0.0)
    assert cross_check(frame, strict).set_index("variant").loc["mine", "status"] == "error"


def test_the_best_certified_answer_of_another_variant_is_the_reference():
    frame = _frame(
        _record("exact", "a", 10.0),
        _record("other-exact", "a", 12.0),
        _record("mine", "a", 11.0),
    )
    checked = cross_check(frame, CERTIFIED)
    assert "'other-exact' reaches 12.0" in _stats(checked, "mine", "a")["error"]
    # certified variants that disagree keep their records; both sides are counted
    certified = checked[checked["variant"] != "mine"]
    pd.testing.assert_frame_equal(certified, frame[frame["variant"] != "mine"], check_dtype=False)
    counts = cross_check_counts(checked, CERTIFIED).set_index("variant")
    assert counts.loc["exact", "worse"] == 1 and counts.loc["other-exact", "better"] == 1
    assert bool(counts.loc["exact", "certified"]) and not bool(counts.loc["mine", "certified"])
    note = cross_check_note(counts.reset_index(), CERTIFIED)
    assert "certified variants below another's: exact 1" in note and "other-exact 1" in note


def test_claims_above_a_certified_optimum_are_counted_not_rejected():
    frame = _frame(_record("exact", "a", 10.0), _record("mine", "a", 11.0))
    checked = cross_check(frame, CERTIFIED)
    pd.testing.assert_frame_equal(checked, frame)
    counts = cross_check_counts(checked, CERTIFIED).set_index("variant")
    # the certified record has no other certified answer to meet: unchecked
    assert counts.loc["mine", "better"] == 1 and counts.loc["exact", "unchecked"] == 1
    assert "above every certified optimum: mine 1;" in cross_check_note(counts.reset_index(), CERTIFIED)


def test_a_minimisation_rejects_claims_above_the_certified_minimum():
    costs = Certified(("exact",), sense="min", keys=("dataset", "instance_id", "connection"))
    frame = _frame(
        _record("exact", "a", 5.0, connection=0.0),
        _record("mine", "a", 6.0, connection=0.0),
        _record("mine-other", "a", 6.0, connection=1.0),  # another problem: nothing to compare with
        _record("cheaper", "a", 4.0, connection=0.0),
    )
    checked = cross_check(frame, costs).set_index("variant")
    assert (
        checked.loc["mine", "status"] == "error"
        and "< the claimed optimum 6.0" in json.loads(checked.loc["mine", "stats"])["error"]
    )
    assert checked.loc["mine-other", "status"] == "optimal" and checked.loc["cheaper", "status"] == "optimal"
    counts = cross_check_counts(checked.reset_index(), costs).set_index("variant")
    assert counts.loc["mine-other", "unchecked"] == 1 and counts.loc["cheaper", "better"] == 1


def test_infinite_nan_and_non_optimal_records():
    frame = _frame(
        _record("exact", "none", -math.inf),  # certified: no structure exists
        _record("mine", "none", -math.inf),  # agrees
        _record("exact", "some", 3.0),
        _record("mine", "some", -math.inf),  # claims nothing exists: below the certified 3.0
        _record("other-exact", "lost", math.nan, status="error"),  # no reference
        _record("mine", "lost", 1.0),
        _record("beam", "some", math.nan, status="error"),  # not a claim
        _record("beam", "none", 2.0, status="feasible"),  # not a claim
    )
    checked = cross_check(frame, CERTIFIED).set_index(["variant", "instance_id"])
    assert checked.loc[("mine", "none"), "status"] == "optimal"
    assert checked.loc[("mine", "some"), "status"] == "error"
    assert checked.loc[("mine", "lost"), "status"] == "optimal"
    assert (
        checked.loc[("beam", "some"), "status"] == "error"
        and checked.loc[("beam", "none"), "status"] == "feasible"
    )
    counts = cross_check_counts(checked.reset_index(), CERTIFIED).set_index("variant")
    assert counts.loc["mine", ["claims", "agree", "worse", "unchecked"]].tolist() == [3, 1, 1, 1]
    assert "beam" not in counts.index


def test_empty_frames_and_bad_arguments():
    empty = records_frame([])
    assert cross_check(empty, CERTIFIED) is empty
    counts = cross_check_counts(empty, CERTIFIED)
    assert counts.empty and list(counts.columns) == [
        "variant",
        "certified",
        "claims",
        "checked",
        "unchecked",
        "agree",
        "worse",
        "better",
    ]
    assert "0 claims checked, 0 without" in cross_check_note(counts, CERTIFIED)
    only_claims = _frame(_record("mine", "a", 1.0))
    pd.testing.assert_frame_equal(cross_check(only_claims, CERTIFIED), only_claims)
    with pytest.raises(RecordError, match="connection"):
        cross_check(only_claims, Certified(("exact",), keys=("dataset", "instance_id", "connection")))
    with pytest.raises(RecordError, match="DataFrame"):
        cross_check([1, 2], CERTIFIED)
    for bad in ({"variants": "exact"}, {"variants": ()}, {"variants": ("a",), "sense": "up"}):
        with pytest.raises(ValueError, match="variants|sense"):
            Certified(**bad)
    for rtol in (-1e-9, 1.0, True, "0"):
        with pytest.raises(ValueError, match="rtol"):
            Certified(("exact",), rtol=rtol)


def _loaded(module, tmp_path, *rows: dict) -> pd.DataFrame:
    path = tmp_path / "records.parquet"
    write_records(path, _frame(*rows))
    return module.load_runs([str(path)]).set_index("variant")


def test_chains_linking_and_ppc_tables_cross_check_where_they_load_runs(tmp_path):
    chains = _loaded(chains_tables, tmp_path, _record("viterbi", "a", 5.0), _record("mine", "a", 4.0))
    assert chains.loc["mine", "status"] == "error"
    maximal, minimal = {"connection": "maximal"}, {"connection": "minimal"}
    linking = _loaded(
        linking_tables,
        tmp_path,
        _record("exact-max", "a", 10.0, stats=maximal, fair=1, k=2),
        _record("exact-min", "a", 8.0, stats=minimal, fair=1, k=2),
        _record("mine-max", "a", 12.0, stats=maximal, fair=1, k=2),  # costs more than the maximal optimum
        _record("mine-min", "a", 8.0, stats=minimal, fair=1, k=2),  # the minimal optimum: kept
        _record("cut-max", "a", 11.0, stats={**maximal, "max_candidates": 5}, fair=1, k=2),  # another problem
    )
    assert linking.loc["mine-max", "status"] == "error" and "'exact-max'" in linking.loc["mine-max", "stats"]
    assert (linking.loc[["mine-min", "cut-max"], "status"] == "optimal").all()
    lp = {"parts_added": 4, "words": 2}
    ppc = _loaded(
        ppc_tables,
        tmp_path,
        _record("mst", "a", 5.0, stats={"words": 2}),
        _record("mine", "a", 4.0, stats={"words": 2}),  # a first-order tree below the MST
        _record("ppc", "a", 3.0, stats=lp),  # an LP of the grandparent model: not the first-order problem
    )
    assert ppc.loc["mine", "status"] == "error" and ppc.loc["ppc", "status"] == "optimal"
    assert ppc.loc["mine", "words"] == 2  # a rejected record keeps its sentence's length
    # the note each table prints, from the records as its tables module loaded them
    for module, loaded in ((chains_tables, chains), (linking_tables, linking), (ppc_tables, ppc)):
        counts = cross_check_counts(loaded.reset_index(), module.CERTIFIED).set_index("variant")
        assert counts.loc["mine" if module is not linking_tables else "mine-max", "worse"] == 1, module
        assert "now errors: mine" in cross_check_note(counts.reset_index(), module.CERTIFIED)


# --- real decoders: cheap answers claimed optimal beyond what verify can enumerate ---


def _titles_claims(instances):
    """Beam search of width 1 relabelled ``optimal`` with its own score as the bound (a user's false claim),
    and the ILP's certified answers, as the harness records them."""
    beam, ilp = get_decoder("titles", "beam"), get_decoder("titles", "ilp")
    rows = []
    for instance_id, instance in instances:
        cheap = beam(instance, width=1)
        claim = Solution(cheap.structure, cheap.objective, cheap.objective, "optimal", cheap.stats)
        assert titles_decoders.verify(instance, claim) is None  # verify cannot tell: beyond enumeration
        exact = ilp(instance, solver="cp-sat")
        assert exact.status == "optimal"
        for variant, solution in (("mine", claim), ("ilp-cp-sat", exact)):
            rows.append(
                make_record(
                    experiment="titles",
                    dataset="toy",
                    variant=variant,
                    params={},
                    instance_id=instance_id,
                    size=instance.n,
                    seconds=0.1,
                    solution=solution,
                    evaluation=titles_decoders.evaluate(instance, solution),
                )
            )
    return records_frame(rows)


def test_false_title_claims_beyond_enumeration_become_errors(tmp_path):
    instances = []
    for seed in range(40):
        instance = random_instance(seed, n=14, k=5, missing=0.05)
        assert math.perm(instance.n, instance.k) > titles_decoders.VERIFY_BRUTE_FORCE_PATHS
        instances.append((f"t{seed}", instance))
    frame = _titles_claims(instances)
    path = tmp_path / "records.parquet"
    write_records(path, frame)
    checked = titles_tables.load_runs([str(path)]).set_index(["variant", "instance_id"])
    # an independent oracle: exhaustive search over every ordering
    false = 0
    for instance_id, instance in instances:
        optimum = get_decoder("titles", "exhaustive")(instance).objective
        claimed = frame[(frame["variant"] == "mine") & (frame["instance_id"] == instance_id)][
            "objective"
        ].item()
        status = checked.loc[("mine", instance_id), "status"]
        if claimed < optimum - 1e-9 * abs(optimum):
            false += 1
            assert status == "error", instance_id
            assert "'ilp-cp-sat'" in json.loads(checked.loc[("mine", instance_id), "stats"])["error"]
        else:
            assert status == "optimal", instance_id
        assert checked.loc[("ilp-cp-sat", instance_id), "status"] == "optimal"
    assert false >= 10, false  # the test has false claims to catch
    counts = cross_check_counts(checked.reset_index(), titles_tables.CERTIFIED).set_index("variant")
    assert counts.loc["mine", "worse"] == false and counts.loc["mine", "claims"] == len(instances)


def test_false_tree_claims_beyond_enumeration_become_errors(tmp_path):
    """Eisner's first-order tree, scored under the non-local model and claimed optimal with that score as the
    bound, on sentences longer than verify enumerates: verify passes them; the cross-check against branch and
    bound on the same instance set rejects every one below B&B's optimum (B&B checked against CP-SAT)."""
    items = long_parse_instances(tmp_path, 12)
    exact = run_instances(
        "bnb",
        "toy~full~k3",
        "bnb",
        "bnb",
        {},
        items,
        time_limit=60,
        isolate=False,
        progress=False,
        evaluate=bnb_decoders.evaluate,
    )
    assert (exact["status"] == "optimal").all()
    audit = run_instances(
        "bnb",
        "toy~full~k3",
        "cp-sat",
        "cp-sat",
        {},
        items,
        time_limit=60,
        isolate=False,
        progress=False,
    )
    rows = []
    for instance_id, n, instance in items:
        first = replace(instance, model=instance.pruner)  # the first-order model that pruned it
        heads = np.concatenate([[-1], bnb_decoders.decode_eisner(first).structure])
        score = bnb_decoders.tree_score(instance, heads)
        claim = Solution(heads[1:].tolist(), score, score, "optimal", {"words": n})
        assert bnb_decoders.verify(instance, claim) is None  # beyond enumeration: verify cannot tell
        rows.append(
            make_record(
                experiment="bnb",
                dataset="toy~full~k3",
                variant="mine",
                params={},
                instance_id=instance_id,
                size=n,
                seconds=0.1,
                solution=claim,
                evaluation=bnb_decoders.evaluate(instance, claim),
            )
        )
    claims = records_frame(rows)
    checked = bnb_tables.load_runs_frame(pd.concat([exact, audit, claims], ignore_index=True))
    mine = checked[checked["variant"] == "mine"].set_index("instance_id")
    optimum = exact.set_index("instance_id")["objective"]
    # B&B's optima are right: CP-SAT agrees wherever it finished
    proved = audit[audit["status"] == "optimal"].set_index("instance_id")["objective"]
    assert len(proved) and (proved == optimum[proved.index]).all()
    false = claims.set_index("instance_id")["objective"] < optimum
    assert false.sum() >= 3, false.sum()  # the test has false claims to catch
    assert (mine.loc[false[false].index, "status"] == "error").all()
    assert (mine.loc[false[~false].index, "status"] == "optimal").all()
    for instance_id in false[false].index:
        assert (
            "'bnb'" in json.loads(mine.loc[instance_id, "stats"])["error"]
            or "'cp-sat'" in json.loads(mine.loc[instance_id, "stats"])["error"]
        )
    counts = cross_check_counts(checked, bnb_tables.CERTIFIED).set_index("variant")
    assert counts.loc["mine", "worse"] == false.sum() and counts.loc["cp-sat", "worse"] == 0
    # a rejected sentence counts with none of its words correct, as a decoding error does
    assert (mine.loc[false[false].index, "correct"] == 0).all() and mine["total"].notna().all()
