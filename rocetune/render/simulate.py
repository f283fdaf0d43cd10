"""Check a plan before anyone runs it: apply it to the snapshot, re-parse, re-lint the fabric.

Each platform's ``simulate`` replays native changes on the collected config text/JSON the way
the device applies them (JSON Patch on CONFIG_DB, ``nv set`` on the NVUE revision, config
lines entered into the running-config, host commands on the collected outputs). The result is
parsed by the platform's own parser and the whole rule catalogue (a :data:`Lint` the caller
passes) runs on the fabric with that device replaced. Findings are compared by (code, device,
port, link, severity): a finding whose key is gone is *cleared*, a key that appears is *new*
(a value that changes but stays wrong is neither; an error that becomes a warning is a
cleared error and a new warning).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from rocetune.load import parse_snapshot
from rocetune.model import Device, Fabric, Finding
from rocetune.platforms import get_driver
from rocetune.platforms.base import Provenance
from rocetune.snapshot import Snapshot


class Lint(Protocol):
    """Runs the rule catalogue on a fabric (``rocetune.api`` passes the engine's); with
    ``only``, port, device and link rules check only those devices and their links."""

    def __call__(
        self,
        fabric: Fabric,
        provenance: dict[str, Provenance],
        only: frozenset[str] | None = None,
    ) -> list[Finding]: ...


class Recheck(Protocol):
    """The re-check of one replayed change in delta form: ``lint(before, only=only)`` and
    ``lint(after, only=only)`` (``after`` = ``before`` with devices of ``only`` replaced)
    restricted to findings on the devices where the two can differ and fabric-level ones;
    every other device's findings are the same in both, so :func:`compare` of the two is
    that of the full lints (``rocetune.api.changes`` passes the engine's)."""

    def __call__(
        self,
        before: Fabric,
        after: Fabric,
        provenance: tuple[dict[str, Provenance], dict[str, Provenance]],
        only: frozenset[str],
    ) -> tuple[list[Finding], list[Finding]]: ...


Key = tuple[str, str, str, str, str]


def key(f: Finding) -> Key:
    """What identifies a finding across a change (its value may change)."""
    return (f.code, f.device or "", f.port or "", f.link or "", f.severity.value)


def reparse(like: Device, snapshot: Snapshot) -> tuple[Device, Provenance]:
    """Parse a (simulated) snapshot of ``like`` the way the audit loaded it.

    The loader's parse step (:func:`rocetune.load.parse_snapshot`), plus what the inventory
    set on the device (its ``asic:``), which a replayed config does not change.
    """
    driver = get_driver(like.platform)
    if driver is None:
        raise ValueError(f"platform {like.platform!r} has no parser")
    got = parse_snapshot(driver, snapshot, like.name, like.role)
    device = got.device
    if like.asic is not None and device.asic != like.asic:
        device = device.model_copy(update={"asic": like.asic})
    return device, got.provenance


def with_devices(fabric: Fabric, devices: dict[str, Device]) -> Fabric:
    """``fabric`` with some devices replaced."""
    merged = dict(fabric.devices)
    merged.update(devices)
    return fabric.model_copy(update={"devices": merged})


@dataclass
class Outcome:
    """What a simulated plan does to the findings."""

    cleared: list[Finding] = field(default_factory=list)
    new: list[Finding] = field(default_factory=list)


def compare(before: Iterable[Finding], after: Iterable[Finding]) -> Outcome:
    """Cleared and new findings between two lint runs."""
    before = list(before)
    after = list(after)
    keys_after = {key(f) for f in after}
    keys_before = {key(f) for f in before}
    return Outcome(
        cleared=[f for f in before if key(f) not in keys_after],
        new=[f for f in after if key(f) not in keys_before],
    )
