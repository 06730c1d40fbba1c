"""Glue for the thin scripts under workflow/scripts: logging into the job's log file, one-line user errors, and
the checksums that let a job tell a complete input from a damaged one."""

from __future__ import annotations

import atexit
import errno
import glob
import inspect
import logging
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from decoders.content import (
    TABLE_RULES,
    finish_job_record,
    job_record,
    job_record_path,
    replay_record,
    write_job_records,
)
from decoders.errors import CorruptedFileError, DecodersError
from decoders.io import checksum_mismatch, checksum_path, move_aside, record_checksum


def start_script(snakemake: Any) -> logging.Logger:
    """Send stderr (warnings, tracebacks, progress bars) and logging to the job's log file; return a logger.

    An error the user can cause and fix (:class:`decoders.errors.DecodersError`: a corpus file with the wrong
    hash or format, a bad configuration value, a download that failed) ends the job with its message as one
    line, which ``show-failed-logs`` prints, instead of a traceback through the package; any other exception is
    a bug and keeps its traceback.

    Before the job reads anything, every input that an earlier job recorded a checksum for is checked against it
    (:func:`check_inputs`); when the job ends without an error, each of its outputs gets its own checksum. A job
    killed before its end records none, and Snakemake reruns it (its outputs are incomplete).
    """
    if snakemake.log:
        sys.stderr = open(snakemake.log[0], "w", buffering=1, encoding="utf-8")  # noqa: SIM115 (lives as long as the job)
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        force=True,
    )
    log = logging.getLogger(f"decoders.rule.{snakemake.rule}")
    default_hook = sys.excepthook
    failed: list[type] = []

    def user_errors(kind, error, traceback):
        failed.append(kind)
        if isinstance(error, DecodersError):
            log.error("%s: %s", kind.__name__, error)
        elif (starved := starved_message(error)) is not None:
            message = f"job {job_name(snakemake)}: {starved}"
            log.error("%s: %s", kind.__name__, message)
            # the log may sit on the full disk: say it where Snakemake's own output goes too
            print(f"{kind.__name__}: {message}", file=sys.__stderr__, flush=True)
        else:
            default_hook(kind, error, traceback)

    outputs = [Path(path) for path in snakemake.output]
    for path in outputs:
        # an earlier run's checksum would vouch for a file this job is about to rewrite, and a killed run of this
        # job may have left the temporary file of an atomic write (decoders.io.atomic_path) beside it
        checksum_path(path).unlink(missing_ok=True)
        job_record_path(path).unlink(missing_ok=True)
        for name in (path.name, checksum_path(path).name):
            for partial in path.parent.glob(f".{glob.escape(name)}.*.part"):
                partial.unlink(missing_ok=True)

    # what the outputs depend on, by content (decoders.content): the rule, script and inputs read now (an error
    # here fails the job before it starts), the modules the job imported added at its end
    script = script_of(snakemake, inspect.stack()[1].filename)
    record = None
    if script is not None:
        record = job_record(
            root=script.parents[2],
            rule=snakemake.rule,
            wildcards=dict(getattr(snakemake, "wildcards", {}) or {}),
            script=script,
            inputs=[str(path) for path in snakemake.input],
            replay=replay_record(snakemake) if TABLE_RULES.match(snakemake.rule) else None,
        )

    def record_outputs() -> None:
        if not failed and all(path.is_file() for path in outputs):
            for path in outputs:
                record_checksum(path)
            if record is not None and script is not None:
                write_job_records(outputs, finish_job_record(record, script.parents[2]))

    sys.excepthook = user_errors
    atexit.register(record_outputs)
    check_inputs(snakemake.input)
    return log


def script_of(snakemake: Any, running: str) -> Path | None:
    """The workflow script a job runs: Snakemake runs a copy named ``tmp<random>.<script name>``, and gives the
    original's folder as ``scriptdir`` (a replay runs the script itself); None when the job runs no script of workflow/scripts (a test's stand-in)."""
    folder = getattr(snakemake, "scriptdir", None)
    if not folder:
        return None
    folder = Path(folder).resolve()  # a rule file names its script ../scripts/<name>
    name = Path(running).name  # the script itself (a replay, decoders.tables.rebuild) or Snakemake's copy
    if not (folder / name).is_file():
        name = name.split(".", 1)[-1]
    if not (folder / name).is_file() or folder.parent.name != "workflow" or folder.name != "scripts":
        return None
    return folder / name


def check_inputs(paths: Iterable[str | Path]) -> None:
    """Check each input against the checksum its job recorded; move every damaged one aside (so that the next run
    rebuilds it) and raise one :class:`CorruptedFileError` naming them all. Inputs without a recorded checksum (a
    mirror's files, a run older than checksums) are left to their readers' own checks."""
    damaged = []
    for path in dict.fromkeys(Path(p) for p in paths):
        if path.is_file() and (problem := checksum_mismatch(path)) is not None:
            aside = move_aside(path)
            damaged.append(f"{path}: {problem}; moved aside to {aside.name}")
    if damaged:
        raise CorruptedFileError(
            "input(s) damaged since the job that wrote them finished: "
            + "; ".join(damaged)
            + ". Run snakemake again: it rebuilds them."
        )


def job_name(snakemake: Any) -> str:
    """The rule and wildcards of a job, as Snakemake's own messages name it."""
    named = getattr(snakemake, "wildcards", None)
    wildcards = ", ".join(f"{key}={value}" for key, value in (named.items() if named is not None else ()))
    return f"{snakemake.rule} ({wildcards})" if wildcards else snakemake.rule


def starved_message(error: BaseException) -> str | None:
    """What to say for a job that ran out of disk space or memory (None for any other error)."""
    if isinstance(error, OSError) and (
        error.errno in (errno.ENOSPC, errno.EDQUOT) or "No space left on device" in str(error)
    ):
        where = f" writing {error.filename}" if error.filename else ""
        return (
            f"the disk is full{where} ({error}). Nothing half-written is left: outputs are written under a "
            "temporary name and renamed when complete, and Snakemake removes a failed job's outputs. Free space "
            "there and run snakemake again: it resumes with this job."
        )
    if isinstance(error, MemoryError):
        return (
            f"out of memory ({type(error).__name__}: {error}). Nothing half-written is left. Run snakemake again "
            "with fewer jobs at once (--cores, or --resources mem_mb=<the machine's memory in MB>, which schedules "
            "by the mem_mb each rule declares in config.yaml's resources)."
        )
    return None
