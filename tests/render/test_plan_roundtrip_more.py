"""Plan, then rollback, replayed outside the lab: Onyx, Enterprise SONiC, and a real NX-OS
TOR (Azure Local) whose RoCE port is left to DCBX (``priority-flow-control mode auto``).

The same checks as tests/render/test_plan_roundtrip.py does on the lab: the plan's native
changes replayed on the snapshot (the platform's simulator), re-parsed and re-linted, clear
exactly the findings the plan claims and raise none on the device; the rollback replayed
after them gives back the parsed model of the running config.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from rocetune import api
from rocetune.api.fixes import replay_lint as lint
from rocetune.fingerprint import fingerprints
from rocetune.model import Device, Severity
from rocetune.render.plan import _planner
from rocetune.render.plan import read_snapshot as _snapshot
from rocetune.render.plan_output import to_json
from rocetune.render.simulate import compare, reparse, with_devices
from tests.paths import ROOT
from tests.render.test_onyx_plan import FAULTY as ONYX_FAULTY

ESONIC_LEAF9 = ROOT / "tests" / "fixtures" / "enterprise_sonic" / "leaf9"
AZURE_TOR = ROOT / "tests" / "realworld" / "configs" / "nxos" / "azurelocal_tor_qos_policy_nxos.cfg"
INTENT = (
    "intent:\n  lossless_priorities: [3]\n  roce_dscp: [26]\n"
    "  mtu: {host: 9000, switch: 9216, roce: 4096}\n  cable_length_m: {default: 3}\n"
)


def _inventory(tmp_path: Path, platform: str) -> tuple[Path, Path]:
    if platform == "onyx":
        snap = tmp_path / "leaf9.cfg"
        snap.write_text(textwrap.dedent(ONYX_FAULTY).lstrip("\n"))
    elif platform == "nxos":
        snap = tmp_path / "tor.cfg"
        text = AZURE_TOR.read_text()
        snap.write_text(text.replace("mode on send-tlv", "mode auto"))
    else:
        snap = ESONIC_LEAF9
    inv = tmp_path / "inventory.yaml"
    inv.write_text(
        INTENT + f"devices:\n  leaf9: {{platform: {platform}, role: leaf, snapshot: {snap}}}\n"
    )
    return inv, snap


def _texts(native: dict[str, Any]) -> list[str]:
    if "patch" in native:
        return [json.dumps(op, sort_keys=True) for op in native["patch"]]
    return ["\n".join(native["commands"])] if native["commands"] else []


def _dump(device: Device) -> dict[str, Any]:
    data: dict[str, Any] = device.model_dump(mode="json")
    return data


@pytest.mark.parametrize("level", ["error", "warning"])
@pytest.mark.parametrize("platform", ["onyx", "enterprise_sonic", "nxos"])
def test_plan_then_rollback_gives_back_the_model(platform: str, level: str, tmp_path: Path) -> None:
    inv, source = _inventory(tmp_path, platform)
    result = api.audit(inv)
    device = result.fabric.devices["leaf9"]
    data = json.loads(to_json(api.plan(inv, fail_on=Severity(level))))
    [entry] = data["devices"]
    assert entry["changes"], entry  # both fixtures have findings to fix
    snap = _snapshot(source, platform)
    simulate = _planner(platform).simulate
    fixed = simulate(snap, [t for c in entry["changes"] for t in _texts(c)])
    after, prov = reparse(device, fixed)
    assert _dump(after) != _dump(device)
    restored, _ = reparse(device, simulate(fixed, _texts(entry["rollback"])))
    assert _dump(restored) == _dump(device)

    before = lint(result.fabric, result.provenance)
    fps = dict(zip((id(f) for f in before), fingerprints(before), strict=True))
    outcome = compare(before, lint(with_devices(result.fabric, {"leaf9": after}), {"leaf9": prov}))
    cleared = {fps[id(f)] for f in outcome.cleared}
    claimed = {fp for c in entry["changes"] for fp in c["fixes"]} | set(entry["also_fixes"])
    assert claimed == cleared
    assert [(f.code, f.severity.value) for f in outcome.new] == []


def test_nxos_mode_auto_gets_mode_on(tmp_path: Path) -> None:
    inv, _ = _inventory(tmp_path, "nxos")
    [entry] = json.loads(to_json(api.plan(inv)))["devices"]
    pfc = [c for c in entry["changes"] if "RT201" in c["codes"]]
    assert [c["commands"] for c in pfc] == [
        ["interface Ethernet1/17", "  priority-flow-control mode on"]
    ]
    assert pfc[0]["disruptive"] is True
    assert entry["rollback"]["commands"][:2] == [
        "interface Ethernet1/17",
        "  priority-flow-control mode auto",
    ]
