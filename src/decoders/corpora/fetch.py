"""Fetch corpus files from a local mirror or upstream, verify their sha256, write them atomically.

Every file is described in ``config.yaml`` under ``corpora.<corpus>.files.<path>`` (see
``workflow/schemas/config.schema.yaml``). ``path`` is the file's name under ``data/raw/<corpus>/``, holding the
bytes a user downloads upstream. The mirror may store a file gzip-compressed (``mirror: name.gz``) or as other
bytes altogether (``mirror_sha256``: e.g. a deterministic re-pack of an upstream tarball); a file that upstream
serves as many parts is given by ``parts``, a TSV whose ``path`` column lists them in order.

Rules: a file verified once is kept, as a hard link (a copy where links are not possible), in a store keyed by
its sha256 (``data/raw/.verified/<sha256>`` in the workflow) and taken from there first, so a fetch that runs
again never loses it, whatever happens to the mirror or the network; a mirror file that exists is used and must
match its hash (a corrupted mirror is an error, never silently replaced by a download); a file missing from the
mirror (or no mirror) falls back to the upstream URL (pooch); a failed hash check or download never leaves a
file behind.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import logging
import os
import shutil
import tempfile
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from decoders.errors import ChecksumError, ConfigError, FetchError
from decoders.io import atomic_path, sha256_file

log = logging.getLogger(__name__)

VERIFIED = "data/raw/.verified"
"""The workflow's store of verified corpus files, named by their sha256."""


@dataclass(frozen=True)
class CorpusFile:
    """One file of a corpus as the configuration describes it."""

    corpus: str
    path: str
    sha256: str
    url: str | None
    mirror: str
    mirror_sha256: str
    parts: tuple[str, ...] = ()

    @property
    def gzip_stored(self) -> bool:
        return self.mirror.endswith(".gz") and not self.path.endswith(".gz")

    @property
    def source(self) -> str:
        """Where upstream serves this file, for messages."""
        if self.parts:
            return f"{len(self.parts)} parts under {self.url}"
        return self.url or "(no upstream URL: mirror only)"


def corpus_files(corpus: str, spec: dict[str, Any], *, base_dir: str | Path = ".") -> list[CorpusFile]:
    """The files of one corpus from its ``config.yaml`` entry; relative ``parts`` paths resolve in base_dir."""
    base_url = spec.get("url")
    files = []
    for path, entry in spec["files"].items():
        entry = {"sha256": entry} if isinstance(entry, str) else dict(entry)
        key = f"corpora.{corpus}.files.{path}"
        if "sha256" not in entry:
            raise ConfigError(f"{key}: missing 'sha256'")
        url = entry.get("url", _join_url(base_url, path) if base_url else None)
        parts: tuple[str, ...] = ()
        if "parts" in entry:
            if not base_url:
                raise ConfigError(f"{key}.parts: the corpus needs a base 'url' to download parts from")
            url = base_url
            parts = tuple(_join_url(base_url, p) for p in _read_parts(Path(base_dir) / entry["parts"], key))
        files.append(
            CorpusFile(
                corpus=corpus,
                path=path,
                sha256=entry["sha256"].lower(),
                url=url,
                mirror=entry.get("mirror", path),
                mirror_sha256=entry.get("mirror_sha256", entry["sha256"]).lower(),
                parts=parts,
            )
        )
    return files


#: Where ``mirror: auto`` looks, relative to the repository: the folder the project's corpora are shared in.
AUTO_MIRROR = Path("..") / "shared" / "corpora"


def resolve_mirror(value: str | None, root: str | Path) -> tuple[str | None, str]:
    """The mirror folder a run reads and a line saying why: ``auto`` is :data:`AUTO_MIRROR` beside the
    repository ``root`` when that folder exists, else none (every corpus downloaded); ``None`` is none; any other
    value is a folder (relative to the working directory) that must exist, or ConfigError names it."""
    if value is None:
        return None, "corpus mirror: none (mirror: null), every corpus is downloaded from upstream"
    if value == "auto":
        found = (Path(root) / AUTO_MIRROR).resolve()
        if found.is_dir():
            return str(found), f"corpus mirror: {found} (mirror: auto found it beside the repository)"
        return None, f"corpus mirror: none ({found} does not exist), every corpus is downloaded from upstream"
    if not Path(value).is_dir():
        raise ConfigError(
            f"mirror: {value} is not a folder (relative paths start in {Path.cwd()}); give the corpus mirror's "
            "folder, mirror: auto (the default: ../shared/corpora beside the repository if it exists), or "
            "mirror: null (on the command line: --config mirror=) to download every corpus from upstream"
        )
    return value, f"corpus mirror: {value}"


