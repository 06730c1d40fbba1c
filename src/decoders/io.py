"""File helpers shared by every stage: atomic writes, hashing, JSON/parquet/npz outputs.

Every output is written to a temporary file in the destination's folder and renamed into place only when
complete, so a failed or interrupted step never leaves a half-written file behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from decoders.checks import check_mapping, check_path
from decoders.errors import CorpusFormatError

_UMASK = os.umask(0)
os.umask(_UMASK)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; move it onto ``path`` only if the block succeeds. A ``path`` that is
    no path (None, a number, an array) is a ValueError naming it (:func:`decoders.checks.check_path`), here and in
    every reader below, not ``open``'s TypeError or a number read as a file descriptor."""
    path = Path(check_path(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    tmp_path.chmod(0o666 & ~_UMASK)  # mkstemp makes 0600; outputs get the usual permissions
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    finally:
        tmp_path.unlink(missing_ok=True)


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    _check_bytes(data)
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def write_text_atomic(path: str | Path, text: str) -> None:
    if not isinstance(text, str):
        raise ValueError(f"text must be a string; got {type(text).__name__}")
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json_atomic(path: str | Path, obj: Any) -> None:
    write_text_atomic(path, json.dumps(obj, indent=2, default=_json_default) + "\n")


def write_parquet_atomic(path: str | Path, frame: pd.DataFrame) -> None:
    """``frame`` as parquet with a CRC per page, so that :func:`read_parquet` detects a garbled page."""
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame; got {type(frame).__name__}")
    with atomic_path(path) as tmp:
        frame.to_parquet(tmp, index=False, write_page_checksum=True)


def read_parquet(path: str | Path, **options: Any) -> pd.DataFrame:
    """``pd.read_parquet`` that checks the pages' CRCs (where the writer stored them) and names the file when it
    cannot be read (missing, truncated, garbled): CorpusFormatError."""
    path = check_path(path)
    with parquet_errors(path):
        return pd.read_parquet(path, page_checksum_verification=True, **options)


@contextlib.contextmanager
def parquet_errors(path: str | Path) -> Iterator[None]:
    """Turn a parquet reader's error on a damaged file into a CorpusFormatError naming ``path`` (a missing file
    stays a FileNotFoundError)."""
    try:
        yield
    except FileNotFoundError:
        raise
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise CorpusFormatError(
            path, None, f"not a readable parquet file (truncated or garbled?): {exc}"
        ) from exc


def read_json(path: str | Path) -> Any:
    """The JSON value in ``path``; CorpusFormatError names a file that is not valid UTF-8 JSON (truncated or
    garbled)."""
    path = check_path(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
        return json.loads(text)
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CorpusFormatError(
            path, None, f"not a readable JSON file (truncated or garbled?): {exc}"
        ) from exc


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(check_path(path), "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _check_bytes(data: Any) -> None:
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ValueError(f"data must be bytes; got {type(data).__name__}")


def sha256_bytes(data: bytes) -> str:
    _check_bytes(data)
    return hashlib.sha256(data).hexdigest()


def _json_default(value: Any) -> Any:
    """numpy scalars and arrays, paths and sets in JSON outputs."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (Path, set, frozenset)):
        return sorted(value) if isinstance(value, (set, frozenset)) else str(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def save_npz(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """np.savez_compressed into an open temporary file (a path would get ``.npz`` appended), then rename."""
    check_mapping(arrays, "arrays")
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        np.savez_compressed(handle, **arrays)


def load_npz(path: str | Path, keys: Sequence[str]) -> dict[str, np.ndarray]:
    """The named arrays of an .npz file; CorpusFormatError if it cannot be read or lacks one of them."""
    path = check_path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            missing = [key for key in keys if key not in data.files]
            if missing:
                raise CorpusFormatError(path, None, f"missing array(s) {missing}")
            return {key: data[key] for key in data.files}
    except CorpusFormatError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise CorpusFormatError(path, None, f"not a readable .npz file: {exc}") from exc


# Checksums of finished outputs. When a workflow job ends without an error, it records beside each of its
# outputs the output's size and sha256 (decoders.workflow.start_script); a later job checks its inputs against
# them before it reads any, so that a file truncated or changed after it was written (a disk error, an interrupted
# copy, an edit) is caught by name, whatever its format, instead of being read as if complete.

CHECKSUM_SUFFIX = ".sha256"


def checksum_path(path: str | Path) -> Path:
    """Where the checksum of ``path`` is kept: the hidden file ``.<name>.sha256`` beside it."""
    path = Path(check_path(path))
    return path.with_name(f".{path.name}{CHECKSUM_SUFFIX}")


def is_checksum_file(path: str | Path) -> bool:
    name = Path(check_path(path)).name
    return name.startswith(".") and name.endswith(CHECKSUM_SUFFIX)


def record_checksum(path: str | Path) -> str:
    """Write the size and sha256 of ``path`` beside it (atomically); return the digest."""
    path = Path(check_path(path))
    digest = sha256_file(path)
    write_text_atomic(checksum_path(path), f"{digest} {path.stat().st_size}\n")
    return digest


def checksum_mismatch(path: str | Path) -> str | None:
    """What is wrong with ``path`` against its recorded checksum, or None when it matches or none is recorded.

    A checksum file that cannot be parsed is itself reported (it is as untrustworthy as the file it vouches for).
    """
    path = Path(check_path(path))
    recorded = checksum_path(path)
    try:
        text = recorded.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        return f"its checksum file {recorded.name} cannot be read ({exc})"
    fields = text.split()
    if len(fields) != 2 or len(fields[0]) != 64 or not fields[1].isdigit():
        return f"its checksum file {recorded.name} is garbled ({text[:80]!r})"
    digest, size = fields[0], int(fields[1])
    try:
        actual_size = path.stat().st_size
    except FileNotFoundError:
        return None
    if actual_size != size:
        cut = " (truncated)" if actual_size < size else ""
        return f"{actual_size:,} bytes where the job that wrote it left {size:,}{cut}"
    actual = sha256_file(path)
    if actual != digest:
        return (
            f"sha256 {actual[:12]}... where the job that wrote it left {digest[:12]}... (same size: garbled)"
        )
    return None


def move_aside(path: str | Path) -> Path:
    """Rename a corrupted ``path`` to ``<name>.corrupt`` (replacing an earlier one) and drop its checksum, so
    that Snakemake sees the file missing and its next run rebuilds it; return the new path."""
    path = Path(check_path(path))
    aside = path.with_name(f"{path.name}.corrupt")
    os.replace(path, aside)
    checksum_path(path).unlink(missing_ok=True)
    return aside
