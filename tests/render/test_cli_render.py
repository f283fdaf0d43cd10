"""`rocetune render INVENTORY -o DIR [--only-fix]` end to end (in process, via click)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from rocetune.cli import cli

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "inventories" / "lab"
EOS_CONFIG = ROOT / "tests" / "fixtures" / "eos" / "faulty_leaf.cfg"


def _inventory(tmp_path: Path, extra_devices: str = "", links: str = "") -> Path:
    shutil.copytree(LAB / "snapshots" / "leaf2", tmp_path / "leaf2")
    shutil.copy(LAB / "configs" / "leaf4.yaml", tmp_path / "leaf4.yaml")
    shutil.copy(EOS_CONFIG, tmp_path / "spine9.cfg")
    inv = tmp_path / "inventory.yaml"
    inv.write_text(
        "intent:\n  lossless_priorities: [3]\n"
        "devices:\n"
        "  leaf2: {platform: sonic, snapshot: leaf2}\n"
        "  leaf4: {platform: cumulus, snapshot: leaf4.yaml}\n"
        "  spine9: {platform: eos, snapshot: spine9.cfg}\n"
        f"{extra_devices}"
        "links:\n"
        "  - {a: leaf2:Ethernet8, b: spine9:Ethernet1, length_m: 100}\n"
        f"{links}",
        encoding="utf-8",
    )
    return inv


def _run(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_render_writes_configs_and_rerun_changes_nothing(tmp_path: Path) -> None:
    inv, out = _inventory(tmp_path), tmp_path / "out"
    code, stdout, _ = _run("render", inv, "-o", out)
    assert code == 0, stdout
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == [
        "apply/leaf2.apply-patch.json",
        "apply/leaf4.nv-set.txt",
        "leaf2.config_db.json",
        "leaf4.nvue.yaml",
        "reasons/leaf2.reasons.txt",
        "reasons/leaf4.reasons.txt",
        "reasons/spine9.reasons.txt",
        "spine9.eos.cfg",
    ]
    assert "spine9 (eos): rendered spine9.eos.cfg, reasons/spine9.reasons.txt" in stdout
    assert "  note: port Ethernet2 left out: its cable length is not known" in stdout
    assert stdout.rstrip().endswith(
        "platforms rendered by this version: sonic, cumulus, eos, nxos, onyx, enterprise_sonic,"
        " linux_host"
    )
    config = json.loads((out / "leaf2.config_db.json").read_text())
    assert config["CABLE_LENGTH"]["AZURE"]["Ethernet8"] == "100m"
    assert "pg_lossless_400000_100m_profile" in config["BUFFER_PROFILE"]
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    code, stdout, _ = _run("render", inv, "-o", out)
    assert code == 0
    assert stdout.count("[unchanged]") == 3
    assert before == {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}


def test_rendered_files_lint_clean_with_the_same_intent(tmp_path: Path) -> None:
    inv, out = _inventory(tmp_path), tmp_path / "out"
    assert _run("render", inv, "-o", out)[0] == 0
    code, stdout, _ = _run(
        "lint", out / "leaf2.config_db.json", out / "leaf4.nvue.yaml", "--intent", inv
    )
    assert code == 0, stdout
    assert "0 error(s), 0 warning(s)" in stdout


def test_only_fix_writes_the_smallest_fix_and_its_rollback(tmp_path: Path) -> None:
    inv, out = _inventory(tmp_path), tmp_path / "out"
    code, stdout, _ = _run("render", inv, "-o", out, "--only-fix")
    assert code == 0, stdout
    assert not (out / "leaf2.config_db.json").exists()  # the full tables: full render only
    ops = json.loads((out / "apply" / "leaf2.fix.patch.json").read_text())
    # leaf2's fault: the 100 m uplink keeps the 30 m headroom profile (RT501): a new profile,
    # the PG re-bound to it, the cable length; nothing else of the switch
    paths = [op["path"] for op in ops]
    assert paths[:3] == [
        "/BUFFER_PROFILE/pg_lossless_400000_100m_profile",
        "/BUFFER_PG/Ethernet8|3/profile",
        "/CABLE_LENGTH/AZURE/Ethernet8",
    ]
    plan = json.loads((out / "apply" / "plan.json").read_text())
    leaf2 = next(d for d in plan["devices"] if d["device"] == "leaf2")
    # this inventory's intent is MTU 9216 (default) and spine9 runs 9216: the link MTU
    # finding (RT703) asks leaf2's 9214 to move; nothing else is touched
    assert paths[3:] == ["/PORT/Ethernet8/mtu"]
    assert [c["codes"] for c in leaf2["changes"] if c["kind"] == "mtu"] == [["RT703"]]
    back = json.loads((out / "apply" / "leaf2.rollback.patch.json").read_text())
    assert back[-1] == {"op": "remove", "path": "/BUFFER_PROFILE/pg_lossless_400000_100m_profile"}
    nv_set = (out / "apply" / "leaf4.fix.nv.txt").read_text()
    # leaf4's fault: MTU 1500 on swp32 (RT601); this intent's switch MTU is 9216 (default);
    # no other port's MTU is touched
    assert [ln for ln in nv_set.splitlines() if not ln.startswith("#")] == [
        "nv set interface swp32 link mtu 9216"
    ]
    assert plan["format"] == "rocetune-plan/1"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda cfg: cfg["PORT"].update({"Ethernet4;reboot": {"speed": "400000"}}),
            "interface name 'Ethernet4;reboot'",
        ),
        (
            lambda cfg: cfg["PORT"].update({"Ethernet4\nEthernet12": {"speed": "400000"}}),
            "interface name 'Ethernet4\\nEthernet12'",
        ),
        (
            lambda cfg: cfg["DEVICE_METADATA"]["localhost"].update({"hostname": "{{ 7*7 }}"}),
            "hostname '{{ 7*7 }}' contains template syntax",
        ),
    ],
)
def test_malicious_snapshot_values_are_refused(
    tmp_path: Path, mutate: object, message: str
) -> None:
    inv, out = _inventory(tmp_path), tmp_path / "out"
    snap = tmp_path / "leaf2" / "show_runningconfiguration_all.json"
    cfg = json.loads(snap.read_text())
    mutate(cfg)  # type: ignore[operator]
    snap.write_text(json.dumps(cfg))
    code, stdout, stderr = _run("render", inv, "-o", out)
    assert code == 2
    assert "leaf2 (sonic): error: leaf2: refusing to render" in stdout
    assert message in stderr
    assert not (out / "leaf2.config_db.json").exists()
    assert (out / "leaf4.nvue.yaml").is_file()  # the other devices are still rendered


def test_port_description_with_a_template_expression_never_reaches_a_template(
    tmp_path: Path,
) -> None:
    inv, out = _inventory(tmp_path), tmp_path / "out"
    snap = tmp_path / "leaf2" / "show_runningconfiguration_all.json"
    cfg = json.loads(snap.read_text())
    cfg["PORT"]["Ethernet0"]["description"] = "{{ 7*7 }} {% include 'x' %}"
    snap.write_text(json.dumps(cfg))
    assert _run("render", inv, "-o", out)[0] == 0
    text = (out / "leaf2.config_db.json").read_text()
    assert "description" not in text
    assert "{{" not in text
    assert "{%" not in text


def test_malicious_inventory_link_is_refused_before_rendering(tmp_path: Path) -> None:
    inv = _inventory(tmp_path, links="  - {a: 'leaf4:swp1;reboot', b: leaf2:Ethernet0}\n")
    code, stdout, stderr = _run("render", inv, "-o", tmp_path / "out")
    assert code == 2
    assert "is not a device:port link end" in stderr
    assert stdout == ""
    assert not (tmp_path / "out").exists()
