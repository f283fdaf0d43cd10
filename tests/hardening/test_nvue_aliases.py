"""NVUE YAML snapshots: aliases that expand far beyond the file are refused at once (the
inventory refuses aliases outright, tests/hardening/test_inputs.py); a file that shares a
block with an anchor is read as before."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.paths import ROOT

HEAD = "- header:\n    rev-id: 1.0\n    version: Cumulus Linux 5.9.1\n- set:\n"


def _bomb(levels: int = 9) -> str:
    lines = [
        HEAD,
        "    system:\n      hostname: leaf1\n",
        f"    x0: &a0 [{', '.join(['lol'] * 10)}]\n",
    ]
    for i in range(1, levels + 1):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"    x{i}: &a{i} [{refs}]\n")
    return "".join(lines)


def _lint(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rocetune", "lint", str(path), "--platform", "cumulus"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=120,
    )


def test_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(_bomb(), encoding="utf-8")
    assert path.stat().st_size < 2048  # 10^10 values once expanded
    start = time.monotonic()
    done = _lint(path)
    took = time.monotonic() - start
    assert done.returncode == 2, done.stderr
    assert f"{path}:" in done.stderr
    assert "alias bomb" in done.stderr
    assert took < 30


def test_a_shared_block_is_read(tmp_path: Path) -> None:
    path = tmp_path / "shared.yaml"
    path.write_text(
        HEAD
        + "    interface:\n"
        + "      swp1:\n        link: &l {mtu: 9216, state: {up: {}}}\n        type: swp\n"
        + "      swp2:\n        link: *l\n        type: swp\n"
        + "    system:\n      hostname: leaf1\n",
        encoding="utf-8",
    )
    done = _lint(path)
    assert done.returncode in (0, 1), done.stderr
    assert "alias bomb" not in done.stderr
