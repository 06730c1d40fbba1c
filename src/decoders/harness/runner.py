"""Run one decoder variant over a sequence of scored instances, with warm-up, timing and hard time limits.

With ``isolate=True`` every decode call runs in a persistent worker process that the parent kills when it
overruns ``time_limit + grace``; the parent then records a ``timeout`` and continues with a fresh (warmed-up)
worker. The worker is a new interpreter started with :mod:`subprocess` (``python -c``, one thread per numeric
library via the environment, its own process group so that killing it also kills its children) and talks to
the parent over two pipes with :class:`multiprocessing.connection.Connection`. It does not use the
multiprocessing "spawn"/"forkserver" start methods because those re-import the parent's ``__main__``: a
Snakemake ``script:`` (which has no ``if __name__ == "__main__"`` guard) would run again inside the worker.
The worker receives only names, ``(experiment, decoder, decoder_module)``, plus the parent's ``sys.path``, and
looks the decoder up in the registry after importing ``decoder_module`` (default
``decoders.<experiment>.decoders``; tests pass a module of toy decoders). Instances and solutions are pickled.
Isolation relies on POSIX process groups (Linux, macOS); ``isolate=False`` works everywhere.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from decoders.errors import ConfigError, DecodersError
from decoders.harness.protocol import (
    Solution,
    checks_of,
    get_decoder,
    get_exact_check,
    get_structure_check,
    get_verifier,
)
from decoders.harness.provenance import thread_settings
from decoders.harness.records import make_record, records_frame, to_json
from decoders.threads import ONE_THREAD

log = logging.getLogger(__name__)

WORKER_THREAD_ENV: dict[str, str] = ONE_THREAD
"""Set in the worker's environment before it starts, hence before numpy or numba are imported."""

STARTUP_TIMEOUT = 300.0
"""Seconds allowed for a worker to start and import the decoder module (numba imports can be slow)."""

TRANSFER_TIMEOUT = 120.0
"""Seconds allowed for a worker to receive (unpickle) an instance before the clock of the hard limit starts."""

WARMUP_COMPILE_SECONDS = 120.0
"""Seconds the first worker's untimed warm-up may take beyond its calls' hard limits: it compiles every kernel
the variant and its reference run (numba, or its disk cache), which on a cold cache took longer than a 10 s
decode limit (CG's kernels, 2026-11-29: the worker then started cold and one timed call held 6 s of
compilation). Later workers, after a hard timeout, find the kernels in the cache and get no allowance, so a
decoder that overruns on the warm-up instance costs it once per job."""

LOOP_TARGET_SECONDS = 3e-4
"""A timing loop call decodes the instance as many times as make it last about this long, at most
``loop_repeats``: calling a compiled kernel from Python costs ~1-2 us, under 1% of such a call, and the clock
(:func:`time.perf_counter`, ~0.1 us) is far finer. A decode of 0.3 ms or more is looped once; before this cap
every decode was looped ``loop_repeats`` times whatever its length (chains: 20 decodes in each of 3 loop calls
per repeat, decodes far above the call cost included)."""

Instance = tuple[str, int, Any]
Evaluate = Callable[[Any, Solution], Mapping[str, float]]
Verify = Callable[[Any, Solution], str | None]
CheckStructure = Callable[[Any, Any], str | None]

_BOOTSTRAP = """\
# decoders-bench decoding worker (decoders.harness.runner)
import sys
from multiprocessing.connection import Connection
inbox = Connection(int(sys.argv[1]), writable=False)
outbox = Connection(int(sys.argv[2]), readable=False)
setup = inbox.recv()
sys.path[:] = setup["sys_path"]
from decoders.harness.runner import serve_worker
serve_worker(inbox, outbox, setup)
"""


class WorkerError(DecodersError):
    """The decoding worker could not be started, or was killed from outside (not: a decoder failed on an
    instance, which is recorded)."""


def killed_from_outside(during: str, code: int | None) -> WorkerError:
    """The error that ends a job whose worker was killed by SIGKILL that the harness did not send.

    Such a kill is no answer of the decoder's: the kernel's out-of-memory killer, a cluster's memory limit or a
    user sent it. Recording the instance as ``error`` would make a resumed run differ from an uninterrupted one,
    so the job stops instead, writing nothing, and the next run decodes the shard again.
    """
    return WorkerError(
        f"the decoding worker was killed by SIGKILL (exit code {code}) during {during}, not by the harness: "
        "by the out-of-memory killer (this job's memory, resources.rules.decode.mem_mb on a cluster) or by a "
        "user; no records written; run snakemake again to decode the shard"
    )


