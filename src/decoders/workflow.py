"""Glue for the thin scripts under workflow/scripts: logging into the job's log file."""

from __future__ import annotations

import logging
import sys
from typing import Any


def start_script(snakemake: Any) -> logging.Logger:
    """Send stderr (warnings, tracebacks, progress bars) and logging to the job's log file; return a logger."""
    if snakemake.log:
        sys.stderr = open(snakemake.log[0], "w", buffering=1, encoding="utf-8")  # noqa: SIM115 (lives as long as the job)
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        force=True,
    )
    return logging.getLogger(f"decoders.rule.{snakemake.rule}")
