"""The pre-commit hook definition parses, matches config files, and its entry runs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.cli.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture(scope="module")
def hook() -> dict[str, Any]:
    hooks = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert isinstance(hooks, list)
    assert len(hooks) == 1
    found: dict[str, Any] = hooks[0]
    return found


def entry_argv(entry: str) -> list[str]:
    """The hook entry as pre-commit would run it (console script, else `python -m`)."""
    words = entry.split()
    assert words[0] == "rocetune"
    script = shutil.which("rocetune", path=str(Path(sys.executable).parent))
    head = [script] if script else [sys.executable, "-m", "rocetune"]
    return head + words[1:]


def test_hook_fields(hook: dict[str, Any]) -> None:
    assert hook["id"] == "rocetune"
    assert hook["name"]
    assert hook["entry"] == "rocetune lint --force-exclude"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is True


@pytest.mark.parametrize(
    ("path", "matches"),
    [
        ("configs/leaf1/config_db.json", True),
        ("config_db.json", True),
        ("sonic/config_db0.json", True),
        ("etc/nvue.d/startup.yaml", True),
        ("cumulus/leaf3.nvue.yaml", True),
        ("cumulus/leaf3.nvue.txt", True),
        ("inventory.yaml", False),
        ("README.md", False),
        ("package.json", False),
        ("docs/config_db.json.md", False),
    ],
)
def test_default_files_pattern(hook: dict[str, Any], path: str, matches: bool) -> None:
    assert bool(re.search(hook["files"], path)) is matches


def test_entry_runs(hook: dict[str, Any]) -> None:
    argv = entry_argv(hook["entry"])
    helped = subprocess.run([*argv, "--help"], capture_output=True, text=True, check=False)
    assert helped.returncode == 0, helped.stderr
    assert "Lint saved config files" in helped.stdout
    files = [FIXTURES / "diff" / "base" / "leaf3.nvue.yaml"]
    assert all(re.search(hook["files"], f.as_posix()) for f in files)
    ran = subprocess.run(
        [*argv, *map(str, files)], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert ran.returncode in {0, 1}, ran.stderr
    assert "device(s) checked" in ran.stdout
