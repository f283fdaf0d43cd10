"""The counter gate: baseline before arming, re-read after, deltas against the limits.

Unit tests of :func:`rocetune.apply.gates.counters_gate`, then the real readers against the
lab engines (whose counters move with their state: a ``counter_fault`` adds drops/storms
only while the running config differs from the one they started with), then whole runs of
the example fabric's plan in process: drops that rise on a switch after its change roll it
back; a clean run confirms with the gate passed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rocetune.api.audits import audit_inventory
from rocetune.apply.gates import CounterLimits, Observation, counters_gate
from rocetune.apply.states import DeviceState
from rocetune.inventory import load_inventory
from rocetune.model import Device, PortCounters
from tests.apply.livelab import LAB, LiveLab

D = DeviceState


def obs(*counters: PortCounters, note: str = "") -> Observation:
    return Observation(Device(name="s", kind="switch", platform="x"), "h", [], list(counters), note)


def pc(port: str = "p1", **kw: Any) -> PortCounters:
    return PortCounters(device="s", port=port, **kw)


def test_drops_on_a_lossless_priority_fail() -> None:
    pre = obs(pc(discards_by_priority={3: 10, 0: 5}, storm_events=0))
    post = obs(pc(discards_by_priority={3: 14, 0: 500}, storm_events=0))
    got = counters_gate(pre, post, [3])
    assert got.status == "fail"
    assert "4 drop(s) on lossless priority 3" in got.detail
    assert counters_gate(pre, post, [3], CounterLimits(drops=4)).status == "pass"


def test_storms_fail_and_pause_is_reported_unless_limited() -> None:
    pre = obs(pc(storm_events=1, discards_by_priority={3: 0}, pfc_rx_by_priority={3: 0}))
    post = obs(pc(storm_events=2, discards_by_priority={3: 0}, pfc_rx_by_priority={3: 900}))
    assert "1 PFC storm/watchdog event(s)" in counters_gate(pre, post, [3]).detail
    calm = obs(pc(storm_events=1, discards_by_priority={3: 0}, pfc_rx_by_priority={3: 900}))
    ok = counters_gate(pre, calm, [3])
    assert ok.status == "pass"
    assert "900 PFC frame(s)" in ok.detail
    limited = counters_gate(pre, calm, [3], CounterLimits(pause=100))
    assert limited.status == "fail"
    assert "900 PFC frame(s) received on priority 3" in limited.detail


def test_kinds_the_platform_does_not_give_are_named() -> None:
    pre = obs(pc(storm_events=0), note="EOS: drops not read")
    post = obs(pc(storm_events=0), note="EOS: drops not read")
    got = counters_gate(pre, post, [3])
    assert got.status == "unverified"
    assert "not read: lossless-priority drops" in got.detail
    assert "EOS" in got.detail
    none = counters_gate(
        obs(), Observation(pre.model, "h", [], None, "platform x has no reader"), [3]
    )
    assert none.status == "unverified"
    assert "platform x has no reader" in none.detail


def test_a_counter_that_went_backwards_is_not_growth() -> None:
    pre = obs(pc(discards_by_priority={3: 100}, storm_events=5))
    post = obs(pc(discards_by_priority={3: 0}, storm_events=0))  # cleared counters
    assert counters_gate(pre, post, [3]).status == "pass"


# --- the readers against the engines ---------------------------------------------------------


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> LiveLab:
    got = LiveLab.build(tmp_path_factory.mktemp("counters"))
    # In process, the NVUE and NX-OS engines' optional operational outputs are not served,
    # so those switches drop out of the re-audited fabric; give the fleet their models from
    # the example fabric's snapshots (the readers pick the ports to read from the model).
    fabric = got.fleet.fabric
    models = {**audit_inventory(load_inventory(LAB)).fabric.devices, **fabric.devices}
    got.fleet.fabric = fabric.model_copy(update={"devices": models})
    return got


def _read(lab: LiveLab, device: str) -> Observation:
    session = lab.fleet.open(device)
    try:
        got = lab.fleet.counters(device, session)
    finally:
        session.close()
    assert got is not None
    counters, note = (got, "") if isinstance(got, list) else (got.counters, got.note)
    return Observation(lab.fleet.fabric.devices[device], "h", [], counters, note)


def _change(engine: Any) -> None:
    """Make the engine's state differ from its start (as an applied change does)."""
    if hasattr(engine, "boot"):  # a host: its outputs differ from the boot outputs
        engine.boot = {}
    elif hasattr(engine, "initial_text"):
        engine.initial_text = ""
    elif isinstance(getattr(engine, "original", None), dict):
        engine.original = {}
    else:
        engine.original = ""


