"""Property: one fault at any command of a run never leaves a half-applied device as done.

Random device (SONiC, NVUE, host) x the command the fault hits x the fault kind. A small
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

from hypothesis import given, settings
from hypothesis import strategies as st

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


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    device=st.sampled_from(DEVICES),
    index=st.integers(min_value=0, max_value=10_000),
    kind=st.sampled_from(KINDS),
)
def test_one_fault_anywhere_ends_done_or_rolled_back(device: str, index: int, kind: str) -> None:
    before, intended, sent = _clean(device)
    command = sent[index % len(sent)]
    eng = engine(device)
    eng.faults.append(Fault(kind, command, 1, TIMER + 100.0))
    outcome, step = _run(eng, device)
    if outcome == "failed":
        assert step is not None
        outcome = _recover(eng, device, step, intended, before)
    eng.control(f"clock advance {TIMER * 3}")
    final = _state(eng)
    if outcome == "done":
        assert final == intended, (
            f"{device}: reported done, device not as planned ({kind} on {command!r})"
        )
    else:
        assert final == before, f"{device}: {outcome}, device changed ({kind} on {command!r})"