def default_grace(time_limit: float) -> float:
    """Extra seconds the parent waits beyond the time limit before killing the worker."""
    return max(1.0, 0.2 * time_limit)


def error_solution(message: str, **stats: Any) -> Solution:
    """The Solution recorded when no solution exists because something failed."""
    return Solution(
        structure=None, objective=math.nan, bound=None, status="error", stats={"error": message, **stats}
    )


def checked(verify: Verify | None, instance: Any, solution: Solution) -> Solution:
    """``solution``, or an ``error`` Solution when it claims ``optimal`` and ``verify`` rejects its certificate.

    Runs outside the timing; the check's own time is kept in ``stats["verify_seconds"]``. A verifier that raises
    counts as a rejection (the certificate could not be checked).
    """
    if verify is None or solution.status != "optimal":
        return solution
    start = time.perf_counter()
    try:
        reason = verify(instance, solution)
    except Exception as exc:
        reason = f"the check raised {type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    if reason is None:
        solution.stats["verify_seconds"] = seconds
        return solution
    log.error("certificate rejected: %s", reason)
    return error_solution(
        f"certificate check failed: {reason}",
        verify_seconds=seconds,
        claimed={"objective": solution.objective, "bound": solution.bound, "status": solution.status},
        decoder_stats=solution.stats,
    )


def structure_checked(check: CheckStructure | None, instance: Any, solution: Solution) -> Solution:
    """``solution``, or an ``error`` Solution when it has a structure that ``check`` (the experiment's
    ``check_structure``) rejects: wrong type, shape or range, or infeasible. Every status is checked, so a wrong
    structure is never kept as ``feasible`` (or as a timeout's best so far); a ``feasible`` one without a structure
    is an error too. Runs outside the timing; a check that raises counts as a rejection."""
    if solution.structure is None:
        if solution.status != "feasible":
            return solution  # a timeout or error with nothing found; an optimal "none exists" is verify's
        reason = "status 'feasible' without a structure"
    elif check is None:
        return solution
    else:
        try:
            reason = check(instance, solution.structure)
        except Exception as exc:
            reason = f"the check raised {type(exc).__name__}: {exc}"
    if reason is None:
        return solution
    return error_solution(
        f"invalid structure: {reason}",
        claimed={"objective": solution.objective, "bound": solution.bound, "status": solution.status},
        decoder_stats=solution.stats,
    )


def exact_checked(
    check: Callable[[Any, Solution, float], tuple[str | None, str]] | None,
    instance: Any,
    solution: Solution,
    time_limit: float,
) -> Solution:
    """``solution``, or an ``error`` Solution when it claims ``optimal`` and ``check`` (the experiment's
    ``exact_check``, for a user's decoder: :func:`decoders.harness.protocol.get_exact_check`) finds a better answer
    with one of the project's exact decoders within ``time_limit`` seconds. The outcome (confirmed, undecided) and
    the check's seconds are kept in ``stats``; it runs outside the timing, and a check that raises counts as a
    rejection."""
    if check is None or solution.status != "optimal":
        return solution
    start = time.perf_counter()
    try:
        reason, outcome = check(instance, solution, time_limit)
    except Exception as exc:
        reason, outcome = f"the check raised {type(exc).__name__}: {exc}", "rejected"
    seconds = time.perf_counter() - start
    if reason is None:
        solution.stats.update(exact_check=outcome, exact_check_seconds=seconds)
        return solution
    return error_solution(
        f"exact check failed: {reason}",
        exact_check_seconds=seconds,
        claimed={"objective": solution.objective, "bound": solution.bound, "status": solution.status},
        decoder_stats=solution.stats,
    )


def evaluated(
    evaluate: Evaluate | None, instance: Any, solution: Solution
) -> tuple[Solution, Mapping[str, float]]:
    """(Solution, evaluation columns): ``evaluate``'s columns where a structure was returned (none elsewhere); an
    evaluation that raises turns the record into an ``error`` with the reason, and the job goes on."""
    if evaluate is None or solution.structure is None:
        return solution, {}
    try:
        return solution, dict(evaluate(instance, solution))
    except Exception as exc:
        failed = error_solution(
            f"evaluation failed: {type(exc).__name__}: {exc}",
            claimed={"objective": solution.objective, "bound": solution.bound, "status": solution.status},
            decoder_stats=solution.stats,
        )
        return failed, {}


