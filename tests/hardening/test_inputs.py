"""Inputs are the files the user meant: regular, bounded, no links followed, no alias bombs.

Each case runs the real CLI in a subprocess with a timeout: before the fix, a FIFO hung and
/dev/zero or an alias bomb ran until memory was gone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab"
SECRET = "TOP-SECRET-4f1d9c"


def cli(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rocetune", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
        env={k: v for k, v in os.environ.items() if not k.startswith("ROCETUNE_")},
    )


def _fifo(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


def test_symlink_in_a_snapshot_is_not_followed_and_its_target_never_shown(tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text(f"{SECRET}\nqos trust dscp\n", encoding="utf-8")
    fabric = tmp_path / "lab"
    shutil.copytree(LAB, fabric)
    snap = fabric / "snapshots" / "leaf1"
    (snap / "show_pfc_priority.txt").unlink(missing_ok=True)
    (snap / "show_pfc_priority.txt").symlink_to(secret)
    for fmt in ("json", "sarif", "github", "text", "junit"):
        res = cli("audit", fabric / "inventory.yaml", "--format", fmt)
        assert res.returncode in (0, 1), res.stderr
        assert SECRET not in res.stdout + res.stderr, fmt
    res = cli("audit", fabric / "inventory.yaml", "--format", "json")
    found = [
        f
        for f in json.loads(res.stdout)["findings"]
        if f["code"] == "RT001" and f["device"] == "leaf1" and "symbolic link" in f["message"]
    ]
    assert found, "the refused link is reported"


@pytest.mark.parametrize("option", ["inventory", "--baseline", "--config", "--intent", "lint"])
def test_fifo_and_devices_are_refused_not_read(tmp_path: Path, option: str) -> None:
    inventory = LAB / "inventory.yaml"
    for bad in (_fifo(tmp_path, f"fifo-{option.strip('-')}"), Path("/dev/zero")):
        if option == "inventory":
            res = cli("audit", bad)
        elif option == "lint":
            res = cli("lint", bad)
        elif option == "--intent":
            res = cli("lint", LAB / "snapshots" / "leaf1", "--intent", bad)
        else:
            res = cli("audit", inventory, option, bad)
        assert res.returncode == 2, (option, bad, res.returncode, res.stderr)
        assert "not a regular file" in res.stderr, (option, bad, res.stderr)
        assert res.stderr.count("\n") <= 2, res.stderr


def test_oversized_input_is_refused_with_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "running-config.txt"
    with big.open("wb") as fh:
        fh.truncate(65 * 2**20)  # sparse: costs no disk
    res = cli("lint", big)
    assert res.returncode == 2, res.stderr
    assert "larger than 64 MiB" in res.stderr


def test_alias_bomb_inventory_is_refused_at_its_line(tmp_path: Path) -> None:
    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        levels.append(f"{cur}: &{cur} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]")
    bomb = tmp_path / "inventory.yaml"
    bomb.write_text("devices: {}\nx-bomb:\n  " + "\n  ".join(levels) + "\n", encoding="utf-8")
    res = cli("audit", bomb)
    assert res.returncode == 2, res.stderr
    assert "YAML alias *a is not allowed" in res.stderr
    assert f"{bomb}:4:" in res.stderr
