"""No planted secret reaches a snapshot, a report in any format, or the terminal."""

from __future__ import annotations

import json
from pathlib import Path

from rocetune.api import audit
from rocetune.report import FORMATS, render
from tests.lab.lab import PASSWORD, LabServer, live_inventory, run_cli
from tests.lab.secrets import PLANTED

SECRET_DEVICES = {
    "s-sonic": "sonic",
    "s-cumulus": "cumulus",
    "s-eos": "eos",
    "s-nxos": "nxos",
    "s-host": "linux_host",
    "s-onyx": "onyx",
    "s-esonic": "enterprise_sonic",
}


def _host(platform: str) -> dict[str, object]:
    return {"nics": ["eth2"]} if platform == "linux_host" else {}


def _offline_inventory(snaps: Path, path: Path) -> Path:
    devices = {
        name: {"platform": platform, "snapshot": str(snaps / name), **_host(platform)}
        for name, platform in SECRET_DEVICES.items()
    }
    path.write_text(json.dumps({"devices": devices}), encoding="utf-8")
    return path


def test_planted_secrets_never_written_or_printed(lab: LabServer, tmp_path: Path) -> None:
    served = "".join(
        Path(f).read_text(encoding="utf-8")
        for name in SECRET_DEVICES
        for f in lab.devices[name]["files"].values()
    )
    missing = [k for k, v in PLANTED.items() if v not in served]
    assert not missing, f"the lab does not serve {missing}"
    extra = {
        name: {"platform": p, "role": "host" if p == "linux_host" else "leaf", **_host(p)}
        for name, p in SECRET_DEVICES.items()
    }
    base = tmp_path / "base.yaml"
    base.write_text("devices: {}\n", encoding="utf-8")
    inventory = live_inventory(lab, tmp_path / "inventory.yaml", base, extra=extra)
    known = lab.known_hosts(tmp_path / "known_hosts")
    snaps, out = tmp_path / "snaps", tmp_path / "out"
    reports = tmp_path / "reports"
    reports.mkdir()
    runs = [
        run_cli("collect", inventory, "-o", out, "--known-hosts", known),
        run_cli(
            "audit", inventory, "--known-hosts", known, "--save-snapshot", snaps,
            "--format", "json", "-o", reports / "live.json",
        ),
    ]  # fmt: skip
    assert runs[0].code == 0, runs[0].err
    live = json.loads((reports / "live.json").read_text(encoding="utf-8"))
    assert {d["status"] for d in live["devices"].values()} == {"ok"}, "redacted outputs parse"
    result = audit(_offline_inventory(snaps, tmp_path / "offline.yaml"))
    for fmt in FORMATS:  # every format, rendered from the collected snapshots
        (reports / f"report.{fmt}").write_text(render(fmt, result), encoding="utf-8")
    texts = {f"run {i} stdout/stderr": r.out + r.err for i, r in enumerate(runs)}
    for root in (snaps, out, reports):
        for path in root.rglob("*"):
            if path.is_file():
                texts[str(path)] = path.read_text(encoding="utf-8", errors="replace")
    assert len([t for t in texts if t.startswith(str(reports))]) == len(FORMATS) + 1
    secrets = {**PLANTED, "ssh password": PASSWORD}
    leaks = [(k, where) for where, text in texts.items() for k, v in secrets.items() if v in text]
    assert leaks == []
    redacted = "".join(texts[str(p)] for p in out.rglob("*") if p.is_file())
    assert redacted.count("<redacted>") >= len(PLANTED)