def timed_call(
    decoder: Callable[..., Solution],
    instance: Any,
    params: Mapping[str, Any],
    time_limit: float,
    repeats: int = 1,
    loop_repeats: int = 0,
    reference: tuple[Callable[..., Solution], Mapping[str, Any]] | None = None,
) -> tuple[float, Solution]:
    """Call ``decoder`` with ``deadline = start + time_limit``; return (seconds, Solution).

    Only the decode call is inside the :func:`time.perf_counter` interval. An exception, or a return value that
    is not a Solution, becomes an ``error`` Solution carrying the message and traceback in its stats.
    With ``repeats`` > 1 a solved instance is decoded again, ``repeats`` times in all, if that fits in the time
    limit, and the median time is returned (fast decoders take microseconds, where one operating-system hiccup
    would otherwise dominate a sum); the first call's Solution is returned.

    A call during which numba compiled a kernel or loaded one from its disk cache (a branch the warm-up instance
    did not take) is made again, if twice its time fits in the limit, and the second call's time and Solution
    are kept, with the first call's compile seconds in ``stats["jit_retimed_seconds"]``; compile time that
    stays in a recorded time (a call too long to repeat) is ``stats["jit_seconds"]``.

    With ``loop_repeats`` > 0, a decoder that has a compiled ``timing_loop`` (see
    :func:`decoders.harness.protocol.register`) is then timed by ``repeats`` calls of that loop, each decoding
    the instance ``n`` times, if they fit in the time limit: ``n`` is as many decodes as make a call last
    :data:`LOOP_TARGET_SECONDS` by the per-call time, at most ``loop_repeats`` (``stats["loop_repeats"]``);
    seconds = the median over the calls of elapsed / ``n`` (one call that an operating-system stall hits must
    not decide the time), and the per-call time above is kept as ``stats["call_seconds"]``. The loop must
    reproduce the decoder's objective (it returns their sum); if it does not, the row becomes an ``error``.

    With a ``reference`` ``(decoder, params)`` that has a timing loop too, each of those loop calls is paired
    with one call of the reference's loop on the same instance (before it, then after it, alternately), and the
    median of the reference's means is kept as ``stats["reference_seconds"]`` (its own decodes per call chosen
    the same way from one untimed single-decode call, ``stats["reference_loop_repeats"]``): a speed-up over the
    reference is
    then a ratio of times taken milliseconds apart in one process, which the machine's slow phases (seconds
    long on shared cloud cores) and per-process differences cannot skew. The decoder's loop is then called
    ``repeats`` times more on its own, back to back, and the median kept as ``stats["unpaired_seconds"]``: what
    the pairing itself costs the decoder (caches the reference's calls evict) is measured, not assumed.
    """
    seconds, solution, jit = _timed_once(decoder, instance, params, time_limit)
    if jit > 0.0 and 2 * seconds <= time_limit:
        # a kernel compiled (or loaded from numba's cache) inside the timed call: a path the warm-up instance did
        # not take. Time the call again, compiled; the record keeps the compile time it left out.
        seconds, solution, again = _timed_once(decoder, instance, params, time_limit)
        solution.stats["jit_retimed_seconds"] = jit
        jit = again
    if jit > 0.0:
        solution.stats["jit_seconds"] = jit
    solved = solution.status in ("optimal", "feasible")
    if repeats > 1 and solved and seconds * repeats <= time_limit:
        times = [seconds] + [
            _timed_once(decoder, instance, params, time_limit)[0] for _ in range(repeats - 1)
        ]
        seconds = statistics.median(times)
        solution.stats["timing_repeats"] = repeats
    loop = getattr(decoder, "timing_loop", None)
    if loop is not None and loop_repeats > 0 and solved and seconds * loop_repeats * repeats <= time_limit:
        return _time_loops(loop, instance, params, seconds, solution, repeats, loop_repeats, reference)
    return seconds, solution


def _loop_count(seconds: float, loop_repeats: int) -> int:
    """Decodes per timing-loop call for a decode of ``seconds``: enough to last :data:`LOOP_TARGET_SECONDS`, at
    least 1, at most ``loop_repeats`` (checked by :func:`_check_repeats`; also for a time of 0, NaN or inf)."""
    if not 0.0 < seconds < math.inf:
        return loop_repeats
    return max(1, min(loop_repeats, math.ceil(LOOP_TARGET_SECONDS / seconds)))


