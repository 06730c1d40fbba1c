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

from decoders.errors import CorpusFormatError

_UMASK = os.umask(0)
os.umask(_UMASK)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; move it onto ``path`` only if the block succeeds."""
    path = Path(path)
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
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def write_text_atomic(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json_atomic(path: str | Path, obj: Any) -> None:
    write_text_atomic(path, json.dumps(obj, indent=2, default=_json_default) + "\n")


def write_parquet_atomic(path: str | Path, frame: pd.DataFrame) -> None:
    with atomic_path(path) as tmp:
        frame.to_parquet(tmp, index=False)


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def sha256_bytes(data: bytes) -> str:
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
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        np.savez_compressed(handle, **arrays)


def load_npz(path: str | Path, keys: Sequence[str]) -> dict[str, np.ndarray]:
    """The named arrays of an .npz file; CorpusFormatError if it cannot be read or lacks one of them."""
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
