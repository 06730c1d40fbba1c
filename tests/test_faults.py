"""Faults a job meets in its files, tested without Snakemake: the checksums that tell a complete input from a
damaged one, the one-line errors of a job that finds one or runs out of disk or memory, and the readers of each
kind of file a job reads (records, instance shards, models, prepared corpora, provenance) on truncated and
garbled copies. tests/test_faults_workflow.py runs the same faults through the workflow."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from decoders.corpora.sentences import read_sentences
from decoders.errors import CorpusFormatError
from decoders.harness.instances import read_instance_shard, write_instance_shards
from decoders.harness.provenance import collect_provenance, read_provenance, write_provenance
from decoders.harness.records import RecordError, read_records
from decoders.io import (
    checksum_mismatch,
    checksum_path,
    is_checksum_file,
    load_npz,
    move_aside,
    read_json,
    read_parquet,
    record_checksum,
    save_npz,
    write_parquet_atomic,
)
from decoders.workflow import starved_message


def truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def garble(path: Path, offset: float = 0.5) -> None:
    """Flip every bit of 16 bytes from ``offset`` (a fraction of the size) on: same size, other content."""
    data = bytearray(path.read_bytes())
    start = int(len(data) * offset)
    for i in range(start, min(start + 16, len(data))):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))


# -- checksums -------------------------------------------------------------------------------------------------


def test_checksum_tells_complete_truncated_and_garbled_files_apart(tmp_path):
    path = tmp_path / "out.bin"
    path.write_bytes(bytes(range(256)) * 40)
    assert checksum_mismatch(path) is None  # nothing recorded: nothing to check against
    digest = record_checksum(path)
    sidecar = checksum_path(path)
    assert (
        sidecar == tmp_path / ".out.bin.sha256" and is_checksum_file(sidecar) and not is_checksum_file(path)
    )
    assert sidecar.read_text().split() == [digest, "10240"]
    assert checksum_mismatch(path) is None
    garble(path)
    assert "(same size: garbled)" in checksum_mismatch(path)
    truncate(path)
    assert checksum_mismatch(path) == "5,120 bytes where the job that wrote it left 10,240 (truncated)"
    sidecar.write_text("not a checksum\n")
    assert "is garbled" in checksum_mismatch(path)
    aside = move_aside(path)
    assert aside == tmp_path / "out.bin.corrupt" and aside.is_file()
    assert not path.exists() and not sidecar.exists()


SCRIPT = """
import sys, types
from pathlib import Path
from decoders.workflow import start_script

class Named(list):
    def __init__(self, **named):
        super().__init__(named.values())
        self.named = named

    def items(self):
        return self.named.items()

work = Path(sys.argv[1])
mode = sys.argv[2]
snakemake = types.SimpleNamespace(
    rule="toy_rule",
    log=[str(work / "job.log")],
    input=[str(work / "in-1.txt"), str(work / "in-2.txt")],
    output=[str(work / "out.txt")],
    wildcards=Named(dataset="wsj", shard="0"),
)
start_script(snakemake)
if mode == "bug":
    raise RuntimeError("a bug")
if mode == "disk":
    raise OSError(28, "No space left on device", str(work / "out.txt"))
if mode == "memory":
    raise MemoryError("Unable to allocate 8.00 GiB")