def _time_loops(
    loop: Callable[..., float],
    instance: Any,
    params: Mapping[str, Any],
    seconds: float,
    solution: Solution,
    repeats: int,
    loop_repeats: int,
    reference: tuple[Callable[..., Solution], Mapping[str, Any]] | None,
) -> tuple[float, Solution]:
    """Time ``repeats`` calls of the timing loop (each paired with the reference's loop, if it has one)."""
    means: list[float] = []
    reference_means: list[float] = []
    timed = [["timing loop", loop, params, means, 0]]
    reference_loop = getattr(reference[0], "timing_loop", None) if reference is not None else None
    if reference_loop is not None:
        timed.append(["reference timing loop", reference_loop, reference[1], reference_means, 0])
    for entry in timed:  # one untimed decode in each loop sets its decodes per call
        name, each_loop, each_params = entry[:3]
        try:
            single, _ = _loop_seconds(each_loop, instance, 1, each_params)
        except Exception as exc:
            return seconds, _loop_error(name, exc)
        entry[4] = _loop_count(single, loop_repeats)
    count = timed[0][4]
    for index in range(repeats):
        # the reference goes first on even calls and second on odd ones, so that neither gains from caches
        # the other warmed
        for name, each_loop, each_params, out, decodes in timed[::-1] if index % 2 == 0 else timed:
            try:
                mean_seconds, total = _loop_seconds(each_loop, instance, decodes, each_params)
            except Exception as exc:
                return seconds, _loop_error(name, exc)
            out.append(mean_seconds)
            if out is means and not math.isclose(
                total / decodes, solution.objective, rel_tol=1e-9, abs_tol=1e-9
            ):
                mean = total / decodes
                message = f"timing loop objective {mean!r} differs from the decoder's {solution.objective!r}"
                return seconds, error_solution(message)
    solution.stats["call_seconds"] = seconds
    solution.stats["loop_repeats"] = count
    if reference_means:
        solution.stats["reference_seconds"] = statistics.median(reference_means)
        solution.stats["reference_loop_repeats"] = timed[1][4]
        alone = [_loop_seconds(loop, instance, count, params)[0] for _ in range(repeats)]
        solution.stats["unpaired_seconds"] = statistics.median(alone)
    seconds = statistics.median(means)
    return seconds, solution


def _loop_seconds(
    loop: Callable[..., float], instance: Any, loop_repeats: int, params: Mapping[str, Any]
) -> tuple[float, float]:
    """(seconds per decode, the loop's sum of objectives) of one call of a compiled timing loop."""
    start = time.perf_counter()
    total = loop(instance, loop_repeats, **params)
    return (time.perf_counter() - start) / loop_repeats, total


def _loop_error(which: str, exc: Exception) -> Solution:
    return error_solution(f"{which}: {type(exc).__name__}: {exc}", traceback=traceback.format_exc())


def _timed_once(
    decoder: Callable[..., Solution], instance: Any, params: Mapping[str, Any], time_limit: float
) -> tuple[float, Solution, float]:
    """(seconds, Solution, seconds numba spent compiling or loading kernels from its cache during the call)."""
    compiling: list[float] = []
    with _compile_timer(compiling.append):
        start = time.perf_counter()
        try:
            solution = decoder(instance, deadline=start + time_limit, **params)
        except Exception as exc:
            seconds = time.perf_counter() - start
            failed = error_solution(f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc())
            return seconds, failed, 0.0
        seconds = time.perf_counter() - start
    if not isinstance(solution, Solution):
        return seconds, error_solution(f"decoder returned {type(solution).__name__}, not a Solution"), 0.0
    return seconds, solution, sum(compiling)


def _compile_timer(callback: Callable[[float], None]) -> contextlib.AbstractContextManager:
    """numba's timer of its compiler lock, which a dispatcher takes to compile a new signature or to load one
    from the disk cache (never for a call of a kernel already in memory)."""
    from numba.core import event  # imported on first use: the harness itself needs numba only here

    return event.install_timer("numba:compiler_lock", callback)


