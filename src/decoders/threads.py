"""The environment variables that fix the thread count of the numeric libraries, and pinning them to one.

Imports nothing heavy, so that a script can pin its threads before numpy, scipy or numba are loaded (they read
these variables once, at import).
"""

from __future__ import annotations

import os

THREAD_ENV_VARS: tuple[str, ...] = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)
"""Environment variables that fix the thread count of the numeric libraries; timed code sets them to 1."""

ONE_THREAD: dict[str, str] = dict.fromkeys(THREAD_ENV_VARS, "1")


def pin_one_thread() -> None:
    """Set every variable of THREAD_ENV_VARS to 1 in this process (call before importing numpy or numba): a job
    that reserves several cores to be alone on the machine still measures one thread."""
    os.environ.update(ONE_THREAD)
