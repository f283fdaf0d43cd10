"""One device's progress in a run (:class:`DeviceRun`) and the "state unknown" signal."""

from __future__ import annotations

from dataclasses import dataclass

from rocetune.apply.gates import Observation
from rocetune.apply.planfile import PlannedDevice
from rocetune.apply.states import DeviceState
from rocetune.model import Device
from rocetune.snapshot import Snapshot

D = DeviceState


class Lost(Exception):
    """The session broke during a step: the device's state is not known."""


@dataclass
class DeviceRun:
    """One device's progress in the run."""

    planned: PlannedDevice
    state: DeviceState = D.PENDING
    canary: bool = False
    unreachable: bool = False
    pre: Observation | None = None
    pre_snapshot: Snapshot | None = None
    intended: Device | None = None
    armed_at: float | None = None
    after_hash: str | None = None
    reason: str = ""
    target: Device | None = None
    """What the device must run afterwards when it is not the plan replayed on the pre-change
    snapshot (``--rollback RUN``: the pre-change state of that run)."""
    audit_base: Observation | None = None
    """The findings "new error" is judged against (default: the pre-change ones)."""

    @property
    def name(self) -> str:
        """The device name."""
        return self.planned.name