Path(snakemake.output[0]).write_text("done\\n")
"""


def run_job(work: Path, mode: str) -> subprocess.CompletedProcess:
    script = work / "job.py"
    script.write_text(textwrap.dedent(SCRIPT))
    return subprocess.run(
        [sys.executable, str(script), str(work), mode], capture_output=True, text=True, timeout=120
    )


@pytest.fixture()
def job_dir(tmp_path):
    for name in ("in-1.txt", "in-2.txt"):
        (tmp_path / name).write_text(f"{name} " * 100)
        record_checksum(tmp_path / name)
    return tmp_path


def test_a_job_that_ends_well_records_its_outputs_checksums(job_dir):
    stale = checksum_path(job_dir / "out.txt")
    stale.write_text("0" * 64 + " 1\n")  # an earlier run's: dropped when the job starts
    partial = [job_dir / ".out.txt.abc123.part", job_dir / "..out.txt.sha256.abc123.part"]
    for path in partial:  # the temporary files of a killed run's atomic writes: removed when the job starts
        path.write_text("half")
    result = run_job(job_dir, "ok")
    assert result.returncode == 0, result.stderr
    assert not any(path.exists() for path in partial)
    assert checksum_mismatch(job_dir / "out.txt") is None and stale.read_text().split()[1] == "5"


def test_a_failed_job_records_no_checksum(job_dir):
    result = run_job(job_dir, "bug")
    assert result.returncode == 1
    assert not checksum_path(job_dir / "out.txt").exists()
    assert "Traceback" in (job_dir / "job.log").read_text()  # a bug keeps its traceback


def test_a_damaged_input_is_named_moved_aside_and_the_job_reads_nothing(job_dir):
    truncate(job_dir / "in-1.txt")
    garble(job_dir / "in-2.txt")
    result = run_job(job_dir, "ok")
    assert result.returncode == 1
    log = (job_dir / "job.log").read_text()
    assert "Traceback" not in log and len(log.strip().splitlines()) == 1, log
    assert "ERROR decoders.rule.toy_rule: CorruptedFileError: input(s) damaged" in log
    assert f"{job_dir / 'in-1.txt'}: 450 bytes where the job that wrote it left 900 (truncated)" in log
    assert (
        f"{job_dir / 'in-2.txt'}: sha256 " in log
        and "(same size: garbled); moved aside to in-2.txt.corrupt" in log
    )
    assert log.rstrip().endswith("Run snakemake again: it rebuilds them.")
    assert not (job_dir / "in-1.txt").exists() and (job_dir / "in-1.txt.corrupt").is_file()
    assert not (job_dir / "out.txt").exists() and not checksum_path(job_dir / "out.txt").exists()


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("disk", "job toy_rule (dataset=wsj, shard=0): the disk is full writing "),
        (
            "memory",
            "job toy_rule (dataset=wsj, shard=0): out of memory (MemoryError: Unable to allocate 8.00 GiB)",
        ),
    ],
)
def test_a_starved_job_says_so_in_one_line_in_its_log_and_on_the_terminal(job_dir, mode, expected):
    result = run_job(job_dir, mode)
    assert result.returncode == 1
    log = (job_dir / "job.log").read_text()
    assert expected in log and "Traceback" not in log
    assert expected in result.stderr and "run snakemake again" in result.stderr.lower()


def test_starved_message_knows_a_full_disk_by_errno_or_by_pyarrows_text():
    assert "the disk is full" in starved_message(OSError(errno.EDQUOT, "Disk quota exceeded"))
    arrow = OSError("Error writing bytes to file. Detail: [errno 28] No space left on device")
    assert "the disk is full" in starved_message(arrow)
    assert starved_message(OSError(errno.EACCES, "Permission denied")) is None
    assert starved_message(ValueError("no")) is None


# -- readers of each kind of file a job reads --------------------------------------------------------------------

DAMAGE = {"truncated": truncate, "garbled": garble}


@pytest.fixture(params=sorted(DAMAGE))
def damage(request):
    return DAMAGE[request.param]


def records_file(path: Path) -> Path:
    from decoders.harness.protocol import Solution
    from decoders.harness.records import make_record, records_frame, write_records

    rows = [
        make_record(
            experiment="toy",
            dataset="set",
            variant="v",
            params={},
            instance_id=f"i{i}",
            size=i + 1,
            seconds=0.001 * i,
            solution=Solution(structure=[i], objective=float(i), bound=float(i), status="optimal", stats={}),
        )
        for i in range(200)
    ]
    write_records(path, records_frame(rows))
    return path


def test_records_reader_names_a_damaged_file(tmp_path, damage):
    path = records_file(tmp_path / "shard-0.parquet")
    assert len(read_records(path)) == 200
    damage(path)
    with pytest.raises(
        RecordError, match=rf"{path}: cannot read result records: .*not a readable parquet file"
    ):
        read_records(path)


def test_parquet_pages_carry_checksums_that_catch_a_flipped_byte(tmp_path):
    """A byte changed inside a data page would decompress to other values without the page's CRC."""
    path = tmp_path / "frame.parquet"
    write_parquet_atomic(path, pd.DataFrame({"x": np.arange(5000, dtype=np.int64)}))
    garble(path, offset=0.3)
    with pytest.raises(CorpusFormatError, match=rf"{path}: not a readable parquet file"):
        read_parquet(path)


