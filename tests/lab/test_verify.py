"""``rocetune verify`` against the SSH device lab: perftest pairs, counters, cleanup."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lab.lab import (
    FIXTURES,
    LabServer,
    freeze_fabric,
    lab_fabric_devices,
    live_inventory,
    run_cli,
    start_lab,
)
from tests.report.test_html import Page

PERF = FIXTURES / "perftest" / "lab"
DEFAULTS = {
    "ib_write_bw": {
        "client": str(PERF / "ib_write_bw_client_400g.txt"),
        "server": str(PERF / "ib_write_bw_server_400g.txt"),
    },
    "ib_send_lat": {
        "client": str(PERF / "ib_send_lat_client.txt"),
        "server": str(PERF / "ib_send_lat_server.txt"),
    },
}
OVERRIDES: dict[str, dict[str, Any]] = {
    "gpu02": {"ib_write_bw mlx5_1": {"client": str(PERF / "ib_write_bw_client_low.txt")}},
    "gpu03": {
        "ib_write_bw mlx5_0": {
            "client": str(PERF.parent / "ib_write_bw_client_couldnt_connect.txt"),
            "client_exit": 1,
        }
    },
    "gpu04": {"ib_write_bw mlx5_1": {"client": str(PERF / "ib_write_bw_client_impossible.txt")}},
}
GROWTH = {
    "eth3": {"rx_prio3_discards": 40},
    "mlx5_1": {"out_of_sequence": 12, "packet_seq_err": 3},
}
PAIRS = """\
# client server
gpu01:eth2 gpu02:eth2   # good
gpu02:eth3 gpu03:eth3   # under 90 % of line rate
gpu03:eth2 gpu04:eth2   # the client cannot connect
gpu04:eth3 gpu01:eth3   # impossible bandwidth, drops and retries on gpu04
"""
SLOW = {"ib_send_lat mlx5_1": {"client_delay_ms": 60_000}}


@pytest.fixture(scope="module")
def vlab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """The example fabric with perftest on the hosts; gpu01 also has a hanging client."""
    root = tmp_path_factory.mktemp("vlab")
    fabric = freeze_fabric(root / "fabric")
    devices = lab_fabric_devices(fabric)
    for name in ("gpu01", "gpu02", "gpu03", "gpu04"):
        devices[name]["perftest"] = {**DEFAULTS, **OVERRIDES.get(name, {})}
    devices["gpu04"]["counter_growth"] = GROWTH
    devices["gpu01"]["perftest"].update(SLOW)
    server = start_lab(devices, root / "server")
    server.fabric = fabric
    try:
        yield server
    finally:
        server.stop()


def _verify(lab: LabServer, tmp: Path, pairs: str, *args: str) -> Any:
    inventory = live_inventory(lab, tmp / "inventory.yaml")
    (tmp / "pairs.txt").write_text(pairs, encoding="utf-8")
    known = lab.known_hosts(tmp / "known_hosts")
    common = ("--pairs", tmp / "pairs.txt", "--known-hosts", known, "--duration", "1")
    return run_cli("verify", inventory, *common, *args)


def _verify_findings(report: str) -> list[tuple[str, str, str | None]]:
    data = json.loads(report)
    return sorted(
        (f["code"], f["device"], f.get("port"))
        for f in data["findings"]
        if f["code"][:3] in ("RT8", "RT9")
    )


def test_verify_pairs(vlab: LabServer, tmp_path: Path) -> None:
    run = _verify(vlab, tmp_path, PAIRS, "--tests", "bw", "--format", "json")
    assert run.code == 1, run.err
    assert _verify_findings(run.out) == [
        ("RT801", "gpu04", "eth3"),
        ("RT802", "gpu04", "eth3"),
        ("RT901", "gpu02", "eth3"),
        ("RT903", "gpu04", "eth3"),
        ("RT904", "gpu03", "eth2"),
    ]
    rt904 = next(f for f in json.loads(run.out)["findings"] if f["code"] == "RT904")
    assert "Couldn't connect to 192.168.125.211:18515" in rt904["message"]
    rows = [
        (
            v["pair"]["client"],
            v["pair"]["server"],
            v["test"],
            v["percent_of_line_rate"],
            v["verdict"],
        )
        for v in json.loads(run.out)["verify"]
    ]
    assert rows == [
        ("gpu01:eth2", "gpu02:eth2", "bw", 98.12, "pass"),
        ("gpu02:eth3", "gpu03:eth3", "bw", 75.3, "low"),
        ("gpu03:eth2", "gpu04:eth2", "bw", None, "failed"),
        ("gpu04:eth3", "gpu01:eth3", "bw", 203.14, "impossible"),
    ]
    assert vlab.running_servers() == []


def test_verify_html_report(vlab: LabServer, tmp_path: Path) -> None:
    """`--format html -o`: the Verification section, one bar per pair, no results table text."""
    out = tmp_path / "report.html"
    run = _verify(vlab, tmp_path, PAIRS, "--tests", "bw", "--format", "html", "-o", str(out))
    assert run.code == 1, run.err
    html = out.read_text(encoding="utf-8")
    assert "perftest results per pair" not in html
    page = Page(html)
    assert len(page.all("section", id="verification")) == 1
    bars = page.all("rect", cls="bar")
    assert [b["class"] for b in bars] == [
        "bar lvl-ok",
        "bar lvl-error",
        "bar lvl-error",
        "bar lvl-error",  # impossible (above line rate, RT903): an error, red like any other
    ]
    assert [r["data-client"] for r in page.all("tr", cls="verify-row")] == [
        "gpu01:eth2",
        "gpu02:eth3",
        "gpu03:eth2",
        "gpu04:eth3",
    ]
    assert vlab.running_servers() == []


def test_verify_text_table(vlab: LabServer, tmp_path: Path) -> None:
    run = _verify(vlab, tmp_path, PAIRS, "--tests", "bw,lat")
    assert run.code == 1, run.err
    table = run.out.split("\n\n", 1)[0].splitlines()
    assert table == [
        "perftest results per pair:",
        "  client      server      bandwidth    line rate  latency  result",
        "  gpu01:eth2  gpu02:eth2  392.47 Gb/s  98.1%      1.93 us  pass",
        "  gpu02:eth3  gpu03:eth3  301.18 Gb/s  75.3%      1.93 us  bw low",
        "  gpu03:eth2  gpu04:eth2  -            -          1.93 us  bw failed",
        "  gpu04:eth3  gpu01:eth3  812.55 Gb/s  203.1%     1.93 us  bw impossible",
    ]
    assert vlab.running_servers() == []


def test_server_stopped_after_client_timeout(vlab: LabServer, tmp_path: Path) -> None:
    """gpu01's ib_send_lat client on mlx5_1 hangs: `timeout` stops it, the server is killed."""
    before = len(vlab.perftest_events())
    run = _verify(
        vlab,
        tmp_path,
        "gpu01:eth3 gpu02:eth2\n",
        "--tests",
        "lat",
        "--test-timeout",
        "2",
        "--format",
        "json",
    )
    assert run.code == 1, run.err
    findings = [f for f in json.loads(run.out)["findings"] if f["code"] == "RT904"]
    assert [(f["device"], f["port"], f["observed"]) for f in findings] == [
        ("gpu01", "eth3", "truncated")
    ]
    assert "timed out after 2 s" in findings[0]["message"]
    events = vlab.perftest_events()[before:]
    assert [(e, d, port) for e, d, _, port in events] == [
        ("start", "gpu02", 18515),
        ("kill", "gpu02", 18515),
    ]
    assert vlab.running_servers() == []


