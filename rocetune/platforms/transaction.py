"""The apply contract: one transaction driver per platform (NAPALM-shaped, over a session).

``rocetune apply`` (:mod:`rocetune.apply`) drives every device through the same stages; only
the platform's driver knows the commands. A driver is built per device and run:

    stage -> diff -> arm(revert_in) -> [checks] -> confirm -> save
                                   \\-> rollback (or let the device timer fire)
    stage -> diff -> discard                       (dry run, or a diff that is not the plan)

Each method runs commands through a :class:`rocetune.session.Session` (the same seam
collection uses) and raises :class:`TransactionError` when the device refuses a step. The
driver never decides policy (windows, waves, gates); :mod:`rocetune.apply` does.

What each platform uses to arm a device-side timer is documented in its driver module with
its source; where a behaviour is not confirmed by a vendor document the driver says so in a
comment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol

from rocetune.session import Session

Step = Literal[
    "precheck", "stage", "diff", "arm", "pending", "confirm", "rollback", "discard", "save"
]


class TransactionError(Exception):
    """A device refused or failed a step; ``output`` is its (unredacted) answer."""

    def __init__(self, step: Step, message: str, output: str = "") -> None:
        super().__init__(f"{step}: {message}")
        self.step, self.message, self.output = step, message, output


@dataclass(frozen=True)
class DeviceChanges:
    """One device's share of a ``rocetune-plan/1`` plan, as the driver needs it."""

    device: str
    platform: str
    changes: tuple[dict[str, Any], ...]
    """The plan's change objects in apply order (``commands`` or ``patch`` each)."""
    rollback: dict[str, Any] = field(default_factory=dict)
    """The plan's device rollback (``commands`` or ``patch``): used where the platform has no
    native checkpoint to return to."""
    disruptive: bool = False


@dataclass(frozen=True)
class Pending:
    """What the device says is open right now."""

    armed: bool = False
    """A commit of ours waits for confirmation (a device-side timer is running)."""
    name: str | None = None
    """Our session / checkpoint / revision name when armed."""
    seconds_left: float | None = None
    """Time until the device reverts by itself, when it tells."""
    foreign: tuple[str, ...] = ()
    """Sessions, pending revisions, locks or rollbacks that are not this run's."""


@dataclass(frozen=True)
class TxContext:
    """Who is changing what: names the device-side objects of one run."""

    run_id: str
    device: str
    change_id: str

    @property
    def tag(self) -> str:
        """``rocetune-<run>-<device>``: the session/checkpoint name of this run on this device."""
        return f"rocetune-{self.run_id}-{self.device}"


class Transaction(Protocol):
    """One device's transaction; made by :data:`TransactionFactory` for each apply."""

    platform: ClassVar[str]

    def precheck(self, session: Session) -> Pending:
        """Read what is open on the device (foreign sessions, pending commits); change nothing."""
        ...

    def stage(self, session: Session, changes: DeviceChanges) -> None:
        """Load the changes without activating them (session, candidate, checkpoint first)."""
        ...

    def diff(self, session: Session) -> str:
        """The device's own diff of the staged changes against running ('' = no change)."""
        ...

    def arm(self, session: Session, revert_in_s: int) -> None:
        """Activate the staged changes with a device-side timer that reverts them unless
        :meth:`confirm` runs within ``revert_in_s`` seconds."""
        ...

    def pending(self, session: Session) -> Pending:
        """Whether our commit is still armed (and how long it has left)."""
        ...

    def confirm(self, session: Session) -> None:
        """Make the armed change permanent in running config (cancel the timer)."""
        ...

    def rollback(self, session: Session) -> None:
        """Return running config to the state before :meth:`stage` (armed or confirmed)."""
        ...

    def discard(self, session: Session) -> None:
        """Drop staged, not armed, changes; the device is as before."""
        ...

    def save(self, session: Session) -> None:
        """Persist the confirmed running config (startup config / boot-time unit)."""
        ...


class TransactionFactory(Protocol):
    """Builds a device's transaction driver; one per platform in the platform object."""

    def __call__(self, context: TxContext) -> Transaction: ...


def require_ok(step: Step, output: str, error: str | None, commands: Sequence[str] = ()) -> str:
    """Return ``output`` or raise :class:`TransactionError` when the device reported an error."""
    if error is not None:
        what = f" ({'; '.join(commands)})" if commands else ""
        raise TransactionError(step, f"device refused{what}: {error}", output)
    return output