def serve_worker(inbox: Connection, outbox: Connection, setup: dict[str, Any]) -> None:
    """Worker side: resolve the decoder by name, then answer warm-up and decode requests until told to stop."""
    _watch_parent(setup["parent_pid"])
    try:
        decoder = get_decoder(setup["experiment"], setup["decoder"], setup["module"])
        reference = _resolve_reference(setup["experiment"], setup.get("reference"))
    except Exception as exc:
        outbox.send(("failed", f"{type(exc).__name__}: {exc}"))
        return
    outbox.send(("ready", {"pid": os.getpid(), "threads": thread_settings()}))
    while True:
        try:
            message = inbox.recv()
        except EOFError:
            return
        kind = message[0]
        if kind == "stop":
            return
        if kind == "warmup":
            _, instance, params, count, time_limit = message
            outbox.send(("started",))
            for _ in range(count):
                timed_call(decoder, instance, params, time_limit, loop_repeats=1, reference=reference)
            outbox.send(("warm",))
        elif kind == "decode":
            _, instance, params, time_limit, repeats, loop_repeats = message
            outbox.send(("started",))
            seconds, solution = timed_call(
                decoder, instance, params, time_limit, repeats, loop_repeats, reference
            )
            try:
                outbox.send(("done", seconds, solution))
            except Exception as exc:
                outbox.send(
                    ("done", seconds, error_solution(f"cannot send the solution to the parent: {exc}"))
                )
        else:
            raise RuntimeError(f"decoding worker received an unknown request {kind!r}")


def _resolve_reference(
    experiment: str, reference: Mapping[str, Any] | None
) -> tuple[Callable[..., Solution], dict[str, Any]] | None:
    """``{"decoder": name, "params": {...}, "module": ...}`` -> (registered decoder, params); None stays None."""
    if reference is None:
        return None
    decoder = get_decoder(experiment, reference["decoder"], reference.get("module"))
    return decoder, dict(reference.get("params", {}))


def _watch_parent(parent_pid: int) -> None:
    """Kill the worker's process group if the parent dies (e.g. SIGKILL from a scheduler) during a decode."""

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(1.0)
        with contextlib.suppress(OSError):
            os.killpg(os.getpgid(0), signal.SIGKILL)
        os._exit(70)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


class _WorkerDied(Exception):
    """The worker's pipe closed: the process exited or was killed."""


