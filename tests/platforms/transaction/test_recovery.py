"""Recovery with a new driver instance, as ``rocetune apply`` does it (apply-core contract).

After a lost session, for ``--resume`` and ``--rollback RUN``, apply builds a new driver
for the same run and device and calls ``pending``/``confirm``/``rollback``/``save`` without
``stage``: each driver finds its device-side objects by the run's tag.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.lab.engines.box import BoxEngine
from tests.lab.engines.cumulus import CumulusEngine
from tests.lab.engines.linux_host import HostEngine
from tests.lab.engines.sonic import SonicEngine
from tests.platforms.transaction.kit import changes, engine, session, transaction

DEVICES = ["leaf1", "leaf3", "gpu04"]


def _state(eng: BoxEngine) -> Any:
    if isinstance(eng, SonicEngine):
        return json.loads(json.dumps(eng.running))
    if isinstance(eng, CumulusEngine):
        return eng.applied
    assert isinstance(eng, HostEngine)
    return dict(eng.outputs)


def _armed(device: str) -> tuple[BoxEngine, Any]:
    eng = engine(device)
    before = _state(eng)
    s = session(eng)
    tx = transaction(device)
    tx.stage(s, changes(device))
    tx.arm(s, 300)
    s.close()
    return eng, before


@pytest.mark.parametrize("device", DEVICES)
def test_new_instance_sees_armed_confirms_and_saves(device: str) -> None:
    eng, before = _armed(device)
    tx = transaction(device)
    s = session(eng)
    assert tx.pending(s).armed
    tx.confirm(s)
    tx.save(s)
    eng.control("clock advance 1000")
    applied = _state(eng)
    assert applied != before
    eng.control("reboot")
    assert _state(eng) == applied, "saved by the new instance: survives a reboot"


@pytest.mark.parametrize("device", DEVICES)
def test_new_instance_rolls_back_while_armed(device: str) -> None:
    eng, before = _armed(device)
    tx = transaction(device)
    s = session(eng)
    tx.rollback(s)
    assert not tx.pending(s).armed
    assert _state(eng) == before


@pytest.mark.parametrize("device", DEVICES)
def test_new_instance_rolls_back_a_saved_run_even_after_reboot(device: str) -> None:
    eng, before = _armed(device)
    first = transaction(device)
    s = session(eng)
    first.confirm(s)
    first.save(s)
    eng.control("reboot")
    tx = transaction(device)
    s2 = session(eng)
    tx.rollback(s2)
    tx.save(s2)  # apply saves again after a rollback of a saved run
    assert _state(eng) == before
    eng.control("reboot")
    assert _state(eng) == before, "the rollback is what the box boots with"


def test_nvue_revision_found_when_the_session_died_right_after_apply() -> None:
    eng = engine("leaf3", faults=[{"kind": "drop_after", "on": "nv config apply --confirm"}])
    assert isinstance(eng, CumulusEngine)
    before = eng.applied
    s = session(eng)
    tx = transaction("leaf3")
    tx.stage(s, changes("leaf3"))
    with pytest.raises(ConnectionError):
        tx.arm(s, 300)
    fresh = transaction("leaf3")
    s2 = session(eng)
    assert fresh.pending(s2).armed, "the revision is recovered from the box"
    fresh.rollback(s2)
    assert eng.applied == before
