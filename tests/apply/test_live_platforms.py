"""The example fabric's real plan through the real drivers and engines (in process).

The inventory is collected from the engines first (collect, then plan: the operator's order),
so the plan's running-config hashes are the engines'. Then:

- a clean run applies every engine-backed device with changes: canary, then waves, DONE;
- the property test (issue 14 item 7, real platforms): a random subset of devices, each with
  a lab fault (drop before/after, garbled output, a refusal, a slow command, a prompt) on a
  random command of its own fault-free run; every device ends DONE == the plan applied,
  ROLLED_BACK/ABORTED == the pre-change state, or STUCK with exit 4 and its name in the
  record; nothing of ours is left armed on a device reported DONE or ROLLED_BACK.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rocetune.apply.gates import differences
from rocetune.apply.planfile import load_plan
from rocetune.apply.states import FINAL, DeviceState
from rocetune.platforms.transaction import TxContext
from tests.apply.livelab import LiveLab, make_engines

D = DeviceState
KINDS = ("drop_before", "drop_after", "garble", "fail", "slow", "prompt")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> LiveLab:
    return LiveLab.build(tmp_path_factory.mktemp("live"))


def _planned(lab: LiveLab) -> list[str]:
    plan = load_plan(lab.plan)
    return sorted(d.name for d in plan.with_changes() if d.name in lab.engines)


def _events(directory: Path) -> list[dict[str, Any]]:
    text = (directory / "audit.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _fresh(lab: LiveLab) -> None:
    names = sorted(lab.engines)
    lab.fleet.engines.clear()
    lab.fleet.engines.update(make_engines(names, lab.clock))


def test_clean_run_applies_every_engine_device(lab: LiveLab, tmp_path: Path) -> None:
    _fresh(lab)
    devices = _planned(lab)
    assert {"leaf1", "gpu02"} <= set(devices)
    lab.tmp = tmp_path
    got = lab.run(devices=tuple(devices))
    assert got.exit_code == 0, got.reason
    assert all(d.state == D.DONE for d in got.devices.values()), got.states()
    assert len(got.waves) >= 3  # canary + at least two waves
    plan = load_plan(lab.plan)
    for name in devices:
        snap = lab.fleet.collect(name)
        assert not [
            f
            for f in lab.fleet.lint(name, snap)
            if f.device == name
            and f.code in plan.devices[name].codes
            and f.severity.value == "error"
        ]


@pytest.fixture(scope="module")
def commands(lab: LiveLab, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Each device's commands in a fault-free run (the places faults are injected)."""
    _fresh(lab)
    lab.tmp = tmp_path_factory.mktemp("clean")
    got = lab.run(devices=tuple(_planned(lab)), canary=0, waves=("100%",))
    out: dict[str, list[str]] = {}
    for ev in _events(got.directory):
        if ev["event"] == "command" and ev.get("step") not in ("", None):
            words = str(ev["command"]).split()
            prefix = " ".join(w for w in words[:3] if "rocetune-" not in w)
            if prefix and prefix not in out.setdefault(ev["device"], []):
                out[ev["device"]].append(prefix)
    return out


@settings(
    max_examples=20,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking real runs takes minutes
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_faults_on_real_platforms_end_honestly(
    lab: LiveLab,
    commands: dict[str, list[str]],
    tmp_path_factory: pytest.TempPathFactory,
    data: st.DataObject,
) -> None:
    names = data.draw(
        st.lists(st.sampled_from(sorted(commands)), min_size=1, max_size=3, unique=True)
    )
    _fresh(lab)
    pre = {n: lab.fleet.model(n, lab.fleet.collect(n)) for n in names}
    for name in names:
        on = data.draw(st.sampled_from(commands[name]))
        kind = data.draw(st.sampled_from(KINDS))
        fault = {"kind": kind, "on": on, "times": 1, "seconds": 400}
        lab.fleet.send(name, "lab fault " + json.dumps(fault))
    lab.tmp = tmp_path_factory.mktemp("prop")
    got = lab.run(devices=tuple(names), waves=("1", "100%"), max_fail=1)
    for name in names:  # faults the run never reached must not hit the checks below
        lab.fleet.engines[name].faults.clear()
    stuck = {
        e["device"]
        for e in _events(got.directory)
        if e["event"] == "device" and e["state"] == "STUCK"
    }
    intent = lab.fleet.intent
    for name, dev in got.devices.items():
        assert dev.state in FINAL
        if dev.state == D.STUCK:
            assert got.exit_code == 4
            assert name in stuck
            continue
        now = lab.fleet.model(name, lab.fleet.collect(name))
        tx = lab.fleet.transaction(name, TxContext(got.run_id, name, "CHG-LAB"))
        assert tx is not None
        session = lab.fleet.open(name)
        try:
            assert not tx.pending(session).armed, (name, dev.state, dev.reason)
        finally:
            session.close()
        if dev.state == D.DONE:
            assert dev.intended is not None
            assert not differences(dev.intended, now, intent), (name, dev.reason)
        else:
            assert not differences(pre[name], now, intent), (name, dev.state, dev.reason)