def test_dry_run_exact(vlab: LabServer, tmp_path: Path) -> None:
    (tmp_path / "pairs.txt").write_text("gpu01:eth2 gpu04:eth3\n", encoding="utf-8")
    before = vlab.sessions()
    run = run_cli("verify", vlab.fabric, "--pairs", tmp_path / "pairs.txt", "--dry-run")
    assert (run.code, run.err) == (0, "")
    assert run.out == (
        "# 2 round(s) (lower bound 2)\n"
        "round 1:\n"
        "  gpu04 server: ib_write_bw -d mlx5_1 -x 3 --tclass=106 -m 4096 -F --report_gbits"
        " -q 4 -s 65536 -D 10 -p 18515\n"
        "  gpu01 client: ib_write_bw -d mlx5_0 -x 3 --tclass=106 -m 4096 -F --report_gbits"
        " -q 4 -s 65536 -D 10 -p 18515 10.0.1.4\n"
        "round 2:\n"
        "  gpu04 server: ib_send_lat -d mlx5_1 -x 3 --tclass=106 -m 4096 -F -s 8 -n 10000"
        " -p 18515\n"
        "  gpu01 client: ib_send_lat -d mlx5_0 -x 3 --tclass=106 -m 4096 -F -s 8 -n 10000"
        " -p 18515 10.0.1.4\n"
    )
    assert vlab.sessions() == before, "a dry run connects to nothing"