@dataclass
class _Worker:
    """Parent side of one worker process."""

    process: subprocess.Popen
    to_worker: Connection
    from_worker: Connection
    threads: dict[str, Any]
    exit_code: int | None = None
    killed: bool = False
    killed_from_outside: bool = False

    @classmethod
    def start(cls, setup: dict[str, Any]) -> _Worker:
        child_in, to_worker_fd = os.pipe()
        from_worker_fd, child_out = os.pipe()
        process = subprocess.Popen(
            [sys.executable, "-c", _BOOTSTRAP, str(child_in), str(child_out)],
            pass_fds=(child_in, child_out),
            env={**os.environ, **WORKER_THREAD_ENV},
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        os.close(child_in)
        os.close(child_out)
        worker = cls(
            process, Connection(to_worker_fd, readable=False), Connection(from_worker_fd, writable=False), {}
        )
        try:
            worker.to_worker.send(setup)
            reply = worker.receive(STARTUP_TIMEOUT)
        except _WorkerDied:
            code = worker.died()
            if worker.killed_from_outside:
                raise killed_from_outside("its start-up", code) from None
            raise WorkerError(f"decoding worker exited during start-up (exit code {code})") from None
        if reply is None:
            worker.kill()
            raise WorkerError(f"decoding worker did not start within {STARTUP_TIMEOUT:.0f} s")
        if reply[0] != "ready":
            worker.kill()
            raise WorkerError(f"decoding worker could not load its decoder: {reply[1]}")
        worker.threads = reply[1]["threads"]
        return worker

    def receive(self, timeout: float) -> tuple | None:
        """The next message, None if none arrived within ``timeout`` seconds; _WorkerDied on a closed pipe."""
        try:
            if not self.from_worker.poll(max(timeout, 0.0)):
                return None
            return self.from_worker.recv()
        except (EOFError, OSError) as exc:
            raise _WorkerDied from exc

    def send(self, message: tuple) -> None:
        try:
            self.to_worker.send(message)
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise _WorkerDied from exc

    def died(self) -> int | None:
        """Exit code of a worker whose pipe closed, waited for briefly before it is killed, so that a worker that
        exited, or was killed by someone else, keeps its own code (see :attr:`killed_from_outside`)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=2.0)
        self.killed_from_outside = not self.killed and self.process.returncode == -signal.SIGKILL
        return self.kill()

    def kill(self) -> int | None:
        """Kill the worker and everything in its process group (once); return its exit code."""
        if not self.killed:
            self.killed = True
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)  # before wait(): the unreaped leader keeps the id
            self.exit_code = self.process.wait()
            self.to_worker.close()
            self.from_worker.close()
        return self.exit_code

    def stop(self) -> None:
        """Ask the worker to exit, then make sure it and its children are gone."""
        with contextlib.suppress(_WorkerDied, OSError):
            self.send(("stop",))
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5.0)
        self.kill()


def _check_arguments(time_limit: float, warmup: int, grace: float | None, params: Mapping[str, Any]) -> float:
    if not isinstance(time_limit, int | float) or not math.isfinite(time_limit) or time_limit <= 0:
        raise ConfigError(f"time_limit must be a positive number of seconds; got {time_limit!r}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ConfigError(f"warmup must be a non-negative integer; got {warmup!r}")
    grace = default_grace(time_limit) if grace is None else grace
    if not isinstance(grace, int | float) or not math.isfinite(grace) or grace < 0:
        raise ConfigError(f"grace must be a non-negative number of seconds; got {grace!r}")
    try:
        to_json(dict(params))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"decoder params must be JSON-serialisable: {exc}") from exc
    return float(grace)


def warmup_index(sizes: Sequence[int]) -> int:
    """Index of the instance used for warm-up: the (lower) median size, ties by position.

    A median-size instance exercises the decoder's general code path (tiny instances may short-cut before the
    compiled kernels) while keeping the untimed warm-up, repeated after every hard timeout, cheap.
    """
    order = sorted(range(len(sizes)), key=lambda index: (sizes[index], index))
    return order[(len(order) - 1) // 2]


def run_instances(
    experiment: str,
    dataset: str,
    variant: str,
    decoder: str,
    params: Mapping[str, Any],
    instances: Sequence[Instance],
    *,
    time_limit: float,
    evaluate: Evaluate | None = None,
    warmup: int = 1,
    isolate: bool = True,
    progress: bool = True,
    decoder_module: str | None = None,
    grace: float | None = None,
    repeats: int = 1,
    loop_repeats: int = 0,
    reference: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """Decode every ``(instance_id, size, instance)`` with the registered decoder ``(experiment, decoder)``.

    Returns a validated record frame (see :mod:`decoders.harness.records`), one row per instance in input order,
    with ``evaluate(instance, solution)``'s columns where a structure was returned (NaN elsewhere).
    ``frame.attrs["threads"]`` holds the thread settings of the decoding process and ``frame.attrs["harness"]``
    the limits used, for the provenance file.

    Before timing, the decoder runs ``warmup`` times (untimed) on the median-size instance so that JIT compilation
    never enters a timing; every decode call gets ``deadline = start + time_limit`` (cooperative limit). With
    ``isolate=True`` the parent also kills a worker that has not answered ``time_limit + grace`` seconds after it
    started decoding (hard limit; default grace ``max(1, 0.2 * time_limit)``): the row gets status ``timeout``,
    objective and bound NaN, and a fresh worker (warmed up again) continues. A decoder exception, or a worker that
    dies, is recorded as ``error`` with the message in ``stats["error"]``. ``isolate=False`` decodes in this
    process with the cooperative limit only.

    ``reference`` (``{"decoder": name, "params": {...}, "module": ...}``, a decoder of the same experiment; module
    as ``decoder_module``) is timed beside the
    decoder on every instance when both have compiled timing loops (see :func:`timed_call`): the records then
    carry ``stats["reference_seconds"]`` for speed-ups measured in pairs.
    """
    grace = _check_arguments(time_limit, warmup, grace, params)
    params = dict(params)
    items = _unique_items(instances)
    decode_fn = get_decoder(experiment, decoder, decoder_module)  # unknown names fail here, before any worker
    reference = _reference_spec(reference)
    reference_fn = _resolve_reference(experiment, reference)
    verify = get_verifier(experiment, decoder_module)
    check_structure = get_structure_check(experiment, decoder_module)
    exact_check = get_exact_check(experiment, decoder_module)
    checks = checks_of(experiment, decoder_module)

    _check_repeats(repeats, loop_repeats)
    harness = {
        "time_limit": float(time_limit),
        "grace": grace,
        "warmup": warmup,
        "isolate": isolate,
        "repeats": repeats,
        "loop_repeats": loop_repeats,
        "reference": reference,
        "verifier": checks["verify"],
        "structure_check": checks["structure"],
        "evaluation": _names(evaluate),
        "exact_check": checks["exact"],
        "verify_seconds": 0.0,
    }
    bar = tqdm(total=len(items), desc=f"{experiment}/{dataset}/{variant}", unit="inst", disable=not progress)
    checks = (check_structure, verify, exact_check)
    record = _Recorder(experiment, dataset, variant, params, evaluate, checks, harness, bar)
    threads: dict[str, Any] = thread_settings()
    try:
        if items:
            warm = items[warmup_index([int(item[1]) for item in items])][2]
            timing = (repeats, loop_repeats)
            if isolate:
                setup = _worker_setup(experiment, decoder, decoder_module, reference)
                limits = (time_limit, time_limit + grace)
                threads = _run_isolated(items, record, params, limits, warmup, warm, setup, timing)
            else:
                _run_in_process(
                    items, record, decode_fn, params, time_limit, warmup, warm, timing, reference_fn
                )
    finally:
        bar.close()
    frame = records_frame(record.rows)
    frame.attrs["threads"] = threads
    frame.attrs["harness"] = harness
    return frame


def _names(function: Callable[..., Any] | None) -> list[str]:
    """The qualified names behind an evaluation function (several when it joins the experiment's and a module's)."""
    if function is None:
        return []
    return list(getattr(function, "checks", [f"{function.__module__}.{function.__qualname__}"]))


def _unique_items(instances: Sequence[Instance]) -> list[Instance]:
    """List the instances, checking that their ids are unique."""
    items = list(instances)
    ids = [str(item[0]) for item in items]
    if len(set(ids)) != len(ids):
        duplicates = sorted(name for name, count in Counter(ids).items() if count > 1)
        raise ValueError(f"instance ids must be unique; repeated: {', '.join(duplicates[:20])}")
    return items


def _reference_spec(reference: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Normalise a reference to ``{"decoder", "params", "module"}`` (None stays None)."""
    if reference is None:
        return None
    return {
        "decoder": reference["decoder"],
        "params": dict(reference.get("params", {})),
        "module": reference.get("module"),
    }