def test_instance_shard_reader_names_a_damaged_file(tmp_path, damage):
    shard, index = tmp_path / "shard-0.pkl", tmp_path / "index.tsv"
    items = [(f"s{i}", 10, {"scores": np.arange(100.0) * i}) for i in range(20)]
    write_instance_shards(items, [shard], index)
    assert len(read_instance_shard(shard)) == 20
    damage(
        shard, **({"offset": 0.02} if damage is garble else {})
    )  # the pickle's opcodes, not an array's bytes
    with pytest.raises(CorpusFormatError, match=rf"{shard}: not a readable instance shard"):
        read_instance_shard(shard)


def test_model_reader_names_a_damaged_file(tmp_path, damage):
    """Models are .npz (chains, bnb, ppc): zip's CRC per array catches a changed byte."""
    path = tmp_path / "model.npz"
    save_npz(path, {"weights": np.random.default_rng(0).normal(size=5000)})
    damage(path)
    with pytest.raises(CorpusFormatError, match=rf"{path}: not a readable .npz file"):
        load_npz(path, ["weights"])


def test_prepared_corpus_reader_names_a_damaged_file(tmp_path, damage):
    from decoders.corpora.sentences import sentence_frame

    rows = [
        {
            "sent_id": f"s{i}",
            "doc_id": "d",
            "words": ["a", "b", "c"] * 20,
            "coarse_tags": ["X"] * 60,
            "tags": ["NN"] * 60,
            "heads": [0] + [1] * 59,
            "deprels": ["root"] + ["dep"] * 59,
        }
        for i in range(50)
    ]
    path = tmp_path / "train.parquet"
    write_parquet_atomic(path, sentence_frame(rows))
    assert len(read_sentences(path)) == 50
    # a page's CRC covers its data, not every byte of the file's metadata: the workflow's checksums
    # (test_checksum_tells_...) catch a change anywhere, this reader the damage within a data page
    damage(path, **({"offset": 0.1} if damage is garble else {}))
    with pytest.raises(CorpusFormatError, match=rf"{path}: not a readable parquet file"):
        read_sentences(path)


def test_provenance_reader_names_a_damaged_or_incomplete_file(tmp_path, damage):
    path = tmp_path / "shard-0.json"
    write_provenance(path, collect_provenance(seed=1, config={"a": 1}))
    assert read_provenance(path)["seed"] == 1
    damage(path, **({"offset": 0.0} if damage is garble else {}))
    with pytest.raises(CorpusFormatError, match=rf"{path}: not a readable JSON file"):
        read_provenance(path)
    path.write_text(json.dumps({"git_commit": "abc"}))
    with pytest.raises(CorpusFormatError, match=rf"{path}: provenance lacks key\(s\) git_dirty, packages"):
        read_provenance(path)
    path.write_text("[1, 2]")
    with pytest.raises(CorpusFormatError, match="must be a JSON object, not list"):
        read_provenance(path)


def test_json_reader_keeps_a_missing_file_a_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_json(tmp_path / "none.json")
    with pytest.raises(FileNotFoundError):
        read_parquet(tmp_path / "none.parquet")
    (tmp_path / "bad.json").write_bytes(b"\xff\xfe{")
    with pytest.raises(CorpusFormatError, match="bad.json: not a readable JSON file"):
        read_json(tmp_path / "bad.json")


def test_titles_model_reader_names_a_damaged_file(tmp_path):
    from decoders.titles.pipeline import TitleModel

    path = tmp_path / "model.pkl"
    path.write_bytes(os.urandom(2000))
    with pytest.raises(CorpusFormatError, match=rf"{path}: not a pickled title model"):
        TitleModel.load(path)
