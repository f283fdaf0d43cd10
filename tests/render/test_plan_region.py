"""The plan re-checks a replayed device over the device and its link neighbours only
(CheckContext.only): what a change does to the findings must be what a re-check of the
whole fabric says (port, device and link rules read no device beyond a neighbour)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune import api
from rocetune.api.fixes import replay_lint as _lint
from rocetune.model import Device, Fabric
from rocetune.render.simulate import compare, key, with_devices

LAB = Path(__file__).resolve().parents[2] / "inventories" / "lab" / "inventory.yaml"


def _broken(dev: Device) -> Device:
    """The device with its MTU, PFC and trust changed on every port (many rules react)."""
    ports = {
        n: p.model_copy(update={"mtu": 1500, "pfc_rx": (), "pfc_tx": (), "trust": "pcp"})
        for n, p in dev.ports.items()
    }
    nics = {
        n: p.model_copy(update={"mtu": 1500, "pfc_priorities": ()}) for n, p in dev.nics.items()
    }
    return dev.model_copy(update={"ports": ports, "nics": nics})


def _neighbours(fabric: Fabric, name: str) -> frozenset[str]:
    near = {name}
    for link in fabric.links:
        if name in (link.a.device, link.b.device):
            near.update((link.a.device, link.b.device))
    return frozenset(near)


@pytest.fixture(scope="module")
def audited() -> api.AuditResult:
    return api.audit(LAB)


@pytest.mark.parametrize(
    "name", ["spine1", "spine2", "leaf1", "leaf2", "leaf3", "leaf4", "gpu01", "gpu04"]
)
def test_region_check_equals_whole_fabric_check(audited: api.AuditResult, name: str) -> None:
    fabric, prov = audited.fabric, dict(audited.provenance)
    changed = with_devices(fabric, {name: _broken(fabric.devices[name])})
    whole = compare(_lint(fabric, prov), _lint(changed, prov))
    only = _neighbours(fabric, name)
    assert len(only) > 1 or name.startswith("gpu")
    region = compare(_lint(fabric, prov, only), _lint(changed, prov, only))
    for got, want in ((region.cleared, whole.cleared), (region.new, whole.new)):
        assert sorted(map(key, got)) == sorted(map(key, want))
    assert whole.cleared or whole.new  # the change matters
