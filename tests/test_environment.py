"""pyproject.toml declares ranges, constraints.txt pins every installed package, environment.yml pins the same
versions as constraints.txt: the three agree."""

from __future__ import annotations

import re
import tomllib

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def _pins(lines, where):
    pins = {}
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*==\s*(\S+)", line)
        assert match, f"{where}: not pinned with ==: {line!r}"
        pins[canonicalize_name(match.group(1))] = match.group(2)
    return pins


def test_every_declared_range_holds_its_pin(repo_root):
    """Every requirement of pyproject.toml (run and test) is pinned in constraints.txt inside its range."""
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    pins = _pins((repo_root / "constraints.txt").read_text().splitlines(), "constraints.txt")
    for text in project["dependencies"] + project["optional-dependencies"]["test"]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"constraints.txt does not pin {requirement.name}"
        assert requirement.specifier.contains(pins[name]), f"{text}: constraints.txt pins {pins[name]}"
        assert requirement.specifier, f"{text}: give a range (its pin lives in constraints.txt)"


def test_environment_pins_the_constraints_versions(repo_root):
    """environment.yml holds every direct requirement, at constraints.txt's version, and python at the minimum."""
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    pins = _pins((repo_root / "constraints.txt").read_text().splitlines(), "constraints.txt")
    env = yaml.safe_load((repo_root / "environment.yml").read_text())
    conda, pip = {}, {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip.update(_pins(dep["pip"], "environment.yml"))
        elif "=" in dep:
            name, version = dep.split("=", 1)
            conda[canonicalize_name(name)] = version
    assert conda.pop("python") == project["requires-python"].removeprefix(">=")
    combined = {**conda, **pip}
    direct = {
        canonicalize_name(Requirement(text).name)
        for text in project["dependencies"] + project["optional-dependencies"]["test"]
    }
    assert set(combined) == direct, "environment.yml and pyproject.toml name different packages"
    assert {name: pins[name] for name in direct} == combined, (
        "environment.yml and constraints.txt pin differently"
    )