def fetch_file(
    item: CorpusFile, dest: str | Path, mirror_root: str | Path | None, *, store: str | Path | None = None
) -> str:
    """Write ``item`` to ``dest``; return "verified store", "mirror" or "upstream" for the log.

    Raises ChecksumError (naming file, expected and actual hash, and URL) or FetchError; ``dest`` is written only
    after its content hash has been verified. With a ``store`` folder, a file kept there under its sha256 is
    taken first (after checking its hash again), and a newly verified file is kept there.
    """
    dest = Path(dest)
    kept = Path(store) / item.sha256 if store is not None else None
    if kept is not None and kept.is_file():
        if sha256_file(kept) == item.sha256:
            _link(kept, dest)
            return "verified store"
        log.warning(
            "%s: does not hash to its name any more; fetching %s/%s again", kept, item.corpus, item.path
        )
        kept.unlink()
    source = _fetch(item, dest, mirror_root)
    if kept is not None:
        _link(dest, kept)
    return source


def _link(source: Path, dest: Path) -> None:
    """Make ``dest`` a hard link of ``source`` (a copy where the file system has none), atomically."""
    with atomic_path(dest) as tmp:
        tmp.unlink()
        try:
            os.link(source, tmp)
        except OSError:
            shutil.copyfile(source, tmp)


def _fetch(item: CorpusFile, dest: Path, mirror_root: str | Path | None) -> str:
    mirror_file = Path(mirror_root) / item.corpus / item.mirror if mirror_root else None
    if mirror_file is not None and mirror_file.is_file():
        _copy_from_mirror(item, mirror_file, dest)
        return "mirror"
    where = f"not in the mirror ({mirror_file})" if mirror_file is not None else "no mirror configured"
    if item.url is None:
        raise FetchError(f"{item.corpus}/{item.path}: {where}, and it has no upstream URL")
    log.info("%s/%s: %s; downloading %s", item.corpus, item.path, where, item.source)
    try:
        _download(item, dest)
    except ChecksumError:
        raise
    except Exception as exc:  # network, HTTP, disk: say what was tried
        raise FetchError(
            f"{item.corpus}/{item.path}: {where}, and the download from {item.source} failed: {exc}"
        ) from exc
    return "upstream"


def _copy_from_mirror(item: CorpusFile, mirror_file: Path, dest: Path) -> None:
    stored = sha256_file(mirror_file)
    if stored != item.mirror_sha256:
        raise _checksum_error(item, mirror_file, item.mirror_sha256, stored)
    with atomic_path(dest) as tmp:
        if item.gzip_stored:
            digest = hashlib.sha256()
            try:
                with gzip.open(mirror_file, "rb") as src, open(tmp, "wb") as out:
                    while block := src.read(1 << 20):
                        digest.update(block)
                        out.write(block)
            except (OSError, EOFError) as exc:
                raise FetchError(f"{mirror_file}: cannot decompress: {exc}") from exc
            if digest.hexdigest() != item.sha256:
                raise _checksum_error(item, mirror_file, item.sha256, digest.hexdigest(), "decompressed ")
        else:
            shutil.copyfile(mirror_file, tmp)


def _download(item: CorpusFile, dest: Path) -> None:
    import pooch  # imported here: only downloads need it

    urls = item.parts or (item.url,)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=_existing_parent(dest)) as tmpdir:
        pieces = []
        for i, url in enumerate(urls):
            pieces.append(
                Path(
                    pooch.retrieve(
                        url,
                        known_hash=None,
                        fname=f"part-{i:05d}",
                        path=tmpdir,
                        progressbar=len(urls) == 1,
                    )
                )
            )
        with atomic_path(dest) as tmp:
            with open(tmp, "wb") as out:
                for piece in pieces:
                    with open(piece, "rb") as src:
                        shutil.copyfileobj(src, out)
            actual = sha256_file(tmp)
            if actual != item.sha256:
                raise _checksum_error(item, item.source, item.sha256, actual)


def _checksum_error(
    item: CorpusFile, where: Path | str, expected: str, actual: str, what: str = ""
) -> ChecksumError:
    return ChecksumError(
        f"{item.corpus}/{item.path}: sha256 mismatch for {what}{where}: expected {expected}, got {actual} "
        f"(upstream: {item.source}). The file is corrupted or a different version; nothing was written."
    )


def _join_url(base: str, path: str) -> str:
    return base.rstrip("/") + "/" + urllib.parse.quote(path)


def _read_parts(path: Path, key: str) -> list[str]:
    if not path.is_file():
        raise ConfigError(f"{key}.parts: file {path} does not exist")
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    if not rows or "path" not in rows[0]:
        raise ConfigError(f"{key}.parts: {path} must be a TSV with a 'path' column")
    return [row["path"] for row in rows]


def _existing_parent(dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    return dest.parent
