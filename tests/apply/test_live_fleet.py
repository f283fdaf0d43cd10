"""LiveFleet (the real wiring) on the example fabric's snapshots and its real plan.

The gates are only as good as the answers the fleet gives: the plan's hash of the saved
snapshot must be the hash the plan recorded (else every apply is "stale"), the replay of the
plan must clear the findings the plan says it clears, and the pre-change snapshot must not
differ from itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocetune import api
from rocetune.api.applying import LiveFleet
from rocetune.apply.gates import Observation, audit_gate, config_gate, same_state
from rocetune.apply.planfile import load_plan
from rocetune.inventory import load_inventory
from rocetune.render.plan import read_snapshot
from rocetune.render.plan_output import to_json
from tests.paths import ROOT

LAB = ROOT / "inventories" / "lab" / "inventory.yaml"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[LiveFleet, Path]:
    out = tmp_path_factory.mktemp("plan") / "plan.json"
    out.write_text(to_json(api.plan(LAB)), encoding="utf-8")
    return LiveFleet(load_inventory(LAB)), out


def test_hash_replay_and_gates_agree_with_the_plan(setup: tuple[LiveFleet, Path]) -> None:
    fleet, path = setup
    plan = load_plan(path)
    inv = load_inventory(LAB)
    planned = plan.with_changes()
    assert planned, "the example fabric has planted faults: the plan must change something"
    for dev in planned:
        entry = inv.devices[dev.name]
        assert entry.snapshot is not None
        snap = read_snapshot(entry.snapshot, dev.platform)
        assert fleet.config_hash(dev.name, snap) == dev.config_hash, dev.name
        pre = Observation(
            fleet.model(dev.name, snap), dev.config_hash or "", fleet.lint(dev.name, snap)
        )
        assert same_state(pre, pre, fleet.intent)[0]
        after = fleet.replay(dev.name, snap, dev.changes)
        post = Observation(
            fleet.model(dev.name, after),
            fleet.config_hash(dev.name, after),
            fleet.lint(dev.name, after),
        )
        assert config_gate(post, post.model, fleet.intent).status == "pass"
        assert config_gate(pre, post.model, fleet.intent).status == "fail", dev.name
        others = frozenset(d.name for d in planned if d.name != dev.name)
        gate = audit_gate(pre, post, dev.fixes, others)
        assert gate.status == "pass", (dev.name, gate.detail)
        assert not same_state(pre, post, fleet.intent)[0]


def test_topology_has_the_host_links(setup: tuple[LiveFleet, Path]) -> None:
    fleet, _ = setup
    links = set(fleet.topology.links)
    assert ("leaf1", "spine1") in links or ("spine1", "leaf1") in links
    hosts = {a for a, b in links} | {b for a, b in links}
    assert "gpu01" in hosts  # host links come from LLDP


def test_plan_json_roundtrip(setup: tuple[LiveFleet, Path]) -> None:
    _, path = setup
    doc = json.loads(path.read_text(encoding="utf-8"))
    plan = load_plan(path)
    assert set(plan.devices) == {d["device"] for d in doc["devices"]}
