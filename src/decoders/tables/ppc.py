"""Tables and figures of the `ppc` experiment (Riedel et al. 2012) from its gathered result records.

Records are per test sentence of a dataset, one file per variant: decode seconds (scoring included),
``correct``/``total`` scored words (UAS without punctuation by form), status (``optimal`` = certified), and the
LP decoders' ``parts_scored``, ``parts_added``, ``lp_solves``, ``lp_iterations``, ``columns_priced``, ``cuts`` and
``integral`` in their stats (the ``ilp`` decoder adds ``ilp_solved``; ``mst`` records only ``words``).

The variants play roles found by their config entries (:func:`variant_roles`): BF (``full-lp`` on the ``all``
polytope with the lean rows) and BF with the paper's rows, the other two polytopes of Table 2, PPC (ours and the
paper's), the first-order MST and, when configured, the exact ILP, and the peer AD3's LP and branch and bound
with the LP AD3's equals (ArcGP+GPArc with cycle cuts): :func:`ad3_table` and :func:`ad3_lp_table`.
Timeouts are never dropped: a sentence counts in its variant's speed at its recorded seconds, in UAS with no
correct head (its scored words taken from another record of the same sentence), and in the ``timeouts`` column;
only comparisons that need both answers (objectives, parts) leave it out, and say how many they compared.

Every speed ratio (Tables 1 and 2, BF = 100 or ArcGP+GPArc = 100) is printed with the ends of its 95% interval
(``<column>_lo``, ``<column>_hi``): a bootstrap over the sentences, both sides of a sentence together, plus the
run-to-run noise that the noise jobs measured by timing a sample again in separate processes
(:mod:`decoders.tables.ratios`). The LP decoders have no compiled timing loop to pair with a reference in one
process (``harness.reference``), so the two sides are matched by sentence across their jobs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from decoders.harness.records import read_records
from decoders.io import read_json, read_parquet
from decoders.papers import paper_value
from decoders.ppc.decoders import AUDIT_TOLERANCE
from decoders.seeds import seed_rows, seeded_name
from decoders.tables.captions import caption
from decoders.tables.coverage import CALL, FAILED, coverage, failures_text, ratio_timing, timing_mode
from decoders.tables.crosscheck import Certified, cross_check, cross_check_counts, cross_check_note
from decoders.tables.ratios import interval_bounds, interval_note, load_noise, matched_sides
from decoders.tables.writers import rounded, save_figure, write_table

#: The experiment's section of the results page: its heading and figures (title, file under results/, and
#: optionally the table the figure goes with: it is shown only when that table is).
PAGE = {
    "heading": "ppc: grandparent parsing LPs by parse, price and cut (Riedel et al. 2012)",
    "figures": [
        (
            "Seconds per sentence vs length: BF (lean and paper's rows) and PPC (ours and the paper's)",
            "figures/ppc/time_vs_length.png",
        ),
        ("The full LP's growth with sentence length: parts and seconds", "figures/ppc/bf_growth.png"),
    ],
}

#: Which of the paper's corpora a dataset stands in for (CoNLL-X Danish, CoNLL 2007 Italian and Hungarian).
PAPER_LANGUAGE = {"ddt": "danish", "partut": "italian", "szeged": "hungarian"}
#: parse, price and cut's phases (decoders.ppc.lp.parse_price_cut's stats), in the statistics table
PHASES = ("setup", "lp", "pricing", "scoring", "cuts", "update")
#: The numeric stats of the LP decoders, read into columns of their own.
STAT_KEYS = (
    "words",
    "parts_scored",
    "parts_added",
    "lp_solves",
    "lp_iterations",
    "columns_priced",
    "cuts",
    "audit_max_reduced_cost",
    "audit_max_arcgp_violation",
    "audit_tolerance",
    "audit_parts",
    *(f"seconds_{phase}" for phase in PHASES),
    "seconds_build",
)
#: Boolean stats, read as 1.0 / 0.0 (NaN where a record lacks them: MST, a killed timeout).
FLAG_KEYS = ("integral", "ilp_solved", "audit_passed", "iteration_cap")
#: Two objectives differ when they are further apart than this, relative to the larger magnitude.
OBJECTIVE_RTOL = 1e-6
#: Table 2's polytopes: our role -> (label, the paper's `constraints`).
POLYTOPES = {
    "arcgp": ("ArcGP+GPArc", "arcgp+gparc"),
    "onegp": ("OneGP+NoGP", "onegp+nogp"),
    "bf": ("all", "all"),
}
#: Table 1's systems: our role -> label.
SYSTEMS = {
    "bf": "BF (full LP, lean rows)",
    "bf_paper": "BF (full LP, paper's rows)",
    "ppc": "PPC",
    "ppc_paper": "PPC (paper's pricing)",
    "mst": "MST (first order)",
    "ilp": "ILP (MIP if fractional)",
    "bf_cycles": "BF + cycle cuts (analysis)",
}
#: parse_price_cut's options that depart from the paper's Algorithm 1 (decoders.ppc.lp)
OUR_PRICING = ("start", "columns_per_word", "rows", "no_gp", "primal")
PEER = "UDPipe 1 (peer)"
#: The peer's name as a variant of its records when they join the run's (its speed intervals).
PEER_VARIANT = "udpipe"
#: Length bins (words) of the figures' median lines: 5 words wide on a linear axis, 25% wide on a log axis.
BIN_WIDTH = 5
GROWTH_BIN_RATIO = 1.25


def variant_roles(settings: Mapping[str, Any]) -> dict[str, str | None]:
    """The variant (name in config/ppc.yaml) playing each role, the first configured one; None when absent."""
    variants = settings.get("variants", {})

    def find(
        decoder: str, polytope: str | None = None, rows: str = "lean", cycles: bool = False
    ) -> str | None:
        for name, spec in variants.items():
            params = spec.get("params") or {}
            if spec.get("decoder") != decoder:
                continue
            if polytope is not None and (
                params.get("polytope", "all") != polytope
                or params.get("rows", "lean") != rows
                or params.get("cycle_cuts", False) != cycles
            ):
                continue
            return name
        return None

    # PPC: the first ppc variant with our pricing options, else the first; the paper's: one without them
    ppcs = [name for name, spec in variants.items() if spec.get("decoder") == "ppc"]
    ours = [n for n in ppcs if any(k in (variants[n].get("params") or {}) for k in OUR_PRICING)]
    ppc = (ours or ppcs or [None])[0]
    paper = [n for n in ppcs if n != ppc and n not in ours]
    return {
        "bf": find("full-lp", "all"),
        "bf_paper": find("full-lp", "all", rows="paper"),
        "bf_cycles": find("full-lp", "all", cycles=True),
        "arcgp": find("full-lp", "arcgp"),
        "onegp": find("full-lp", "onegp"),
        "ppc": ppc,
        "ppc_paper": paper[0] if paper else None,
        "mst": find("mst"),
        "ilp": find("ilp"),
        "audit": find("ppc-audit"),
        "arcgp_cycles": find("full-lp", "arcgp", cycles=True),
        "ad3_lp": find("ad3-lp"),
        "ad3_exact": find("ad3-exact"),
    }


#: The variant whose optima are certified for the first-order problem (Chu-Liu-Edmonds). Every optimal claim
#: of a first-order tree (a record without ``parts_added``, as ``verify`` reads it) is cross-checked against
#: it on the same sentence (:mod:`decoders.tables.crosscheck`): a second opinion, ``verify`` proving such a
#: claim from the instance already. An LP claim is checked by ``verify`` for its bound and, when integral, its
#: tree's score; the LPs differ by polytope and rows, so each variant's LP claims form a problem of their own
#: here (counted as unchecked), and Table 1 sets them against brute force.
CERTIFIED = Certified(("mst",), keys=("dataset", "instance_id", "problem"))


def _problem(variant: str, stats: str) -> str:
    """The problem a record claims to solve: the first-order tree (no ``parts_added`` in its stats, as
    ``verify`` reads it), else its variant's own LP."""
    return "first-order" if "parts_added" not in (json.loads(stats) if stats else {}) else f"LP of {variant}"


