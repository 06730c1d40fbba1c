"""Every rule of the workflow declares its threads, memory and runtime (config.yaml's `resources`, through
job_mem_mb / job_runtime or a decode job's own bound), so that no cluster job falls back to a scheduler default
(profiles/slurm sets none)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULE = re.compile(r"^(\s*)(?:rule|checkpoint)\b[^\n]*:\n", re.M)


def _rule_blocks(text: str) -> list[str]:
    """Each rule's text: from its `rule` line to the next line indented as little or less."""
    blocks = []
    for match in RULE.finditer(text):
        indent = len(match.group(1))
        body = []
        for line in text[match.end() :].splitlines():
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            body.append(line)
        blocks.append("\n".join(body))
    return blocks


def test_every_rule_declares_threads_memory_and_runtime():
    checked = 0
    for path in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        for block in _rule_blocks(path.read_text(encoding="utf-8")):
            name = re.search(r"^\s*name:\s*\n?\s*(\S+)", block, re.M)
            where = f"{path.name}: {name.group(1) if name else block.splitlines()[0] if block else '?'}"
            if re.search(r"^\s*(localrule: True)", block, re.M):
                continue
            assert re.search(r"^\s*threads:", block, re.M), where
            assert re.search(r"^\s*mem_mb=", block, re.M) and re.search(r"^\s*runtime=", block, re.M), where
            checked += 1
    assert checked >= 30


def test_the_slurm_profile_sets_no_fallback_resources():
    profile = (ROOT / "profiles" / "slurm" / "profile.yaml").read_text(encoding="utf-8")
    defaults = re.search(r"^default-resources:\n((?:  .*\n)+)", profile, re.M).group(1)
    assert "mem_mb" not in defaults and "runtime" not in defaults
