"""Enterprise SONiC over the lab: netmiko ``dell_sonic`` through bash, ``sonic-cli`` and the
Klish modes of the ``klish`` engine."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rocetune.snapshot import read_meta
from tests.lab.lab import LabServer, run_cli
from tests.paths import CORPUS

RUNNING = CORPUS / "enterprise_sonic/amd_rocm_z9664f_dcqcn_running_config.txt"


def _inventory(lab: LabServer, path: Path) -> Path:
    entry = {
        "platform": "enterprise_sonic",
        "role": "leaf",
        "host": "127.0.0.1",
        "port": lab.ports["x-esonic"],
    }
    path.write_text(json.dumps({"devices": {"x-esonic": entry}}), encoding="utf-8")
    return path


def test_live_collect_and_lint(lab: LabServer, tmp_path: Path) -> None:
    inventory = _inventory(lab, tmp_path / "inventory.yaml")
    known = lab.known_hosts(tmp_path / "known_hosts")
    out = tmp_path / "out"
    res = run_cli("collect", inventory, "-o", out, "--known-hosts", known)
    assert res.code == 0, res.err
    got = (out / "x-esonic" / "show_running_configuration.txt").read_text(encoding="utf-8")
    assert got == RUNNING.read_text(encoding="utf-8")
    meta = read_meta(out / "x-esonic")
    assert (meta.platform, [r.command for r in meta.commands]) == (
        "enterprise_sonic",
        ["show running-configuration"],
    )
    sent = lab.sessions()["x-esonic"][-1]
    assert sent[:2] == ["sonic-cli", "terminal length 0"], sent
    lint = run_cli("lint", "--format", "json", out / "x-esonic")
    assert lint.code in (0, 1), lint.err
    report = json.loads(lint.out)
    assert report["devices"]["x-esonic"]["status"] == "ok"
    assert {f["code"] for f in report["findings"]} >= {"RT202", "RT402"}


def test_plan_applied_on_the_lab_device_lints_clean(lab: LabServer, tmp_path: Path) -> None:
    """Paste the plan into the lab's Klish device with netmiko, collect again, lint."""
    from netmiko import ConnectHandler

    from tests.render.test_esonic_plan import LEAF9, _plan

    snap = tmp_path / "leaf9"
    shutil.copytree(LEAF9, snap)
    plan = _plan(tmp_path, snap)
    conn = ConnectHandler(
        device_type="dell_sonic",
        host="127.0.0.1",
        port=lab.ports["x-esonic-plan"],
        username="admin",
        password="lab-password",
    )
    try:
        lines = [ln for c in plan.changes for ln in c.text.splitlines()]
        out = conn.send_config_set(lines, cmd_verify=False)
        assert "%Error" not in out, out
        running = conn.send_command("show running-configuration")
    finally:
        conn.disconnect()
    after = tmp_path / "after"
    after.mkdir()
    (after / "show_running_configuration.txt").write_text(running + "\n", encoding="utf-8")
    res = run_cli("lint", "--format", "json", "--platform", "enterprise_sonic", after)
    codes = {f["code"] for f in json.loads(res.out)["findings"] if f["severity"] == "error"}
    assert codes == set(), res.out