def _check_repeats(repeats: int, loop_repeats: int) -> None:
    """Check the timing repeat counts."""
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ConfigError(f"repeats must be an int >= 1, got {repeats!r}")
    if isinstance(loop_repeats, bool) or not isinstance(loop_repeats, int) or loop_repeats < 0:
        raise ConfigError(f"loop_repeats must be an int >= 0, got {loop_repeats!r}")


@dataclass
class _Recorder:
    """Turns each decoded instance into a record row (:meth:`__call__`) and advances the progress bar."""

    experiment: str
    dataset: str
    variant: str
    params: dict[str, Any]
    evaluate: Evaluate | None
    checks: tuple[CheckStructure | None, Verify | None, Callable[..., tuple[str | None, str]] | None]
    harness: dict[str, Any]
    bar: Any
    rows: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {"timeout": 0, "error": 0})

    def __call__(
        self, instance_id: str, size: int, instance: Any, seconds: float, solution: Solution
    ) -> None:
        """Check the structure and the certificate, evaluate, append the record and advance the progress bar."""
        check_structure, verify, exact_check = self.checks
        solution = structure_checked(check_structure, instance, solution)
        solution = checked(verify, instance, solution)
        self.harness["verify_seconds"] += solution.stats.get("verify_seconds", 0.0)
        solution = exact_checked(exact_check, instance, solution, self.harness["time_limit"])
        solution, evaluation = evaluated(self.evaluate, instance, solution)
        self.rows.append(
            make_record(
                experiment=self.experiment,
                dataset=self.dataset,
                variant=self.variant,
                params=self.params,
                instance_id=instance_id,
                size=size,
                seconds=seconds,
                solution=solution,
                evaluation=evaluation,
            )
        )
        if solution.status in self.counts:
            self.counts[solution.status] += 1
            self.bar.set_postfix(self.counts, refresh=False)
        self.bar.update(1)


def _worker_setup(
    experiment: str, decoder: str, decoder_module: str | None, reference: dict[str, Any] | None
) -> dict[str, Any]:
    """The names and paths a worker process needs to look up the decoder and the reference."""
    return {
        "experiment": experiment,
        "decoder": decoder,
        "module": decoder_module,
        "reference": reference,
        "sys_path": list(sys.path),
        "parent_pid": os.getpid(),
    }


def _run_in_process(
    items: list[Instance],
    record: Callable[[str, int, Any, float, Solution], None],
    decode_fn: Callable[..., Solution],
    params: dict[str, Any],
    time_limit: float,
    warmup: int,
    warm: Any,
    timing: tuple[int, int],
    reference_fn: tuple[Callable[..., Solution], dict[str, Any]] | None,
) -> None:
    """Warm up, then decode ``items`` in this process (cooperative time limit only)."""
    repeats, loop_repeats = timing
    for _ in range(warmup):
        timed_call(decode_fn, warm, params, time_limit, loop_repeats=1, reference=reference_fn)
    for instance_id, size, instance in items:
        seconds, solution = timed_call(
            decode_fn, instance, params, time_limit, repeats, loop_repeats, reference_fn
        )
        record(str(instance_id), int(size), instance, seconds, solution)


