"""pyproject.toml and environment.yml pin the same versions of the same packages."""

from __future__ import annotations

import re
import tomllib

import yaml

# conda-forge names of PyPI packages where the two differ
CONDA_NAMES = {"pyyaml": "pyyaml", "scikit-learn": "scikit-learn"}


def _pins(requirements):
    pins = {}
    for requirement in requirements:
        match = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)\s*==\s*([^\s;#]+)\s*", requirement)
        assert match, f"not pinned with ==: {requirement!r}"
        pins[match.group(1).lower()] = match.group(2)
    return pins


def test_pyproject_and_environment_pins_agree(repo_root):
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    pypi = _pins(project["dependencies"] + project["optional-dependencies"]["test"])
    env = yaml.safe_load((repo_root / "environment.yml").read_text())
    conda, pip = {}, {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip.update(_pins(dep["pip"]))
        elif "=" in dep:
            name, version = dep.split("=", 1)
            conda[name.lower()] = version
    assert conda.pop("python") == project["requires-python"].removeprefix(">=")
    combined = {**{CONDA_NAMES.get(k, k): v for k, v in conda.items()}, **pip}
    assert combined == pypi, "environment.yml and pyproject.toml pin different packages or versions"
