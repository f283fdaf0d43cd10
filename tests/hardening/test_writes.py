"""Concurrent runs and write failures: a lock per output directory, atomic files, one-line
errors naming the path (exit 2) for read-only and full file systems, nothing completed lost.

Read-only and full file systems are real: small tmpfs mounts (the suite runs as root in
CI); where mounting is not allowed the test says so and is skipped.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rocetune.outputs import LOCK_FILE, DirectoryLock
from tests.lab.lab import ROOT, LabServer, lab_env, live_inventory

LAB = ROOT / "inventories" / "lab" / "inventory.yaml"


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rocetune", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=lab_env(),
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def closed_port_inventory(tmp_path: Path) -> Path:
    """One switch on a loopback port nobody listens on (refused at once, never elsewhere)."""
    inv = tmp_path / "inventory.yaml"
    inv.write_text(
        "devices:\n  sw1: {host: 127.0.0.1, port: 1, platform: sonic, role: leaf}\n",
        encoding="utf-8",
    )
    return inv


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[callable]:  # type: ignore[valid-type]
    mounted: list[Path] = []

    def mount(name: str, options: str) -> Path:
        where = tmp_path / name
        where.mkdir()
        res = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
            capture_output=True,
            text=True,
            check=False,
        )
        if res.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {res.stderr.strip()}")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_second_run_into_one_directory_is_refused_with_the_owner(tmp_path: Path) -> None:
    out = tmp_path / "snaps"
    with DirectoryLock(out):
        res = cli("collect", closed_port_inventory(tmp_path), "-o", out, "--insecure-host-keys")
    assert res.returncode == 2, res.stderr
    assert f"in use by pid {os.getpid()}" in res.stderr
    assert "connecting" not in res.stderr.lower() or "collecting" not in res.stderr.lower()


def test_stale_lock_of_a_dead_run_is_taken_over(tmp_path: Path) -> None:
    out = tmp_path / "snaps"
    out.mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    lock = {"pid": dead.pid, "host": os.uname().nodename, "user": "x", "started": "then"}
    (out / LOCK_FILE).write_text(json.dumps(lock), encoding="utf-8")
    res = cli("collect", closed_port_inventory(tmp_path), "-o", out, "--insecure-host-keys")
    assert res.returncode == 3, res.stderr  # refused TCP, not a lock error
    assert not (out / LOCK_FILE).exists(), "the lock is released after the run"


def test_read_only_output_fails_before_connecting(tmp_path: Path, tmpfs) -> None:  # type: ignore[no-untyped-def]
    ro = tmpfs("ro", "ro,size=1m")
    res = cli(
        "collect", closed_port_inventory(tmp_path), "-o", ro / "snaps", "--insecure-host-keys"
    )
    assert res.returncode == 2, res.stderr
    assert "Read-only file system" in res.stderr
    assert str(ro / "snaps") in res.stderr
    assert [ln for ln in res.stderr.splitlines() if "error" in ln] == [
        res.stderr.strip().splitlines()[-1]
    ], res.stderr
    assert "collecting" not in res.stderr, "nothing was collected"


def test_full_disk_keeps_what_was_written_and_exits_2(
    lab: LabServer,
    tmp_path: Path,
    tmpfs,  # type: ignore[no-untyped-def]
) -> None:
    small = tmpfs("small", "size=96k")
    filler = small / "filler"
    with filler.open("wb") as fh:  # leave ~40 KiB: one small host snapshot, not a switch
        try:
            fh.write(b"\0" * (56 * 1024))
        except OSError:
            pytest.skip("tmpfs smaller than expected")
    inventory = live_inventory(
        lab,
        tmp_path / "inventory.yaml",
        extra={"x-host-exec": {"platform": "linux_host", "role": "host", "nics": ["eth2"]}},
    )
    out = small / "snaps"
    res = cli(
        "collect", inventory, "-o", out, "--insecure-host-keys",
        "--device", "x-host-exec", "--device", "leaf1",
    )  # fmt: skip
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert "No space left on device" in res.stderr
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("rocetune: error: cannot write snapshots:"), res.stderr
    for name in ("x-host-exec", "leaf1"):
        if (out / name).exists():  # whatever was written is complete
            assert (out / name / "meta.json").is_file()
    assert not list(out.glob(".*.tmp-*")), "no half-written snapshot is left behind"


def test_report_file_is_replaced_atomically(tmp_path: Path, tmpfs) -> None:  # type: ignore[no-untyped-def]
    small = tmpfs("small", "size=64k")
    report = small / "report.json"
    report.write_text('{"old": true}\n', encoding="utf-8")
    with (small / "filler").open("wb") as fh, contextlib.suppress(OSError):
        fh.write(b"\0" * (60 * 1024))
    res = cli("audit", LAB, "--format", "json", "-o", report)
    assert res.returncode == 2, res.stderr
    assert "No space left on device" in res.stderr
    assert report.read_text(encoding="utf-8") == '{"old": true}\n', "the old report is intact"
    assert [p.name for p in small.iterdir() if p.name.startswith(".")] == []


def test_lock_file_does_not_disturb_snapshot_readers(tmp_path: Path) -> None:
    fabric = tmp_path / "lab"
    shutil.copytree(LAB.parent, fabric)
    (fabric / "snapshots" / LOCK_FILE).write_text("{}", encoding="utf-8")
    res = cli("audit", fabric / "inventory.yaml", "--format", "json")
    assert res.returncode == 1, res.stderr