def _run_isolated(
    items: list[Instance],
    record: Callable[[str, int, Any, float, Solution], None],
    params: dict[str, Any],
    limits: tuple[float, float],
    warmup: int,
    warm: Any,
    setup: dict[str, Any],
    timing: tuple[int, int] = (1, 0),
) -> dict[str, Any]:
    """Decode ``items`` in worker processes, restarting the worker after a hard timeout or a crash.

    ``limits`` is (cooperative time limit, hard limit), ``timing`` (repeats, loop_repeats) as for
    :func:`timed_call`; returns the first worker's thread settings.
    """
    time_limit, hard_limit = limits
    worker: _Worker | None = None
    threads: dict[str, Any] | None = None
    warm_workers = warmup > 0
    cold = False
    allowance = WARMUP_COMPILE_SECONDS  # the first worker's warm-up compiles (or loads) every kernel
    try:
        for instance_id, size, instance in items:
            if worker is None:
                worker = _Worker.start(setup)
                threads = threads or worker.threads
                cold = not warm_workers
                warmed = warm_workers and _warm_up(
                    worker, warm, params, warmup, time_limit, hard_limit, allowance
                )
                if warm_workers and not warmed:
                    log.warning(
                        "warm-up exceeded the hard limit of %.1f s (and %.0f s for compilation); later workers "
                        "start cold (timings may include JIT compilation; such rows have "
                        "stats['harness_cold_start'])",
                        hard_limit,
                        allowance,
                    )
                    worker.kill()
                    worker = _Worker.start(setup)
                    warm_workers, cold = False, True
                allowance = 0.0
            seconds, solution, alive = _decode_in(
                worker, instance, params, time_limit, hard_limit, timing, instance_id
            )
            if cold:
                solution.stats["harness_cold_start"] = True
            record(str(instance_id), int(size), instance, seconds, solution)
            if not alive:
                worker.kill()
                worker = None
    except BaseException:
        if worker is not None:  # interrupted (e.g. Ctrl-C) or failed: do not wait for a running decode
            worker.kill()
            worker = None
        raise
    finally:
        if worker is not None:
            worker.stop()
    return threads if threads is not None else thread_settings()


def _warm_up(
    worker: _Worker,
    instance: Any,
    params: dict[str, Any],
    count: int,
    time_limit: float,
    hard_limit: float,
    allowance: float,
) -> bool:
    """Run the untimed warm-up calls; False when they overran ``count`` hard limits plus ``allowance`` seconds
    (for compilation), or the worker died."""
    try:
        worker.send(("warmup", instance, params, count, time_limit))
        if worker.receive(TRANSFER_TIMEOUT) is None:
            return False
        return worker.receive(count * hard_limit + allowance) is not None
    except _WorkerDied:
        code = worker.died()
        if worker.killed_from_outside:
            raise killed_from_outside("its warm-up", code) from None
        return False


def _decode_in(
    worker: _Worker,
    instance: Any,
    params: dict[str, Any],
    time_limit: float,
    hard_limit: float,
    timing: tuple[int, int] = (1, 0),
    instance_id: str | None = None,
) -> tuple[float, Solution, bool]:
    """One decode call in ``worker``: (seconds, Solution, whether the worker is still usable).

    For a hard timeout or a dead worker, seconds is the wall time the parent waited after the worker started.
    """
    clock: float | None = None
    try:
        worker.send(("decode", instance, params, time_limit, *timing))
        if worker.receive(TRANSFER_TIMEOUT) is None:
            message = f"worker did not receive the instance within {TRANSFER_TIMEOUT:.0f} s"
            return 0.0, error_solution(message), False
        clock = time.perf_counter()
        reply = worker.receive(hard_limit)
    except _WorkerDied:
        waited = 0.0 if clock is None else time.perf_counter() - clock
        code = worker.died()
        if worker.killed_from_outside:
            raise killed_from_outside(f"instance {instance_id!r}", code) from None
        return waited, error_solution(f"decoding worker died (exit code {code})"), False
    if reply is None:
        waited = time.perf_counter() - clock
        solution = Solution(
            structure=None,
            objective=math.nan,
            bound=None,
            status="timeout",
            stats={"killed": True, "hard_limit_seconds": hard_limit},
        )
        return waited, solution, False
    _, seconds, solution = reply
    return seconds, solution, True