def load_runs(paths: Iterable[str]) -> pd.DataFrame:
    """The records of ``paths`` with their ``problem``, every first-order optimal claim cross-checked against
    :data:`CERTIFIED` (a claim below the certified optimum becomes an ``error``), through
    :func:`load_runs_frame`."""
    frames = [read_records(path) for path in paths]
    if not frames:
        return load_runs_frame(pd.DataFrame())
    records = pd.concat(frames, ignore_index=True)
    problem = [_problem(v, s) for v, s in zip(records["variant"], records["stats"], strict=True)]
    return load_runs_frame(cross_check(records.assign(problem=problem), CERTIFIED))


def load_runs_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Records with the stats as columns and ``words`` (sentence length) on every row.

    A record without ``words`` (a killed timeout has no stats) takes it from another record of the same sentence,
    else from ``size`` (the instance sets store n^3, the full LP's growth).
    """
    frame = frame.copy()
    for column in ("dataset", "variant", "instance_id", "status", "stats"):
        if column not in frame:
            frame[column] = pd.Series(dtype=str)
    for column in ("size", "seconds", "objective", "correct", "total"):
        if column not in frame:
            frame[column] = pd.Series(dtype=float)
    stats = frame["stats"].map(lambda text: json.loads(text) if isinstance(text, str) and text else {})
    for key in STAT_KEYS:
        frame[key] = stats.map(lambda s, key=key: s.get(key)).astype(float)
    for key in FLAG_KEYS:
        frame[key] = stats.map(lambda s, key=key: None if s.get(key) is None else float(bool(s[key]))).astype(
            float
        )
    known = frame.groupby(["dataset", "instance_id"])["words"].transform("max")
    from_size = np.round(np.cbrt(frame["size"].astype(float)))
    frame["words"] = frame["words"].fillna(known).fillna(from_size)
    return frame


def _variant(records: pd.DataFrame, variant: str | None) -> pd.DataFrame:
    if variant is None:
        return records.iloc[0:0]
    return records[records["variant"] == variant]


def _count(group: pd.DataFrame, status: str) -> int:
    return int((group["status"] == status).sum())


def _speed(group: pd.DataFrame) -> float:
    """Sentences per second over every sentence, timeouts and errors at their recorded seconds."""
    seconds = group["seconds"].sum()
    return len(group) / seconds if seconds > 0 else float("nan")


def scored_words(records: pd.DataFrame, peer: pd.DataFrame | None = None) -> pd.Series:
    """Scored words (UAS denominator) per sentence id, from any record of it (the peer's included)."""
    frames = [records[["instance_id", "total"]]]
    if peer is not None and not peer.empty:
        frames.append(peer[["instance_id", "total"]])
    both = pd.concat(frames, ignore_index=True).dropna(subset=["total"])
    return both.groupby("instance_id")["total"].max()


def uas(group: pd.DataFrame, totals: pd.Series) -> float:
    """UAS in %: a sentence without a tree (timeout, error) has no correct head, its words still count."""
    if group.empty:
        return float("nan")
    total = totals.reindex(group["instance_id"]).sum()
    return 100.0 * group["correct"].fillna(0).sum() / total if total else float("nan")


def _relative_sums(group: pd.DataFrame, reference: pd.DataFrame, column: str) -> tuple[float, int]:
    """100 x sum(group) / sum(reference) of a stat over the sentences both recorded it on, and their count."""
    both = group[["instance_id", column]].merge(
        reference[["instance_id", column]], on="instance_id", suffixes=("", "_ref")
    )
    both = both.dropna(subset=[column, f"{column}_ref"])
    reference_sum = both[f"{column}_ref"].sum()
    if both.empty or reference_sum == 0:
        return float("nan"), len(both)
    return 100.0 * both[column].sum() / reference_sum, len(both)


def compare_objectives(group: pd.DataFrame, reference: pd.DataFrame) -> tuple[float, int, int, float]:
    """(mean of objective / reference objective in %, sentences compared, sentences differing by more than
    :data:`OBJECTIVE_RTOL` relative, the largest relative difference) over the sentences where both finished (no
    timeout or error) with a finite objective. Equal objectives have ratio 1 (also at 0); a ratio to a reference
    of 0 is left out of the mean; a difference is relative to the larger magnitude (0 when both are 0)."""
    columns = ["instance_id", "objective", "status"]
    both = group[columns].merge(reference[columns], on="instance_id", suffixes=("", "_ref"))
    finished = ~both["status"].isin(["timeout", "error"]) & ~both["status_ref"].isin(["timeout", "error"])
    both = both[finished & np.isfinite(both["objective"]) & np.isfinite(both["objective_ref"])]
    if both.empty:
        return float("nan"), 0, 0, float("nan")
    ours, theirs = both["objective"].to_numpy(float), both["objective_ref"].to_numpy(float)
    larger = np.maximum(np.abs(ours), np.abs(theirs))
    same = np.abs(ours - theirs) <= OBJECTIVE_RTOL * larger
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(same, 1.0, ours / np.where(theirs == 0, np.nan, theirs))
        relative = np.where(larger > 0, np.abs(ours - theirs) / np.where(larger > 0, larger, 1.0), 0.0)
    mean = 100.0 * float(np.nanmean(ratio)) if np.isfinite(ratio).any() else float("nan")
    return mean, len(both), int((~same).sum()), float(relative.max())


def _integer_pct(group: pd.DataFrame) -> float:
    """% of all sentences whose LP solution was integral (a sentence without a solution is not)."""
    return 100.0 * float((group["integral"] == 1).sum()) / len(group) if len(group) else float("nan")


def _paper_table1(dataset: str, role: str) -> dict[str, Any]:
    language = PAPER_LANGUAGE.get(dataset)
    if language is None or role not in ("bf", "bf_paper", "ppc", "ppc_paper"):
        return {}
    paper = paper_value("ppc.table1")[language]
    ours = {
        "paper_speed_rel_pct": paper["speed_rel_pct"],
        "paper_gps_scored_rel_pct": paper["gps_scored_rel_pct"],
        "paper_gps_added_rel_pct": paper["gps_added_rel_pct"],
        "paper_objective_rel_pct": paper["objective_rel_pct"],
        "paper_integer_pct": paper["integer_pct"],
        "paper_uas": paper["uas_pct"],
    }
    if role in ("bf", "bf_paper"):  # the paper's BF column: 100% by definition; integer and UAS as PPC's
        ours.update(
            paper_speed_rel_pct=100,
            paper_gps_scored_rel_pct=100,
            paper_gps_added_rel_pct=100,
            paper_objective_rel_pct=100,
        )
    return ours


TABLE1_COLUMNS = [
    "dataset",
    "paper_language",
    "system",
    "variant",
    "sentences",
    "timeouts",
    "errors",
    "partial",
    "timing",
    "seconds",
    "sent_per_s",
    "speed_rel_bf_pct",
    "speed_rel_bf_pct_lo",
    "speed_rel_bf_pct_hi",
    "speed_rel_bf_is",
    "speed_rel_bf_paper_pct",
    "speed_rel_bf_paper_pct_lo",
    "speed_rel_bf_paper_pct_hi",
    "speed_rel_bf_paper_is",
    "parts_scored_per_sent",
    "parts_scored_rel_bf_pct",
    "parts_added_per_sent",
    "parts_added_rel_bf_pct",
    "parts_compared",
    "objective_rel_bf_pct",
    "objective_compared",
    "objective_differs",
    "objective_max_rel_diff",
    "objective_max_rel_diff_bf_paper",
    "integer_pct",
    "fractional",
    "uas",
    "uas_fractional",
    "mip_solved",
    "paper_speed_rel_pct",
    "paper_gps_scored_rel_pct",
    "paper_gps_added_rel_pct",
    "paper_objective_rel_pct",
    "paper_integer_pct",
    "paper_uas",
]


def censored_ratio(speed: float, timed_out: bool, reference: pd.DataFrame) -> tuple[float, str]:
    """(100 x ``speed`` / speed of ``reference``, what that number is): ``exact`` when neither timed out; a
    timeout counts at its recorded seconds, below its true time, so the ratio is a ``lower bound`` when only the
    reference timed out, an ``upper bound`` when only the row did (``timed_out``), ``neither bound`` when both
    did."""
    if reference.empty:
        return float("nan"), ""
    theirs = _count(reference, "timeout") > 0
    kind = {(False, False): "exact", (False, True): "lower bound", (True, False): "upper bound"}
    return 100.0 * speed / _speed(reference), kind.get((timed_out, theirs), "neither bound")


def speed_intervals(
    records: pd.DataFrame,
    noise: pd.DataFrame | None,
    seed: int,
    dataset: str,
    variant: str,
    references: Mapping[str, str | None],
) -> dict[str, float]:
    """For each ``column`` -> reference variant of ``references``, ``<column>_lo`` and ``<column>_hi``: the 95%
    interval of 100 x ``variant``'s speed over the reference's, i.e. the reference's summed seconds over the
    variant's on the same sentences, matched by sentence id across their jobs, the noise jobs' retimings giving
    the run-to-run term (:func:`decoders.tables.ratios.interval_bounds`; bootstrap seeded with ``seed``).
    NaN where the reference is the variant itself (its 100 is no measurement), either lacks records, or the two
    decoded different sentences."""
    out = {}
    for column, reference in references.items():
        low = high = float("nan")
        found = None if reference in (None, variant) else matched_sides(records, dataset, variant, reference)
        if found is not None and set(found[0].index) == set(found[1].index):
            low, high = interval_bounds(
                lambda frame, r=reference: matched_sides(frame, dataset, variant, r), records, noise, seed
            )
            low, high = 100.0 * low, 100.0 * high
        out[f"{column}_lo"], out[f"{column}_hi"] = low, high
    return out


def _table1_row(
    dataset: str,
    role: str,
    variant: str,
    group: pd.DataFrame,
    bf: pd.DataFrame,
    totals: pd.Series,
    bf_paper: pd.DataFrame,
) -> dict[str, Any]:
    speed = _speed(group)
    timed_out = _count(group, "timeout") > 0
    rel_bf, rel_bf_is = censored_ratio(speed, timed_out, bf)
    rel_paper, rel_paper_is = censored_ratio(speed, timed_out, bf_paper)
    row: dict[str, Any] = {
        "dataset": dataset,
        "paper_language": PAPER_LANGUAGE.get(dataset),
        "system": SYSTEMS[role],
        "variant": variant,
        "sentences": len(group),
        **coverage(group),
        "timing": ratio_timing(
            timing_mode(group), *(timing_mode(ref) for ref in (bf, bf_paper) if not ref.empty)
        ),
        "seconds": group["seconds"].sum(),
        "sent_per_s": speed,
        "speed_rel_bf_pct": rel_bf,
        "speed_rel_bf_is": rel_bf_is,
        "speed_rel_bf_paper_pct": rel_paper,
        "speed_rel_bf_paper_is": rel_paper_is,
        "uas": uas(group, totals),
    }
    if role != "mst":  # the LP decoders: grandparent parts, objectives, integrality
        scored, compared = _relative_sums(group, bf, "parts_scored")
        added, _ = _relative_sums(group, bf, "parts_added")
        objective, objectives, differs, largest = compare_objectives(group, bf)
        largest_paper = compare_objectives(group, bf_paper)[3]
        # the ILP's records say `integral` of its answer (true once the MIP ran); its LP was fractional where
        # the MIP had to run
        fractional = group["ilp_solved"] == 1 if role == "ilp" else group["integral"] == 0
        row.update(
            parts_scored_per_sent=group["parts_scored"].mean(),
            parts_scored_rel_bf_pct=scored,
            parts_added_per_sent=group["parts_added"].mean(),
            parts_added_rel_bf_pct=added,
            parts_compared=compared,
            objective_rel_bf_pct=objective,
            objective_compared=objectives,
            objective_differs=differs,
            objective_max_rel_diff=largest,
            objective_max_rel_diff_bf_paper=largest_paper,
            fractional=int(fractional.sum()),
            uas_fractional=uas(group[fractional], totals),
        )
        if role == "ilp":
            row["mip_solved"] = int((group["ilp_solved"] == 1).sum())
        else:
            row["integer_pct"] = _integer_pct(group)
    row.update(_paper_table1(dataset, role))
    return row


def load_peer(path: str | Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The UDPipe peer's per-sentence records and its summary (the .json beside them)."""
    path = Path(path)
    records = read_parquet(path)
    records["instance_id"] = records["instance_id"].astype(str)
    return records, read_json(path.with_suffix(".json"))


def table1(
    records: pd.DataFrame,
    settings: Mapping[str, Any],
    peers: Mapping[str, str | Path] | None = None,
    noise: pd.DataFrame | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Table 1 per dataset: BF and PPC (speed, parts scored and added, objective, % integer, UAS, relative to
    BF), the MST and ILP variants and the UDPipe peer beside, the paper's numbers in the paper_* columns. Each
    speed relative to a BF has its 95% interval (:func:`speed_intervals`, with the ``noise`` jobs' records)."""
    roles = variant_roles(settings)
    peers = peers or {}
    references = {"speed_rel_bf_pct": roles["bf"], "speed_rel_bf_paper_pct": roles["bf_paper"]}
    rows = []
    for dataset in settings["datasets"]:
        at = records[records["dataset"] == dataset]
        peer, summary = load_peer(peers[dataset]) if dataset in peers else (None, None)
        totals = scored_words(at, peer)
        bf, bf_paper = _variant(at, roles["bf"]), _variant(at, roles["bf_paper"])
        for role in SYSTEMS:
            group = _variant(at, roles[role])
            if not group.empty:
                row = _table1_row(dataset, role, roles[role], group, bf, totals, bf_paper)
                rows.append({**row, **speed_intervals(at, noise, seed, dataset, roles[role], references)})
        if peer is not None:
            speed = summary["sentences_per_s"]
            relative = {}
            for key, reference in (("speed_rel_bf", bf), ("speed_rel_bf_paper", bf_paper)):
                relative[f"{key}_pct"], relative[f"{key}_is"] = censored_ratio(speed, False, reference)
            rows.append(
                {
                    "dataset": dataset,
                    "paper_language": PAPER_LANGUAGE.get(dataset),
                    "system": PEER,
                    "variant": PEER_VARIANT,
                    "sentences": len(peer),
                    "timing": ratio_timing(
                        CALL, *(timing_mode(ref) for ref in (bf, bf_paper) if not ref.empty)
                    ),
                    "seconds": summary["parse_seconds"],
                    "sent_per_s": speed,
                    **relative,
                    **_peer_intervals(at, peer, seed, dataset, references),
                    "uas": uas(peer, totals),
                }
            )
    return pd.DataFrame(rows, columns=TABLE1_COLUMNS)


def _peer_intervals(
    records: pd.DataFrame, peer: pd.DataFrame, seed: int, dataset: str, references: Mapping[str, str | None]
) -> dict[str, float]:
    """The peer's speed intervals against the BFs (:func:`speed_intervals`) from its per-sentence parser seconds,
    over sentence sampling only: the noise jobs do not parse with UDPipe, so no run-to-run term is measured for
    it. NaN where its records have no seconds (an older run's: one total only)."""
    if "seconds" not in peer:
        return {f"{column}_{end}": float("nan") for column in references for end in ("lo", "hi")}
    own = peer.assign(dataset=dataset, variant=PEER_VARIANT, stats="{}")
    joined = pd.concat([records, own[["dataset", "variant", "instance_id", "seconds", "stats"]]])
    return speed_intervals(joined, None, seed, dataset, PEER_VARIANT, references)


#: Issue 32's target for the grandparent model: its LP's UAS at least the MST's, and this % of LPs integral.
INTEGRAL_TARGET = 95.0


def model_notes(table: pd.DataFrame, histories: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Per dataset of Table 1, whether the grandparent LP (BF's row) reaches the MST's UAS and
    :data:`INTEGRAL_TARGET` % integral LPs, and where not, the measured causes: the fractional LPs left once the
    cycle inequalities are added (the BF + cycle cuts row), and the grandparent model's dev UAS against the first
    order's (the training table)."""
    notes = []
    for dataset, rows in table.groupby("dataset", sort=False):
        by = {row["system"]: row for _, row in rows.iterrows()}
        lp, mst = by.get(SYSTEMS["bf"]), by.get(SYSTEMS["mst"])
        if lp is None or mst is None:
            continue
        uas_ok, integral_ok = lp["uas"] >= mst["uas"], lp["integer_pct"] >= INTEGRAL_TARGET
        text = (
            f"{dataset}: the grandparent LP (BF) has UAS {lp['uas']:.2f} against the MST's {mst['uas']:.2f} and is "
            f"integral on {lp['integer_pct']:.1f}% of sentences (target: at least the MST's UAS and "
            f"{INTEGRAL_TARGET:g}%): " + ("met." if uas_ok and integral_ok else "not met.")
        )
        cycles = by.get(SYSTEMS["bf_cycles"])
        if not integral_ok and cycles is not None:
            text += (
                f" Fractional: {int(lp['fractional'])} sentences; with every violated cycle inequality added, "
                f"{int(cycles['fractional'])} ({cycles['integer_pct']:.1f}% integral, UAS {cycles['uas']:.2f}): "
                "the rest of the gap is the fractional cycles the single-commodity flow lets these scores take."
            )
        history = histories.get(dataset)
        if not uas_ok and history is not None:
            grand = history["grandparent"]
            kept = next(row for row in grand["epochs"] if row["epoch"] == grand["best_epoch"])
            text += (
                f" On dev the kept grandparent epoch has UAS {kept['dev_uas']:.2f} against the first-order "
                f"model's {history['first_order']['dev_uas']:.2f} (training table): the grandparent templates add "
                "little to the head classifier's arcs."
            )
        notes.append(text)
    return notes


def _paper_table2(dataset: str, constraints: str) -> dict[str, Any]:
    language = PAPER_LANGUAGE.get(dataset)
    table = paper_value("ppc.table2_polytopes")
    for row in table.get(language, []) if language else []:
        if row["constraints"] == constraints:
            return {
                "paper_speed_rel_pct": row.get("speed_rel_pct"),
                "paper_integer_pct": row.get("integer_pct"),
                "paper_uas": row.get("uas_pct"),
            }
    return {}


TABLE2_COLUMNS = [
    "dataset",
    "paper_language",
    "polytope",
    "variant",
    "sentences",
    "timeouts",
    "errors",
    "partial",
    "timing",
    "seconds",
    "sent_per_s",
    "speed_rel_arcgp_pct",
    "speed_rel_arcgp_pct_lo",
    "speed_rel_arcgp_pct_hi",
    "lp_iterations_per_sent",
    "integer_pct",
    "fractional",
    "uas",
    "uas_fractional",
    "objective_rel_all_pct",
    "objective_compared",
    "objective_differs",
    "paper_speed_rel_pct",
    "paper_integer_pct",
    "paper_uas",
]


def table2(
    records: pd.DataFrame, settings: Mapping[str, Any], noise: pd.DataFrame | None = None, seed: int = 0
) -> pd.DataFrame:
    """Table 2 per dataset: the three polytopes solved in full (no pricing): speed relative to ArcGP+GPArc with
    its 95% interval (:func:`speed_intervals`), % integer, UAS, and the LP objective relative to the tightest
    polytope (all four constraint families)."""
    roles = variant_roles(settings)
    rows = []
    for dataset in settings["datasets"]:
        at = records[records["dataset"] == dataset]
        totals = scored_words(at)
        base, tightest = _variant(at, roles["arcgp"]), _variant(at, roles["bf"])
        for role, (label, constraints) in POLYTOPES.items():
            group = _variant(at, roles[role])
            if group.empty:
                continue
            speed = _speed(group)
            objective, compared, differs, _ = compare_objectives(group, tightest)
            rows.append(
                {
                    "dataset": dataset,
                    "paper_language": PAPER_LANGUAGE.get(dataset),
                    "polytope": label,
                    "variant": roles[role],
                    "sentences": len(group),
                    **coverage(group),
                    "timing": ratio_timing(timing_mode(group), timing_mode(base) if not base.empty else ""),
                    "seconds": group["seconds"].sum(),
                    "sent_per_s": speed,
                    "speed_rel_arcgp_pct": 100.0 * speed / _speed(base) if not base.empty else float("nan"),
                    **speed_intervals(
                        at, noise, seed, dataset, roles[role], {"speed_rel_arcgp_pct": roles["arcgp"]}
                    ),
                    "lp_iterations_per_sent": group["lp_iterations"].mean(),
                    "integer_pct": _integer_pct(group),
                    "fractional": int((group["integral"] == 0).sum()),
                    "uas": uas(group, totals),
                    "uas_fractional": uas(group[group["integral"] == 0], totals),
                    "objective_rel_all_pct": objective,
                    "objective_compared": compared,
                    "objective_differs": differs,
                    **_paper_table2(dataset, constraints),
                }
            )
    return pd.DataFrame(rows, columns=TABLE2_COLUMNS)


def statistics(records: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
    """Parse, price and cut per dataset: LP solves (iterations of Algorithm 1), simplex iterations, columns
    priced, cuts, parts scored and added per sentence, % certified, and BF's LP size beside."""
    roles = variant_roles(settings)
    rows = []
    for dataset, role in ((d, r) for d in settings["datasets"] for r in ("ppc", "ppc_paper")):
        at = records[records["dataset"] == dataset]
        group, bf = _variant(at, roles[role]), _variant(at, roles["bf"])
        if group.empty:
            continue
        rows.append(
            {
                "dataset": dataset,
                "variant": roles[role],
                "sentences": len(group),
                **coverage(group, timed=False),
                "certified_pct": 100.0 * _count(group, "optimal") / len(group),
                "words_mean": group["words"].mean(),
                "words_max": group["words"].max(),
                "lp_solves_mean": group["lp_solves"].mean(),
                "lp_solves_median": group["lp_solves"].median(),
                "lp_solves_max": group["lp_solves"].max(),
                "lp_iterations_mean": group["lp_iterations"].mean(),
                "columns_priced_mean": group["columns_priced"].mean(),
                "cuts_mean": group["cuts"].mean(),
                "parts_scored_mean": group["parts_scored"].mean(),
                "parts_added_mean": group["parts_added"].mean(),
                "bf_parts_mean": bf["parts_added"].mean() if not bf.empty else float("nan"),
                "bf_parts_max": bf["parts_added"].max() if not bf.empty else float("nan"),
                "bf_lp_iterations_mean": bf["lp_iterations"].mean() if not bf.empty else float("nan"),
                "bf_certified_pct": 100.0 * _count(bf, "optimal") / len(bf) if not bf.empty else float("nan"),
                # where the time goes: % of the summed decode seconds per phase (the rest: scoring the arcs,
                # reading the solution, the harness)
                **{
                    f"{phase}_pct": 100.0 * group[f"seconds_{phase}"].sum() / group["seconds"].sum()
                    if group["seconds"].sum() > 0
                    else float("nan")
                    for phase in PHASES
                },
            }
        )
    return pd.DataFrame(rows)


TRAINING_COLUMNS = ["dataset", "model", "epoch", "dev_uas", "dev_integral_pct", "kept", "seconds"]


def training_table(histories: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Per dataset (its training history, results/models/ppc/<dataset>/history.json): the first-order model's
    dev UAS (its kept epoch), then every epoch of the grandparent parser with its dev UAS and % of integral dev LPs
    (decoded over every arc), the kept one marked; seconds: each model's training."""
    rows = []
    for dataset, history in histories.items():
        first, grand = history["first_order"], history["grandparent"]
        rows.append(
            {
                "dataset": dataset,
                "model": "first order (head classifier)",
                "epoch": first["best_epoch"],
                "dev_uas": first.get("dev_uas"),
                "kept": True,
                "seconds": first.get("seconds"),
            }
        )
        for row in grand["epochs"]:
            rows.append(
                {
                    "dataset": dataset,
                    "model": "grandparent",
                    "epoch": row["epoch"],
                    "dev_uas": row.get("dev_uas"),
                    "dev_integral_pct": row.get("dev_integral_pct"),
                    "kept": row["epoch"] == grand["best_epoch"],
                    "seconds": grand.get("seconds") if row["epoch"] == grand["best_epoch"] else None,
                }
            )
    return pd.DataFrame(rows, columns=TRAINING_COLUMNS)


def audit_table(records: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
    """The audit of parse, price and cut per dataset: after its solve, every grandparent part scored and section
    4's conditions checked at its final duals (decoders.ppc.decoders.decode_ppc_audit)."""
    roles = variant_roles(settings)
    rows = []
    for dataset in settings["datasets"]:
        group = _variant(records[records["dataset"] == dataset], roles["audit"])
        if group.empty:
            continue
        audited = group.dropna(subset=["audit_max_reduced_cost"])
        # the decoder's tolerance is AUDIT_TOLERANCE x (1 + the largest |score|)
        relative = audited["audit_max_reduced_cost"] / (audited["audit_tolerance"] / AUDIT_TOLERANCE)
        rows.append(
            {
                "dataset": dataset,
                "variant": roles["audit"],
                "sentences": len(group),
                **coverage(group, timed=False),
                "audited": len(audited),
                "passed": int((audited["audit_passed"] == 1).sum()),
                "parts_checked": audited["audit_parts"].sum(),
                "max_reduced_cost_rel": relative.max() if len(audited) else float("nan"),
                "positive_reduced_costs": int((relative > AUDIT_TOLERANCE).sum()),
                "max_arcgp_violation": audited["audit_max_arcgp_violation"].max()
                if len(audited)
                else float("nan"),
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "dataset", "variant", "sentences", "errors", "timeouts", "partial", "audited", "passed",
            "parts_checked", "max_reduced_cost_rel", "positive_reduced_costs", "max_arcgp_violation",
        ],
    )  # fmt: skip


def binned_medians(
    words: pd.Series, values: pd.Series, width: int = BIN_WIDTH, *, log_ratio: float | None = None
) -> pd.DataFrame:
    """Median of ``values`` per length bin [k*width + 1, (k+1)*width] (or, with ``log_ratio``, per bin
    [r^k, r^(k+1)) of that ratio r, for log axes), at the bin's mean length; bins of a single sentence included."""
    frame = pd.DataFrame({"words": words.to_numpy(float), "value": values.to_numpy(float)}).dropna()
    frame = frame[frame["words"] > 0]
    if frame.empty:
        return pd.DataFrame({"words": [], "value": [], "sentences": []})
    if log_ratio is None:
        bins = ((frame["words"] - 1) // width).astype(int)
    else:
        bins = np.floor(np.log(frame["words"]) / np.log(log_ratio) + 1e-9).astype(int)
    grouped = frame.groupby(bins)
    return pd.DataFrame(
        {
            "words": grouped["words"].mean(),
            "value": grouped["value"].median(),
            "sentences": grouped.size(),
        }
    ).reset_index(drop=True)


def _datasets_with(
    records: pd.DataFrame, settings: Mapping[str, Any], variants: list[str | None]
) -> list[str]:
    present = set(records.loc[records["variant"].isin([v for v in variants if v]), "dataset"])
    return [d for d in settings["datasets"] if d in present]


def time_vs_length(records: pd.DataFrame, settings: Mapping[str, Any], path: str | Path) -> None:
    """Seconds per sentence against its length for BF (both row sets) and PPC (ours and the paper's), one panel
    per dataset (log y): every sentence
    as a dot (timeouts as crosses, at their recorded seconds) and the median per length bin as a line."""
    roles = variant_roles(settings)
    shown = [
        ("bf_paper", "BF (paper's rows)", "tab:orange"),
        ("bf", "BF (lean rows)", "tab:red"),
        ("ppc_paper", "PPC (paper's)", "tab:cyan"),
        ("ppc", "PPC", "tab:blue"),
    ]
    datasets = _datasets_with(records, settings, [roles[r] for r, _, _ in shown])
    panels = max(len(datasets), 1)
    fig = Figure(figsize=(4.2 * panels + 2.0, 4.0))
    axes = fig.subplots(1, panels, squeeze=False, sharey=True)[0]
    for ax, dataset in zip(axes, datasets, strict=False):
        at = records[records["dataset"] == dataset]
        for role, label, colour in shown:
            group = _variant(at, roles[role])
            if group.empty:
                continue
            seconds = group["seconds"].clip(lower=1e-6)
            done = group["status"] != "timeout"
            ax.scatter(group.loc[done, "words"], seconds[done], s=5, alpha=0.25, color=colour, lw=0)
            if (~done).any():
                ax.scatter(
                    group.loc[~done, "words"],
                    seconds[~done],
                    s=18,
                    marker="x",
                    color=colour,
                    label=f"{label}: timeout ({int((~done).sum())})",
                )
            medians = binned_medians(group["words"], seconds)
            ax.plot(medians["words"], medians["value"], color=colour, lw=1.8, label=f"{label}: median")
        ax.set_yscale("log")
        ax.set_title(
            f"{dataset} ({PAPER_LANGUAGE.get(dataset, '')})" if dataset in PAPER_LANGUAGE else dataset
        )
        ax.set_xlabel("sentence length (words)")
        ax.grid(alpha=0.3, which="both", lw=0.5)
    axes[0].set_ylabel("seconds per sentence (log)")
    handles, labels = _unique_legend(axes)
    if handles:  # outside, right of the last panel: never over a dot
        axes[-1].legend(handles, labels, loc="upper left", bbox_to_anchor=(1.03, 1.0), fontsize="small")
    save_figure(fig, path)


def _unique_legend(axes) -> tuple[list, list]:
    handles, labels = [], []
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    return handles, labels


def growth_exponent(words: pd.Series, values: pd.Series, *, min_words: int = 5) -> float:
    """The slope of log(value) against log(words) (least squares) over sentences of at least ``min_words``."""
    frame = pd.DataFrame({"w": words.to_numpy(float), "v": values.to_numpy(float)}).dropna()
    frame = frame[(frame["w"] >= min_words) & (frame["v"] > 0)]
    if frame["w"].nunique() < 2:
        return float("nan")
    slope, _ = np.polyfit(np.log(frame["w"]), np.log(frame["v"]), 1)
    return float(slope)


def bf_growth(records: pd.DataFrame, settings: Mapping[str, Any], path: str | Path) -> None:
    """How the full LP grows with the sentence: BF's grandparent parts (left) and seconds (right) against
    length, log-log, one colour per dataset, with the fitted growth exponent in the legend."""
    roles = variant_roles(settings)
    bf = _variant(records, roles["bf"])
    datasets = _datasets_with(records, settings, [roles["bf"]])
    fig = Figure(figsize=(10.0, 4.4))
    parts_ax, seconds_ax = fig.subplots(1, 2)
    colours = ["tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown"]
    longest = 1.0
    for i, dataset in enumerate(datasets):
        group = bf[bf["dataset"] == dataset]
        colour = colours[i % len(colours)]
        longest = max(longest, float(group["words"].max()))
        for ax, column in ((parts_ax, "parts_added"), (seconds_ax, "seconds")):
            values = group[column].where(group[column] > 0)
            exponent = growth_exponent(group["words"], values)
            ax.scatter(group["words"], values, s=5, alpha=0.25, color=colour, lw=0)
            medians = binned_medians(group["words"], values, log_ratio=GROWTH_BIN_RATIO)
            ax.plot(
                medians["words"],
                medians["value"],
                color=colour,
                lw=1.8,
                label=f"{dataset}: ~n^{exponent:.2f}",
            )
    n = np.arange(2, int(longest) + 1, dtype=float)
    if len(n):
        parts_ax.plot(n, n * (n - 1) ** 2, color="black", lw=1, ls="--", label="n(n-1)^2: every part")
    parts_ax.set_ylabel("grandparent parts in BF's LP")
    seconds_ax.set_ylabel("BF seconds per sentence")
    for ax in (parts_ax, seconds_ax):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("sentence length n (words, log)")
        ax.grid(alpha=0.3, which="both", lw=0.5)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="upper left", fontsize="small")
    parts_ax.set_title("BF: LP size")
    seconds_ax.set_title("BF: time")
    save_figure(fig, path)


def seeds_table(
    records: pd.DataFrame,
    settings: Mapping[str, Any],
    *,
    run_seed: int,
    histories: Mapping[str, Mapping[str, Any]],
) -> pd.DataFrame:
    """The seed variance of trained models (config/ppc.yaml ``seeds``): per dataset and variant, the test UAS of
    the parsers trained with each seed (``seed_<n>`` columns; instance set ``<dataset>.seed<n>``, the run's seed
    the dataset's own) and their spread; then each variant's difference to the first variant listed, seed by
    seed; a variant's row has its errors/timeouts over every seed's sentences. ``histories`` (instance set ->
    training history) give the training minutes of each seed (both parsers)."""
    spec = settings.get("seeds")
    if not spec:
        return pd.DataFrame()
    rows = []
    for dataset in spec["datasets"]:
        sets = {seed: seeded_name(dataset, seed, run_seed) for seed in spec["seeds"]}
        seconds = [
            histories[name]["first_order"]["seconds"] + histories[name]["grandparent"]["seconds"]
            for name in sets.values()
            if name in histories
        ]
        minutes = sum(seconds) / len(seconds) / 60.0 if seconds else float("nan")
        values = {
            variant: {
                seed: uas(_variant(records[records["dataset"] == name], variant),
                          scored_words(records[records["dataset"] == name]))
                for seed, name in sets.items()
            }
            for variant in spec["variants"]
        }  # fmt: skip
        of_sets = records[records["dataset"].isin(list(sets.values()))]
        failed = {v: failures_text(of_sets[of_sets["variant"] == v]) for v in spec["variants"]}
        rows += [
            {**row, FAILED: failed.get(row["variant"], "")}
            for row in seed_rows({"dataset": dataset}, "variant", values, dict.fromkeys(values, minutes))
        ]
    return pd.DataFrame(rows)


def seed_notes(seeds: pd.DataFrame) -> list[str]:
    """What the seed spread says of the single-seed claims: per difference row, its range over seeds and whether
    its sign holds on every seed (Table 1's UAS difference between the grandparent LP and the MST is one draw)."""
    if seeds.empty:
        return ["not measured: config/ppc.yaml has no `seeds` entry"]
    lines = []
    for row in seeds[seeds["variant"].str.contains(" - ", regex=False)].itertuples():
        values = [getattr(row, column) for column in seeds.columns if column.startswith("seed_")]
        known = [value for value in values if np.isfinite(value)]
        steady = known and (all(v > 0 for v in known) or all(v < 0 for v in known))
        lines.append(
            f"{row.dataset}: {row.variant} over {row.seeds} seeds: mean {row.mean:+.2f} UAS points (sd {row.sd:.2f}, "
            f"from {min(known, default=float('nan')):+.2f} to {max(known, default=float('nan')):+.2f}); "
            + ("its sign holds on every seed." if steady else "its sign is not the same on every seed.")
        )
    return lines


def _write_seeds(
    records: pd.DataFrame,
    settings: Mapping[str, Any],
    seed_runs: Iterable[str],
    seed_histories: Iterable[str],
    run_seed: int | None,
    tables: Path,
) -> None:
    """The seeds table from the run's records (its own seed) and the seed study's."""
    seed_runs = list(seed_runs)
    both = pd.concat([records, load_runs(seed_runs)], ignore_index=True) if seed_runs else records
    histories = {Path(p).parent.name: read_json(p) for p in seed_histories}
    seeds = (
        seeds_table(both, settings, run_seed=run_seed, histories=histories)
        if run_seed is not None
        else pd.DataFrame()
    )
    write_table(
        rounded(seeds),
        tables / "seeds",
        title="ppc: seed variance of trained models (test UAS)",
        caption=caption("ppc", "seeds"),
        notes=seed_notes(seeds),
    )


#: The AD3 table's systems: role -> label (AD3's two rows, the LP AD3's equals, and ours beside them).
AD3_SYSTEMS = {
    "ad3_lp": "AD3 LP (peer)",
    "ad3_exact": "AD3 branch and bound (peer)",
    "arcgp_cycles": "BF ArcGP+GPArc + cycle cuts (AD3's LP, ours)",
    "ppc": "PPC",
    "ilp": "ILP (MIP if fractional)",
}
#: The LPs AD3's is set against sentence by sentence (role -> label): every LP the run solves.
AD3_LPS = {
    "arcgp_cycles": "ArcGP+GPArc + cycle cuts",
    "arcgp": "ArcGP+GPArc",
    "onegp": "OneGP+NoGP",
    "bf": "all (BF, lean rows)",
    "bf_paper": "all (BF, paper's rows)",
    "bf_cycles": "all + cycle cuts",
    "ppc": "all (PPC)",
    "ppc_paper": "all (PPC, paper's pricing)",
}
AD3_COLUMNS = [
    "dataset",
    "system",
    "variant",
    "sentences",
    "errors",
    "timeouts",
    "partial",
    "error",
    "timing",
    "seconds_per_sent",
    "build_seconds_per_sent",
    "sent_per_s",
    "speed_rel_ppc_pct",
    "speed_rel_ppc_pct_lo",
    "speed_rel_ppc_pct_hi",
    "speed_rel_ppc_is",
    "speed_rel_ilp_pct",
    "speed_rel_ilp_pct_lo",
    "speed_rel_ilp_pct_hi",
    "speed_rel_ilp_is",
    "optimal",
    "lp_compared",
    "lp_differs",
    "lp_max_rel_diff",
    "integer_pct",
    "iteration_caps",
    "best_tree_compared",
    "best_tree_pct",
    "uas",
]
AD3_LP_COLUMNS = [
    "dataset",
    "lp",
    "variant",
    "compared",
    "ad3_tighter",
    "equal",
    "ad3_looser",
    "median_rel_diff",
    "max_tighter_rel_diff",
    "max_looser_rel_diff",
]


def _first_error(group: pd.DataFrame) -> str:
    """The first error message of ``group``'s records (e.g. "AD3 not installed: <reason>"), "" when none."""
    for status, stats in zip(group["status"], group["stats"], strict=True):
        if status == "error":
            message = (json.loads(stats) if isinstance(stats, str) and stats else {}).get("error", "")
            return str(message).splitlines()[0][:300] if message else "error"
    return ""


def _certified_pairs(group: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    """The sentences both certified (status ``optimal``, finite objectives), with ``objective`` and
    ``objective_ref`` and the signed relative difference ``diff`` = (group - reference) / the larger magnitude
    (0 when both are 0)."""
    columns = ["instance_id", "objective", "status"]
    both = group[columns].merge(reference[columns], on="instance_id", suffixes=("", "_ref"))
    both = both[(both["status"] == "optimal") & (both["status_ref"] == "optimal")]
    both = both[np.isfinite(both["objective"]) & np.isfinite(both["objective_ref"])].copy()
    larger = np.maximum(np.abs(both["objective"]), np.abs(both["objective_ref"])).to_numpy(float)
    delta = (both["objective"] - both["objective_ref"]).to_numpy(float)
    both["diff"] = np.where(larger > 0, delta / np.where(larger > 0, larger, 1.0), 0.0)
    return both


def _best_tree(group: pd.DataFrame, ilp: pd.DataFrame) -> tuple[int, float]:
    """(sentences compared, % of them whose tree scores the ILP's certified optimum within
    :data:`OBJECTIVE_RTOL`): over the sentences the ILP certified and ``group`` finished with a tree."""
    columns = ["instance_id", "objective", "status"]
    both = group[columns].merge(ilp[columns], on="instance_id", suffixes=("", "_ref"))
    both = both[~both["status"].isin(["timeout", "error"]) & (both["status_ref"] == "optimal")]
    both = both[np.isfinite(both["objective"]) & np.isfinite(both["objective_ref"])]
    if both.empty:
        return 0, float("nan")
    larger = np.maximum(np.abs(both["objective"]), np.abs(both["objective_ref"]))
    same = (both["objective"] - both["objective_ref"]).abs() <= OBJECTIVE_RTOL * np.maximum(larger, 1.0)
    return len(both), 100.0 * float(same.mean())


def ad3_versions(records: pd.DataFrame) -> str:
    """The AD3 versions its records name (stats ``ad3_version``), "none recorded" without any."""
    found = set()
    for stats in records.loc[records["variant"].notna(), "stats"]:
        if isinstance(stats, str) and "ad3_version" in stats:
            found.add(str(json.loads(stats)["ad3_version"]))
    return ", ".join(sorted(found)) or "none recorded"


def ad3_table(
    records: pd.DataFrame, settings: Mapping[str, Any], noise: pd.DataFrame | None = None, seed: int = 0
) -> pd.DataFrame:
    """The peer AD3 per dataset: its LP and its branch and bound beside the LP AD3's equals (``full-lp`` on
    ArcGP+GPArc with cycle cuts), our PPC and the ILP: seconds per sentence (the factor graph's construction and
    the parts' scoring inside; ``build_seconds_per_sent`` the construction alone), speed relative to PPC and to
    the ILP with 95% intervals (:func:`speed_intervals`; 100 x the variant's speed over the reference's), LP
    values against the LP they equal (sentences both certified; ``lp_differs``: further apart than
    :data:`OBJECTIVE_RTOL`), % integral, AD3's iteration caps hit, % of trees scoring the ILP's certified
    optimum, UAS. A variant whose records are errors (AD3 not installed) has its first error in ``error``."""
    roles = variant_roles(settings)
    if roles["ad3_lp"] is None and roles["ad3_exact"] is None:
        return pd.DataFrame(columns=AD3_COLUMNS)
    references = {"speed_rel_ppc_pct": roles["ppc"], "speed_rel_ilp_pct": roles["ilp"]}
    rows = []
    for dataset in settings["datasets"]:
        at = records[records["dataset"] == dataset]
        totals = scored_words(at)
        equal_lp, ilp = _variant(at, roles["arcgp_cycles"]), _variant(at, roles["ilp"])
        for role, label in AD3_SYSTEMS.items():
            group = _variant(at, roles[role])
            if group.empty:
                continue
            speed = _speed(group)
            timed_out = _count(group, "timeout") > 0
            failed_all = _count(group, "error") == len(group)
            row: dict[str, Any] = {
                "dataset": dataset,
                "system": label,
                "variant": roles[role],
                "sentences": len(group),
                **coverage(group),
                "error": _first_error(group),
                "seconds_per_sent": group["seconds"].mean(),
                "build_seconds_per_sent": group["seconds_build"].mean(),
                "sent_per_s": speed,
                "optimal": _count(group, "optimal"),
                "uas": uas(group, totals),
            }
            if not failed_all:
                for column, reference in references.items():
                    ratio, kind = censored_ratio(speed, timed_out, _variant(at, reference))
                    row[column] = ratio if reference not in (None, roles[role]) else float("nan")
                    row[column.replace("_pct", "_is")] = kind if reference != roles[role] else ""
                row.update(speed_intervals(at, noise, seed, dataset, roles[role], references))
            if role in ("ad3_lp", "arcgp_cycles", "ppc"):
                row["integer_pct"] = _integer_pct(group)
            if role == "ad3_lp" and not equal_lp.empty:
                pairs = _certified_pairs(group, equal_lp)
                row.update(
                    lp_compared=len(pairs),
                    lp_differs=int((pairs["diff"].abs() > OBJECTIVE_RTOL).sum()),
                    lp_max_rel_diff=float(pairs["diff"].abs().max()) if len(pairs) else float("nan"),
                )
            if role in ("ad3_lp", "ad3_exact"):
                row["iteration_caps"] = int((group["iteration_cap"] == 1).sum())
            if role in ("ad3_exact", "ilp") and not ilp.empty:
                row["best_tree_compared"], row["best_tree_pct"] = _best_tree(group, ilp)
            rows.append(row)
    return pd.DataFrame(rows, columns=AD3_COLUMNS)


def ad3_lp_table(records: pd.DataFrame, settings: Mapping[str, Any]) -> pd.DataFrame:
    """AD3's LP against every LP the run solves, sentence by sentence (both certified): how often AD3's optimum
    is below (tighter), equal to (within :data:`OBJECTIVE_RTOL`) or above (looser) the other's, the median signed
    relative difference (AD3's minus theirs, over the larger magnitude) and the largest each way."""
    roles = variant_roles(settings)
    if roles["ad3_lp"] is None:
        return pd.DataFrame(columns=AD3_LP_COLUMNS)
    rows = []
    for dataset in settings["datasets"]:
        at = records[records["dataset"] == dataset]
        ours = _variant(at, roles["ad3_lp"])
        if ours.empty:
            continue
        for role, label in AD3_LPS.items():
            theirs = _variant(at, roles[role])
            if theirs.empty:
                continue
            diff = _certified_pairs(ours, theirs)["diff"]
            tighter, looser = diff[diff < -OBJECTIVE_RTOL], diff[diff > OBJECTIVE_RTOL]
            rows.append(
                {
                    "dataset": dataset,
                    "lp": label,
                    "variant": roles[role],
                    "compared": len(diff),
                    "ad3_tighter": len(tighter),
                    "equal": int((diff.abs() <= OBJECTIVE_RTOL).sum()),
                    "ad3_looser": len(looser),
                    "median_rel_diff": float(diff.median()) if len(diff) else float("nan"),
                    "max_tighter_rel_diff": float(-tighter.min()) if len(tighter) else 0.0,
                    "max_looser_rel_diff": float(looser.max()) if len(looser) else 0.0,
                }
            )
    return pd.DataFrame(rows, columns=AD3_LP_COLUMNS)


def write_ppc_outputs(
    run_paths: Iterable[str],
    settings: Mapping[str, Any],
    *,
    peers: Iterable[str],
    histories: Iterable[str] = (),
    noise_paths: Iterable[str] = (),
    seed: int = 0,
    tables: str | Path,
    figures: str | Path,
    seed_runs: Iterable[str] = (),
    seed_histories: Iterable[str] = (),
    run_seed: int | None = None,
) -> None:
    """Every ppc table (Tables 1 and 2, PPC statistics, the audit, training, seed variance) and figure (time vs
    length, BF's growth); ``histories``: the training histories, results/models/ppc/<dataset>/history.json; the
    speed ratios' intervals from the noise jobs' retimings (``noise_paths``) and bootstrap seed ``seed``;
    ``seed_runs`` and ``seed_histories`` the seed study's runs and histories, ``run_seed`` the run's seed."""
    records = load_runs(run_paths)
    noise = load_noise(noise_paths)
    _write_seeds(records, settings, seed_runs, seed_histories, run_seed, Path(tables))
    trained = {Path(p).parent.name: read_json(p) for p in histories}
    tables, figures = Path(tables), Path(figures)
    peer_files = {Path(p).parent.name: Path(p) for p in peers}
    limit = (settings.get("harness") or {}).get("time_limit")
    own = {
        name: spec["time_limit"]
        for name, spec in (settings.get("variants") or {}).items()
        if spec.get("time_limit") is not None
    }
    limits = f"{limit} s per sentence" + "".join(
        f"; {name}: {value} s" for name, value in sorted(own.items())
    )
    timeouts = f"Time limit {limits}: a timeout counts at its recorded seconds, about the limit."
    differ = (
        f"Two objectives differ when more than {OBJECTIVE_RTOL:g} apart, relative to the larger magnitude."
    )
    notes = [timeouts, differ, cross_check_note(cross_check_counts(records, CERTIFIED), CERTIFIED)]
    ours = variant_roles(settings)["ppc"]
    options = ((settings.get("variants") or {}).get(ours) or {}).get("params") or {}
    if options:
        notes.append(
            f"PPC's options (variant `{ours}`): {', '.join(f'{k}={v}' for k, v in options.items())}."
        )
    spread = interval_note(settings, seed, noise)
    first = table1(records, settings, peer_files, noise, seed)
    write_table(
        rounded(first),
        tables / "table1",
        title="ppc: Table 1 (parse, price and cut vs brute force, BF = 100%)",
        caption=caption("ppc", "table1"),
        notes=[*notes, spread, *model_notes(first, trained)],
    )
    write_table(
        rounded(table2(records, settings, noise, seed)),
        tables / "table2",
        title="ppc: Table 2 (polytopes solved in full, ArcGP+GPArc = 100%)",
        caption=caption("ppc", "table2"),
        notes=[timeouts, differ, spread],
    )
    write_table(
        audit_table(records, settings),
        tables / "audit",
        title="ppc: audit of parse, price and cut over every grandparent part",
        caption=caption("ppc", "audit"),
        notes=[f"Tolerance: {AUDIT_TOLERANCE:g}, on the relative reduced cost and on the ArcGP violation."],
    )
    write_table(
        rounded(statistics(records, settings)),
        tables / "statistics",
        title="ppc: parse, price and cut per sentence",
        caption=caption("ppc", "statistics"),
    )
    write_table(
        rounded(training_table(trained)),
        tables / "training",
        title="ppc: training (dev UAS and % integral dev LPs per epoch)",
        caption=caption("ppc", "training"),
        notes=[f"epoch_tolerance: {settings.get('epoch_tolerance', 0.0)} dev UAS points."],
    )
    ad3_notes = [
        timeouts,
        "AD3's seconds include its factor graph's construction (build_seconds_per_sent) and the parts' scoring, "
        "as every row's include the scoring; PPC and the ILP score only the parts they price in.",
        f"AD3 version: {ad3_versions(records)}; install: python -m decoders.ppc.ad3_install.",
        spread,
    ]
    write_table(
        rounded(ad3_table(records, settings, noise, seed)),
        tables / "ad3",
        title="ppc: the peer AD3 (its LP and branch and bound) beside PPC and the ILP",
        caption=caption("ppc", "ad3"),
        notes=ad3_notes,
    )
    write_table(
        rounded(ad3_lp_table(records, settings)),
        tables / "ad3_lps",
        title="ppc: AD3's LP against every LP solved, per sentence",
        caption=caption("ppc", "ad3_lps"),
        notes=[differ],
    )
    time_vs_length(records, settings, figures / "time_vs_length.png")
    bf_growth(records, settings, figures / "bf_growth.png")
