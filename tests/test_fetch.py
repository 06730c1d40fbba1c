"""Fetching corpus files: mirror copies, gzip-stored files, corrupted mirrors, upstream downloads (loopback)."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import threading
from pathlib import Path

import pytest

from decoders.config import load_config
from decoders.corpora.fetch import corpus_files, fetch_file, resolve_mirror
from decoders.errors import ChecksumError, ConfigError, FetchError


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture()
def server(tmp_path):
    """A loopback HTTP server over tmp_path/upstream; yields (base_url, folder)."""
    root = tmp_path / "upstream"
    root.mkdir()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/", root
    httpd.shutdown()
    httpd.server_close()


def test_mirror_copy_and_gzip_stored(tmp_path):
    plain, packed = b"a plain file\n", b"a file stored gzip-compressed\n" * 50
    mirror = tmp_path / "mirror" / "corp"
    mirror.mkdir(parents=True)
    (mirror / "a.txt").write_bytes(plain)
    (mirror / "b.conllu.gz").write_bytes(gzip.compress(packed))
    spec = {
        "url": "http://127.0.0.1:9/none/",
        "files": {
            "a.txt": sha(plain),
            "b.conllu": {
                "sha256": sha(packed),
                "mirror": "b.conllu.gz",
                "mirror_sha256": sha((mirror / "b.conllu.gz").read_bytes()),
            },
        },
    }
    items = corpus_files("corp", spec)
    assert [i.url for i in items] == ["http://127.0.0.1:9/none/a.txt", "http://127.0.0.1:9/none/b.conllu"]
    for item in items:
        assert fetch_file(item, tmp_path / "raw" / item.path, tmp_path / "mirror") == "mirror"
    assert (tmp_path / "raw" / "a.txt").read_bytes() == plain
    assert (tmp_path / "raw" / "b.conllu").read_bytes() == packed
    assert sorted(p.name for p in (tmp_path / "raw").iterdir()) == ["a.txt", "b.conllu"]


def test_verified_store_keeps_files_a_failed_fetch_would_lose(tmp_path):
    """A verified file is kept under its sha256 (the same inode as the output); a fetch that runs again takes it
    from there, with the mirror gone and no network, and a store file whose bytes changed is not trusted."""
    data = b"verified once\n"
    mirror = tmp_path / "mirror" / "corp"
    mirror.mkdir(parents=True)
    (mirror / "v.txt").write_bytes(data)
    (item,) = corpus_files("corp", {"url": "http://127.0.0.1:9/none/", "files": {"v.txt": sha(data)}})
    store, dest = tmp_path / "raw" / ".verified", tmp_path / "raw" / "corp" / "v.txt"
    assert fetch_file(item, dest, tmp_path / "mirror", store=store) == "mirror"
    kept = store / sha(data)
    assert kept.read_bytes() == data and kept.stat().st_ino == dest.stat().st_ino
    dest.unlink()  # what Snakemake does to a job's outputs before running it
    assert fetch_file(item, dest, tmp_path / "gone", store=store) == "verified store"
    assert dest.read_bytes() == data
    dest.unlink()
    kept.write_bytes(b"changed behind our back\n")  # the same inode: the output changed too
    with pytest.raises(FetchError, match="download from http://127.0.0.1:9/none/v.txt failed"):
        fetch_file(item, dest, tmp_path / "gone", store=store)
    assert not kept.exists() and not dest.exists()
    assert sorted(p.name for p in tmp_path.joinpath("raw").rglob("*") if p.is_file()) == []


def test_corrupted_mirror_names_file_hashes_and_url(tmp_path):
    mirror = tmp_path / "mirror" / "corp"
    mirror.mkdir(parents=True)
    good = b"the real content\n"
    (mirror / "x.tsv").write_bytes(b"the real content, corrupted\n")
    (item,) = corpus_files("corp", {"url": "https://example.org/base/", "files": {"x.tsv": sha(good)}})
    dest = tmp_path / "raw" / "corp" / "x.tsv"
    with pytest.raises(ChecksumError) as info:
        fetch_file(item, dest, tmp_path / "mirror")
    message = str(info.value)
    assert str(mirror / "x.tsv") in message
    assert sha(good) in message and sha(b"the real content, corrupted\n") in message
    assert "https://example.org/base/x.tsv" in message
    assert not dest.exists()
    assert not dest.parent.exists() or list(dest.parent.iterdir()) == []  # no temporary file left either


def test_corrupted_gzip_content_is_rejected(tmp_path):
    mirror = tmp_path / "mirror" / "corp"
    mirror.mkdir(parents=True)
    stored = gzip.compress(b"other content")
    (mirror / "y.gz").write_bytes(stored)
    spec = {"files": {"y": {"sha256": sha(b"expected"), "mirror": "y.gz", "mirror_sha256": sha(stored)}}}
    (item,) = corpus_files("corp", spec)
    with pytest.raises(ChecksumError, match="decompressed"):
        fetch_file(item, tmp_path / "raw" / "y", tmp_path / "mirror")
    assert not (tmp_path / "raw" / "y").exists()


def test_missing_mirror_downloads_upstream(tmp_path, server):
    base, root = server
    content = b"served upstream\n"
    (root / "dir with space").mkdir()
    (root / "dir with space" / "f.tsv").write_bytes(content)
    (item,) = corpus_files("corp", {"url": base, "files": {"dir with space/f.tsv": sha(content)}})
    dest = tmp_path / "raw" / "corp" / "dir with space" / "f.tsv"
    assert fetch_file(item, dest, tmp_path / "no-such-mirror") == "upstream"
    assert dest.read_bytes() == content


def test_upstream_hash_mismatch_leaves_nothing(tmp_path, server):
    base, root = server
    (root / "f.tsv").write_bytes(b"changed upstream\n")
    (item,) = corpus_files("corp", {"url": base, "files": {"f.tsv": sha(b"pinned version\n")}})
    dest = tmp_path / "raw" / "f.tsv"
    with pytest.raises(ChecksumError, match=base + "f.tsv"):
        fetch_file(item, dest, None)
    assert list((tmp_path / "raw").iterdir()) == []  # neither the file nor a temporary download


def test_upstream_parts_are_concatenated(tmp_path, server):
    base, root = server
    (root / "parts").mkdir()
    pieces = [b"1\tone\n\n", b"1\ttwo\n\n", b"1\tthree\n\n"]
    for i, piece in enumerate(pieces):
        (root / "parts" / f"{i:04d}+x.conll").write_bytes(piece)
    listing = tmp_path / "parts.tsv"
    listing.write_text("path\tsentences\n" + "".join(f"parts/{i:04d}+x.conll\t1\n" for i in range(3)))
    spec = {"url": base, "files": {"all.conll": {"sha256": sha(b"".join(pieces)), "parts": str(listing)}}}
    (item,) = corpus_files("corp", spec)
    assert item.parts[0] == base + "parts/0000%2Bx.conll"
    dest = tmp_path / "raw" / "all.conll"
    assert fetch_file(item, dest, tmp_path / "no-mirror") == "upstream"
    assert dest.read_bytes() == b"".join(pieces)


def test_unreachable_upstream_names_mirror_and_url(tmp_path):
    (item,) = corpus_files("corp", {"url": "http://127.0.0.1:9/", "files": {"f": sha(b"x")}})
    with pytest.raises(FetchError) as info:
        fetch_file(item, tmp_path / "raw" / "f", tmp_path / "mirror")
    assert "http://127.0.0.1:9/f" in str(info.value) and str(tmp_path / "mirror") in str(info.value)
    assert not (tmp_path / "raw" / "f").exists()


def test_no_url_and_no_mirror(tmp_path):
    (item,) = corpus_files("corp", {"files": {"f": sha(b"x")}})
    with pytest.raises(FetchError, match="no upstream URL"):
        fetch_file(item, tmp_path / "f", None)


def test_parts_need_a_listing(tmp_path):
    with pytest.raises(ConfigError, match="corpora.corp.files.f.parts"):
        corpus_files("corp", {"url": "http://x/", "files": {"f": {"sha256": sha(b""), "parts": "nope.tsv"}}})


def test_every_configured_file_matches_the_mirror(repo_root: Path, mirror: Path, tmp_path):
    """config.yaml's hashes and mirror names agree with the mirror: fetch everything (fast, local copies)."""
    config = load_config(repo_root)
    count = 0
    for corpus, spec in config["corpora"].items():
        for item in corpus_files(corpus, spec, base_dir=repo_root):
            assert fetch_file(item, tmp_path / corpus / item.path, mirror) == "mirror"
            count += 1
    assert count == sum(len(spec["files"]) for spec in config["corpora"].values())


