"""Above FULL_LINT_MAX devices the gates lint a device's neighbourhood with the local rules and
the whole fabric with the fabric-scope rules; that must give the device the same findings as
one whole-fabric lint (the "no new error" and "planned findings gone" gates compare them).

Checked on the example fabric (spines, leaves, hosts, links) for every device, as it is and
with a hop fault planted (RT706); and the neighbourhood alone is shown NOT to be enough
(RT705 majorities and RT707's other ToR lie outside it).
"""

from __future__ import annotations

from typing import Any

import pytest

from rocetune.api import applying
from rocetune.api.applying import LiveFleet, fabric_codes
from rocetune.api.audits import _check
from rocetune.apply.gates import link_devices
from rocetune.engine import Selection
from rocetune.inventory import load_inventory
from rocetune.model import Device, Finding
from rocetune.render.simulate import with_devices
from tests.apply.livelab import LAB

INFO = ("RT000", "RT001")
"""Missing-data notes: their grouping (the message listing the rules that could not run)
depends on which rules ran together; they are INFO and no gate counts them."""


def key(f: Finding) -> tuple[Any, ...]:
    return (f.code, f.device, f.port, f.link, f.severity.value, f.message)


@pytest.fixture(scope="module")
def fleet() -> LiveFleet:
    return LiveFleet(load_inventory(LAB))


def both(fleet: LiveFleet, device: str, model: Device) -> tuple[set[Any], set[Any]]:
    prov = fleet.provenance
    full, split = [], []
    saved = applying.FULL_LINT_MAX
    try:
        applying.FULL_LINT_MAX = 10_000
        full = fleet.lint_model(device, model, prov)
        applying.FULL_LINT_MAX = 0
        split = fleet.lint_model(device, model, prov)
    finally:
        applying.FULL_LINT_MAX = saved
    return (
        {key(f) for f in full if f.code not in INFO},
        {key(f) for f in split if f.code not in INFO},
    )


def test_fabric_scope_rules_are_the_uniformity_hop_and_deadlock_rules() -> None:
    assert {"RT705", "RT706", "RT708", "RT306"} <= set(fabric_codes())


def test_split_lint_equals_the_whole_fabric_lint_for_every_device(fleet: LiveFleet) -> None:
    assert len(fleet.fabric.links) > 5
    compared = 0
    for name, model in sorted(fleet.fabric.devices.items()):
        full, split = both(fleet, name, model)
        assert full == split, name
        compared += len(full)
    assert compared > 10  # the example fabric has planted faults: findings to compare


def _without_ecn(model: Device) -> Device:
    ports = {n: p.model_copy(update={"ecn": {}}) for n, p in model.ports.items()}
    return model.model_copy(update={"ports": ports})


def test_a_hop_fault_is_found_by_the_split_lint(fleet: LiveFleet) -> None:
    spine = next(n for n, d in sorted(fleet.fabric.devices.items()) if d.role == "spine")
    model = _without_ecn(fleet.fabric.devices[spine])
    full, split = both(fleet, spine, model)
    assert full == split
    assert any(k[0] == "RT706" and k[4] == "error" for k in split), sorted(split)


def _alone(fleet: LiveFleet, device: str) -> set[tuple[Any, ...]]:
    """The former gate above 64 devices: every rule on the neighbourhood only."""
    scope = with_devices(fleet._scope(device), {device: fleet.fabric.devices[device]})
    found = _check(scope, fleet.provenance, Selection(), None)
    mine = [f for f in found if f.device == device or device in link_devices(f.link)]
    return {key(f)[:5] for f in mine if f.code not in INFO}


def test_the_neighbourhood_alone_is_not_equivalent(fleet: LiveFleet) -> None:
    """Why the fabric-wide rules run on the whole fabric: in the neighbourhood alone RT705
    sees another majority (findings lost on hosts, invented on spines) and RT707 does not
    see a dual-homed host's other ToR."""
    full = {
        name: {k[:5] for k in both(fleet, name, model)[0]}
        for name, model in fleet.fabric.devices.items()
    }
    lost = {n: full[n] - _alone(fleet, n) for n in full}
    invented = {n: _alone(fleet, n) - full[n] for n in full}
    assert any(k[0] == "RT707" for ks in lost.values() for k in ks), lost
    assert any(k[0] == "RT705" for ks in lost.values() for k in ks), lost
    assert any(k[0] == "RT705" for ks in invented.values() for k in ks), invented