@pytest.mark.parametrize(
    ("device", "fault", "expect"),
    [
        ("leaf1", {"drops": 9}, "drop(s) on lossless priority 3"),
        ("leaf3", {"drops": 9}, "drop(s) on lossless priority 3"),
        ("spine2", {"drops": 9}, "drop(s) on lossless priority 3"),
        ("spine1", {"storms": 2}, "PFC storm/watchdog event(s)"),
        ("gpu02", {"drops": 9}, "drop(s) on lossless priority 3"),
    ],
)
def test_each_platform_reads_growth_after_a_change(
    lab: LiveLab, device: str, fault: dict[str, int], expect: str
) -> None:
    engine = lab.engines[device]
    engine.counter_lab.fault = {"port": "*", "priority": 3, **fault}
    try:
        before = _read(lab, device)
        assert before.counters, before.counters_note
        again = _read(lab, device)
        calm = counters_gate(before, again, [3])
        assert calm.status in ("pass", "unverified"), calm  # unchanged: the fault is idle
        assert "drop(s)" not in calm.detail
        assert "storm" not in calm.detail.split("not read")[0]
        _change(engine)
        after = _read(lab, device)
        got = counters_gate(again, after, [3])
        assert got.status == "fail", got
        assert expect in got.detail, got
    finally:
        engine.counter_lab.fault = None


def test_unread_kinds_are_named_per_platform(lab: LiveLab) -> None:
    eos = counters_gate(_read(lab, "spine1"), _read(lab, "spine1"), [3])
    assert eos.status == "unverified"
    assert "lossless-priority drops" in eos.detail
    nxos = counters_gate(_read(lab, "spine2"), _read(lab, "spine2"), [3])
    assert nxos.status == "unverified"
    assert "PFC watchdog/storm events" in nxos.detail
    for device in ("leaf1", "leaf3", "gpu02"):
        got = counters_gate(_read(lab, device), _read(lab, device), [3])
        assert got.status == "pass", (device, got)


# --- whole runs ------------------------------------------------------------------------------


def _gates(directory: Path) -> dict[str, dict[str, Any]]:
    events = [json.loads(x) for x in (directory / "audit.jsonl").read_text().splitlines()]
    return {
        e["device"]: {g["name"]: g for g in e["gates"]} for e in events if e["event"] == "gates"
    }


def test_drops_rising_after_the_change_roll_the_switch_back(tmp_path: Path) -> None:
    lab = LiveLab.build(tmp_path)
    lab.engines["leaf2"].counter_lab.fault = {"port": "*", "priority": 3, "drops": 25}
    got = lab.run(devices=("leaf1", "leaf2"), canary=0, waves=("1", "100%"))
    assert got.exit_code == 1, got.reason
    assert got.devices["leaf2"].state == D.ROLLED_BACK
    gates = _gates(got.directory)
    assert gates["leaf2"]["counters"]["status"] == "fail"
    assert "drop(s) on lossless priority 3" in gates["leaf2"]["counters"]["detail"]
    engine = lab.engines["leaf2"]
    assert engine.running == engine.original  # really rolled back (and the drops stop)
    done = [n for n, d in got.devices.items() if d.state == D.DONE]
    assert all(gates[n]["counters"]["status"] == "pass" for n in done)


def test_a_clean_run_confirms_with_the_counter_gate_passed(tmp_path: Path) -> None:
    lab = LiveLab.build(tmp_path)
    got = lab.run(counters_settle_s=5.0)
    assert got.exit_code == 0, got.reason
    gates = _gates(got.directory)
    assert gates
    assert all(g["counters"]["status"] == "pass" for g in gates.values()), gates