def test_mirror_auto_reads_the_shared_folder_when_there_and_downloads_otherwise(tmp_path):
    """mirror: auto is ../shared/corpora beside the repository if that folder exists, else no mirror."""
    repo = tmp_path / "work" / "repo"
    repo.mkdir(parents=True)
    folder, line = resolve_mirror("auto", repo)
    assert folder is None and "downloaded from upstream" in line and "does not exist" in line
    shared = tmp_path / "work" / "shared" / "corpora"
    shared.mkdir(parents=True)
    folder, line = resolve_mirror("auto", repo)
    assert folder == str(shared.resolve()) and str(shared.resolve()) in line
    assert resolve_mirror(None, repo)[0] is None


def test_a_given_mirror_must_exist(tmp_path):
    """A mirror that is given is used as given; one that does not exist is a one-line error naming it."""
    assert resolve_mirror(str(tmp_path), tmp_path)[0] == str(tmp_path)
    missing = tmp_path / "no-such-mirror"
    with pytest.raises(ConfigError, match="mirror: .*no-such-mirror is not a folder") as info:
        resolve_mirror(str(missing), tmp_path)
    assert "\n" not in str(info.value) and "mirror: auto" in str(info.value)
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(ConfigError, match="is not a folder"):
        resolve_mirror(str(tmp_path / "a-file"), tmp_path)
