"""Glue for the thin scripts under workflow/scripts: logging into the job's log file, one-line user errors."""

from __future__ import annotations

import logging
import sys
from typing import Any

from decoders.errors import DecodersError


def start_script(snakemake: Any) -> logging.Logger:
    """Send stderr (warnings, tracebacks, progress bars) and logging to the job's log file; return a logger.

    An error the user can cause and fix (:class:`decoders.errors.DecodersError`: a corpus file with the wrong
    hash or format, a bad configuration value, a download that failed) ends the job with its message as one
    line, which ``show-failed-logs`` prints, instead of a traceback through the package; any other exception is
    a bug and keeps its traceback.
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

    def user_errors(kind, error, traceback):
        if isinstance(error, DecodersError):
            log.error("%s: %s", kind.__name__, error)
        else:
            default_hook(kind, error, traceback)

    sys.excepthook = user_errors
    return log
