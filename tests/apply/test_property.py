"""Property test (issue 14 item 7): random plans x fault points x platforms.

Every run ends with each device in one of three honest states, checked against the device
itself (the engine's running and startup config), not against what the orchestrator says:

- DONE: running == startup == the plan applied, nothing armed;
- ROLLED_BACK or ABORTED: running == the pre-change config;
- STUCK: the exit code is 4 and the record names the device.

Never a half-applied device reported DONE. The devices are the in-process kv engines
(tests/apply/kvlab.py) with a fault injected at any step.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocetune.apply.states import FINAL, DeviceState
from tests.apply.helpers import Lab, events
from tests.apply.kvlab import FAULTS

D = DeviceState
PORTS = ("Ethernet0", "Ethernet4", "Ethernet12")

device = st.tuples(
    st.lists(st.sampled_from(PORTS), min_size=1, max_size=3, unique=True),
    st.lists(st.sampled_from(FAULTS), min_size=1, max_size=2, unique=True).map("+".join),
)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    devices=st.lists(device, min_size=1, max_size=5),
    waves=st.sampled_from([("100%",), ("1", "100%"), ("50%",), ("2",)]),
    max_fail=st.integers(0, 2),
    canary=st.integers(0, 1),
    parallel=st.sampled_from([1, 3]),
)
def test_every_run_ends_honestly(
    devices: list[tuple[list[str], str]],
    waves: tuple[str, ...],
    max_fail: int,
    canary: int,
    parallel: int,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        lab = Lab(Path(tmp))
        for i, (ports, fault) in enumerate(devices):
            lab.add(f"leaf{i + 1}", tuple(ports), fault=fault)
        got = lab.run(waves=waves, max_fail=max_fail, canary=canary, parallel=parallel)
        stuck_in_record = {
            e["device"] for e in events(got) if e["event"] == "device" and e["state"] == "STUCK"
        }
        for name, dev in got.devices.items():
            eng = lab.engines[name]
            assert dev.state in FINAL, (name, dev.state)
            if dev.state == D.DONE:
                assert eng.running == lab.intended[name], (name, dev.reason)
                assert eng.startup == lab.intended[name], name
                assert eng.armed is None
            elif dev.state in (D.ROLLED_BACK, D.ABORTED):
                assert eng.running == lab.pre[name], (name, dev.state, dev.reason)
                assert eng.armed is None
            elif dev.state == D.STUCK:
                assert got.exit_code == 4
                assert name in stuck_in_record
        if any(d.state == D.STUCK for d in got.devices.values()):
            assert got.exit_code == 4
        elif all(d.state == D.DONE for d in got.devices.values()):
            assert got.exit_code == 0
        else:
            assert got.exit_code in (1, 3)
