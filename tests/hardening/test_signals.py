"""SIGINT and SIGTERM stop a collection at once, keep what was completed, and say so.

The CLI runs in a subprocess against the SSH lab; one device drips its output for ever,
so before the fix the run waited for it (Ctrl-C exited 1 after the read timeout, SIGTERM
left --processes workers running).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.lab.lab import ROOT, LabServer, lab_env, live_inventory

pytestmark = pytest.mark.slow

HOST = {"platform": "linux_host", "role": "host", "nics": ["eth2", "eth3"]}
STOP_WITHIN_S = 2.0


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        text = (task / "children").read_text(encoding="ascii") if task.exists() else ""
        found.update(int(c) for c in text.split())
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _start(lab: LabServer, tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[str], Path]:
    inventory = live_inventory(lab, tmp_path / "inventory.yaml", extra={"h-drip-host": HOST})
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rocetune",
            "collect",
            str(inventory),
            "-o",
            str(out),
            "--insecure-host-keys",
            "--read-timeout",
            "120",
            "--device",
            "leaf1",
            "--device",
            "leaf2",
            "--device",
            "h-drip-host",
            *extra,
        ],
        cwd=ROOT,
        env=lab_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not ((out / "leaf1" / "meta.json").is_file() and (out / "leaf2" / "meta.json").is_file()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the fast devices were not collected"
        time.sleep(0.05)
    time.sleep(0.3)  # the dripping host is now mid-read
    return proc, out


@pytest.mark.parametrize(
    ("signum", "code", "name"),
    [(signal.SIGINT, 130, "SIGINT"), (signal.SIGTERM, 143, "SIGTERM")],
)
def test_signal_stops_collect_and_keeps_completed(
    lab: LabServer, tmp_path: Path, signum: int, code: int, name: str
) -> None:
    proc, out = _start(lab, tmp_path)
    sent = time.monotonic()
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    took = time.monotonic() - sent
    assert proc.returncode == code, err
    print(f"collect {name}: stopped in {took:.2f} s, exit {proc.returncode}")
    assert took < STOP_WITHIN_S, f"{name}: stopped after {took:.2f} s"
    assert f"stopped by {name}" in err
    assert "interrupted: 2 of 3 device(s) were collected" in err, err
    assert (out / "leaf1" / "meta.json").is_file()
    assert not (out / "h-drip-host").exists(), "an unfinished device leaves no snapshot"


def test_sigterm_takes_the_worker_processes_with_it(lab: LabServer, tmp_path: Path) -> None:
    proc, _ = _start(lab, tmp_path, "--processes", "2")
    children = _children(proc.pid)
    assert children, "--processes 2 forks workers"
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    assert proc.returncode == 143
    deadline = time.monotonic() + STOP_WITHIN_S
    while any(_alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [c for c in children if _alive(c)]
    for c in left:
        os.kill(c, signal.SIGKILL)
    assert not left, f"worker processes left running: {left}"
