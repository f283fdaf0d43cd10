"""The state machines of ``rocetune apply``: one per device, one per run.

Device, happy path::

    PENDING -> PRECHECKED -> LOCKED -> STAGED -> ARMED -> VERIFYING -> CONFIRMED -> SAVED -> DONE

Failure paths: ``ABORTED`` (nothing was armed: the device runs what it ran before),
``ROLLING_BACK -> ROLLED_BACK`` (only once a re-collection equals the pre-change snapshot) and
``STUCK`` (the device's state is unknown or its rollback failed: a human is needed, exit 4).
``SKIPPED``: a device with nothing to do (no change in the plan, or not selected).

A run goes ``PLANNED -> CANARY -> WAVE -> COMPLETE``, or ends ``HALTED`` (a gate failed and
the wave was rolled back), ``ROLLED_BACK`` (``--rollback RUN``) or ``REFUSED`` (nothing was
changed: stale plan, window, lock, disruptive changes without ``--allow-disruptive``).
Every transition is checked against :data:`NEXT`; an illegal one is a bug and raises.
"""

from __future__ import annotations

from enum import Enum


class DeviceState(str, Enum):
    """Where one device is in its apply."""

    PENDING = "PENDING"
    PRECHECKED = "PRECHECKED"
    LOCKED = "LOCKED"
    STAGED = "STAGED"
    ARMED = "ARMED"
    VERIFYING = "VERIFYING"
    CONFIRMED = "CONFIRMED"
    SAVED = "SAVED"
    DONE = "DONE"
    ABORTED = "ABORTED"
    ROLLING_BACK = "ROLLING_BACK"
    ROLLED_BACK = "ROLLED_BACK"
    STUCK = "STUCK"
    SKIPPED = "SKIPPED"


class RunState(str, Enum):
    """Where the run is."""

    PLANNED = "PLANNED"
    CANARY = "CANARY"
    WAVE = "WAVE"
    COMPLETE = "COMPLETE"
    HALTED = "HALTED"
    ROLLED_BACK = "ROLLED_BACK"
    REFUSED = "REFUSED"


D = DeviceState
_BEFORE_ARM = (D.PENDING, D.PRECHECKED, D.LOCKED, D.STAGED)
_CHANGED = (D.ARMED, D.VERIFYING, D.CONFIRMED, D.SAVED, D.DONE)

NEXT: dict[DeviceState, frozenset[DeviceState]] = {
    D.PENDING: frozenset({D.PRECHECKED, D.ABORTED, D.SKIPPED, D.STUCK}),
    D.PRECHECKED: frozenset({D.LOCKED, D.ABORTED, D.STUCK}),
    D.LOCKED: frozenset({D.STAGED, D.ABORTED, D.STUCK}),
    D.STAGED: frozenset({D.ARMED, D.ABORTED, D.ROLLING_BACK, D.STUCK}),
    D.ARMED: frozenset({D.VERIFYING, D.ROLLING_BACK, D.STUCK}),
    D.VERIFYING: frozenset({D.CONFIRMED, D.ROLLING_BACK, D.STUCK}),
    D.CONFIRMED: frozenset({D.SAVED, D.ROLLING_BACK, D.STUCK}),
    D.SAVED: frozenset({D.DONE, D.ROLLING_BACK, D.STUCK}),
    D.DONE: frozenset({D.ROLLING_BACK}),
    D.ROLLING_BACK: frozenset({D.ROLLED_BACK, D.STUCK}),
    D.ROLLED_BACK: frozenset(),
    D.ABORTED: frozenset(),
    D.STUCK: frozenset({D.ROLLING_BACK, D.ROLLED_BACK, D.DONE}),
    D.SKIPPED: frozenset(),
}
"""Allowed device transitions. STUCK may be left only by ``--resume``/``--rollback`` once a
re-collection shows where the device really is. DONE -> ROLLING_BACK is ``--rollback RUN``."""

FINAL: frozenset[DeviceState] = frozenset({D.DONE, D.ABORTED, D.ROLLED_BACK, D.STUCK, D.SKIPPED})
"""States a device ends a run in."""

MAY_BE_CHANGED: frozenset[DeviceState] = frozenset((*_CHANGED, D.ROLLING_BACK, D.STUCK))
"""States in which the device may run something else than its pre-change config."""

UNTOUCHED: frozenset[DeviceState] = frozenset((*_BEFORE_ARM, D.ABORTED, D.SKIPPED))
"""States in which the device's running config was never changed by this run."""


class IllegalTransition(RuntimeError):
    """A transition the state machine does not allow (a bug in the orchestrator)."""


def check(device: str, old: DeviceState, new: DeviceState) -> None:
    """Raise :class:`IllegalTransition` unless ``old -> new`` is allowed."""
    if new not in NEXT[old]:
        msg = f"{device}: illegal transition {old.value} -> {new.value}"
        raise IllegalTransition(msg)


EXIT_DONE = 0
EXIT_ROLLED_BACK = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
EXIT_HUMAN = 4


def exit_code(states: dict[str, DeviceState], unreachable: set[str], refused: bool) -> int:
    """The run's exit code from its devices' final states (most severe wins).

    4: a device is STUCK (or not final: the controller stopped in the middle); 3: a device was
    unreachable (and left untouched); 1: a gate rolled something back, or the run was refused
    or aborted before changing anything; 0: every selected device is DONE or SKIPPED.
    """
    if any(s == D.STUCK or s not in FINAL for s in states.values()):
        return EXIT_HUMAN
    if unreachable:
        return EXIT_UNREACHABLE
    if refused or any(s in (D.ROLLED_BACK, D.ABORTED) for s in states.values()):
        return EXIT_ROLLED_BACK
    return EXIT_DONE
