"""SIGINT/SIGTERM stop a live ``audit`` and a ``verify`` at once, like ``collect`` (test_signals).

- audit: one device drips its output for ever; the signal ends the run within 2 s, exit
  130/143, and says so.
- verify: a perftest client hangs (the lab's ``client_delay_ms``) while its server listens on
  the other host; the signal ends the run within 2 s and the remote server is killed on the
  way out (the lab's perftest record shows the kill; nothing keeps listening).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lab.lab import (
    FIXTURES,
    ROOT,
    LabServer,
    freeze_fabric,
    lab_env,
    lab_fabric_devices,
    live_inventory,
    start_lab,
)

pytestmark = pytest.mark.slow

HOST = {"platform": "linux_host", "role": "host", "nics": ["eth2", "eth3"]}
STOP_WITHIN_S = 2.0
SIGNALS = [(signal.SIGINT, 130, "SIGINT"), (signal.SIGTERM, 143, "SIGTERM")]
PERF = FIXTURES / "perftest" / "lab"


def _popen(*args: str | Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "rocetune", *map(str, args)],
        cwd=ROOT,
        env=lab_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stop(proc: subprocess.Popen[str], signum: int) -> tuple[float, str]:
    sent = time.monotonic()
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    return time.monotonic() - sent, err


def _lines(record: Path) -> list[str]:
    return record.read_text(encoding="utf-8").splitlines() if record.exists() else []


def _wait_for(
    record: Path, device: str, command: str, proc: subprocess.Popen[str], seen: int
) -> None:
    """Until the lab has received ``command`` from ``device`` after the first ``seen`` lines
    of its record (then the command is mid-answer)."""
    deadline = time.monotonic() + 60
    while True:
        if any(
            line.split("\t")[0] == device and command in line.split("\t", 2)[-1]
            for line in _lines(record)[seen:]
        ):
            break
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{device} never got {command!r}"
        time.sleep(0.05)
    time.sleep(0.3)


@pytest.mark.parametrize(("signum", "code", "name"), SIGNALS)
def test_signal_stops_a_live_audit(
    lab: LabServer, tmp_path: Path, signum: int, code: int, name: str
) -> None:
    inventory = live_inventory(lab, tmp_path / "inventory.yaml", extra={"h-drip-host": HOST})
    seen = len(_lines(lab.record))
    proc = _popen(
        "audit",
        inventory,
        "--known-hosts",
        lab.known_hosts(tmp_path / "known_hosts"),
        "--read-timeout",
        "120",
        "--format",
        "json",
    )
    drip = lab.devices["h-drip-host"]["hostile_on"]
    _wait_for(lab.record, "h-drip-host", drip, proc, seen)
    took, err = _stop(proc, signum)
    assert proc.returncode == code, err
    print(f"audit {name}: stopped in {took:.2f} s, exit {proc.returncode}")
    assert took < STOP_WITHIN_S, f"{name}: audit stopped after {took:.2f} s"
    assert f"stopped by {name}" in err


@pytest.fixture(scope="module")
def hanging(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """gpu01 and gpu02 of the example fabric; gpu01's ib_write_bw client never finishes."""
    root = tmp_path_factory.mktemp("siglab")
    fabric = freeze_fabric(root / "fabric")
    devices = lab_fabric_devices(fabric)
    tools = {
        "ib_write_bw": {
            "client": str(PERF / "ib_write_bw_client_400g.txt"),
            "server": str(PERF / "ib_write_bw_server_400g.txt"),
            "client_delay_ms": 600_000,
        }
    }
    for name in ("gpu01", "gpu02"):
        devices[name]["perftest"] = tools
    server = start_lab(devices, root / "server")
    server.fabric = fabric
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize(("signum", "code", "name"), SIGNALS)
def test_signal_stops_verify_and_kills_the_remote_server(
    hanging: LabServer, tmp_path: Path, signum: int, code: int, name: str
) -> None:
    inventory = live_inventory(hanging, tmp_path / "inventory.yaml")
    (tmp_path / "pairs.txt").write_text("gpu01:eth2 gpu02:eth2\n", encoding="utf-8")
    before = len(hanging.perftest_events())
    seen = len(_lines(hanging.record))
    proc = _popen(
        "verify",
        inventory,
        "--pairs",
        tmp_path / "pairs.txt",
        "--known-hosts",
        hanging.known_hosts(tmp_path / "known_hosts"),
        "--tests",
        "bw",
        "--test-timeout",
        "600",
        "--duration",
        "1",
    )
    _wait_for(hanging.record, "gpu01", "ib_write_bw", proc, seen)
    took, err = _stop(proc, signum)
    assert proc.returncode == code, err
    print(f"verify {name}: stopped in {took:.2f} s, exit {proc.returncode}")
    assert took < STOP_WITHIN_S, f"{name}: verify stopped after {took:.2f} s"
    assert f"stopped by {name}" in err
    events = [(e, d) for e, d, _, _ in hanging.perftest_events()[before:]]
    assert ("start", "gpu02") in events
    assert ("kill", "gpu02") in events, events
    assert hanging.running_servers() == []
