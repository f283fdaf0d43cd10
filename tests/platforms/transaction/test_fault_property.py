"""Property: one fault at any command of a run never leaves a half-applied device as done.

Every device (SONiC, NVUE, hosts) x every command of a clean run x every fault kind. A small
driver loop follows the apply contract (``rocetune/platforms/transaction.py`` and the apply
engine's recovery: a refused step or a lost session -> a new driver instance over a new
session; armed -> rollback, not armed before the commit -> discard, a broken confirm or save
-> look at the device). After the virtual clock has run past every timer, the device is
either exactly as a clean run leaves it (DONE) or exactly as before (ROLLED BACK).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from rocetune.platforms.transaction import Step, TransactionError
from tests.lab.engines.box import BoxEngine, Fault
from tests.lab.engines.cumulus import CumulusEngine
from tests.lab.engines.linux_host import HostEngine
from tests.lab.engines.sonic import SonicEngine
from tests.platforms.transaction.kit import changes, engine, session, transaction

DEVICES = ("leaf1", "leaf3", "leaf4", "gpu02", "gpu03", "gpu04")
KINDS = ("drop_before", "drop_after", "garble", "prompt", "slow", "fail")
TIMER = 300


def _state(eng: BoxEngine) -> Any:
    if isinstance(eng, SonicEngine):
        return json.dumps(eng.running, sort_keys=True)
    if isinstance(eng, CumulusEngine):
        return eng.applied
    assert isinstance(eng, HostEngine)
    return json.dumps(eng.outputs, sort_keys=True)


def _run(eng: BoxEngine, device: str) -> tuple[str, Step | None]:
    """One apply of ``device``: ("done", None) or ("failed", the step that failed)."""
    s = session(eng)
    tx = transaction(device)
    step: Step = "precheck"
    try:
        if tx.precheck(s).foreign:
            return "failed", step
        step = "stage"
        tx.stage(s, changes(device))
        step = "diff"
        if not tx.diff(s):
            return "failed", step
        step = "arm"
        tx.arm(s, TIMER)
        step = "pending"
        if not tx.pending(s).armed:
            return "failed", step
        step = "confirm"
        tx.confirm(s)
        step = "save"
        tx.save(s)
    except (TransactionError, ConnectionError):
        return "failed", step
    return "done", None


def _recover(eng: BoxEngine, device: str, step: Step, intended: Any, before: Any) -> str:
    tx = transaction(device)
    s = session(eng)
    if step in ("precheck", "stage", "diff"):
        tx.discard(s)
        return "aborted"
    if tx.pending(s).armed:
        tx.rollback(s)
        return "rolled_back"
    if step in ("confirm", "save", "pending") and _state(eng) == intended:
        tx.save(s)  # confirmed before the session broke: finish
        return "done"
    if _state(eng) != before:
        tx.rollback(s)
    else:
        tx.discard(s)
    return "rolled_back"


@functools.cache
def _clean(device: str) -> tuple[Any, Any, tuple[str, ...]]:
    """(state before, state after a clean run, the commands a clean run sends)."""
    eng = engine(device)
    before = _state(eng)
    outcome, _ = _run(eng, device)
    assert outcome == "done"
    eng.control(f"clock advance {TIMER * 3}")
    return before, _state(eng), tuple(eng.history)


def test_every_fault_at_every_command_ends_done_or_rolled_back() -> None:
    """Every device x every command a clean run sends x every fault kind."""
    bad: list[str] = []
    for device in DEVICES:
        before, intended, sent = _clean(device)
        for command in dict.fromkeys(sent):
            for kind in KINDS:
                eng = engine(device)
                eng.faults.append(Fault(kind, command, 1, TIMER + 100.0))
                outcome, step = _run(eng, device)
                if outcome == "failed" and step is not None:
                    outcome = _recover(eng, device, step, intended, before)
                eng.control(f"clock advance {TIMER * 3}")
                want = intended if outcome == "done" else before
                if _state(eng) != want:
                    bad.append(f"{device}: {kind} on {command!r}: {outcome}, state differs")
    assert bad == []
