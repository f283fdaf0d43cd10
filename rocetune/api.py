"""The typed library API behind the CLI: audit an inventory, lint config files.

Nothing here prints; callers pick a reporter. Input problems of one device never stop the
others: they are collected in :attr:`AuditResult.errors` (exit 2) or as device problems
(RT002, not collected: exit 3).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from rocetune.checks.base import RuleOptions
from rocetune.checks.registry import all_rules
from rocetune.engine import MISSING_CODE, Selection, run_checks, select_rules
from rocetune.errors import ParseError, RocetuneError, SnapshotError
from rocetune.inventory import Inventory, load_inventory
from rocetune.model import Device, DeviceProblem, Fabric, Finding, Intent, Link, Severity
from rocetune.platforms import KNOWN_PLATFORMS, drivers, get_driver
from rocetune.platforms.base import ParseResult, PlatformDriver, Provenance
from rocetune.snapshot import Snapshot, read_directory, read_single_file, read_text
from rocetune.suppress import Policy, PolicyReport, apply_to_result
from rocetune.topology import merge_links

if TYPE_CHECKING:
    from rocetune.verify.results import PairResult


@dataclass(frozen=True)
class DeviceStatus:
    """Whether a device made it into the model."""

    name: str
    platform: str | None
    status: Literal["ok", "error"]
    error: str | None = None


@dataclass
class AuditResult:
    """Findings plus everything needed to pick an exit code and report device status."""

    fabric: Fabric
    findings: list[Finding]
    devices: dict[str, DeviceStatus]
    errors: list[RocetuneError] = field(default_factory=list)
    provenance: dict[str, Provenance] = field(default_factory=dict)
    rules: tuple[str, ...] = ()
    """Codes of the rules that were run (the selection); empty when not recorded."""
    inventory: str | None = None
    """The inventory file of an audit (reports point fabric-level findings at it)."""
    policy: PolicyReport | None = None
    """What severity overrides, suppressions and the baseline did (None: no policy given)."""
    verify: tuple[PairResult, ...] | None = None
    """Per-test perftest results of ``rocetune verify`` (None: no verification ran)."""

    @property
    def not_collected(self) -> list[str]:
        """Devices that have no snapshot and could not be collected."""
        return [p.device for p in self.fabric.problems if p.kind == "not-collected"]

    def summary(self) -> dict[str, int]:
        """Finding counts by severity."""
        out = {s.value: 0 for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)}
        for f in self.findings:
            out[f.severity.value] += 1
        return out

    def exit_code(self, fail_on: Severity = Severity.ERROR) -> int:
        """0 clean, 1 findings at or above ``fail_on``, 2 input errors, 3 not collected."""
        if self.errors:
            return 2
        if self.not_collected:
            return 3
        if any(f.severity.rank >= fail_on.rank for f in self.findings):
            return 1
        return 0


@dataclass(frozen=True)
class _Loaded:
    result: ParseResult | None = None
    problem: DeviceProblem | None = None
    error: RocetuneError | None = None
    source: str | None = None


def _sniff(path: Path, text: str) -> tuple[PlatformDriver, Snapshot] | None:
    for driver in drivers().values():
        command = driver.sniff(str(path), text)
        if command is not None:
            return driver, read_single_file(path, command)
    return None


def _read_file(path: Path, platform: str | None) -> tuple[PlatformDriver, Snapshot] | str:
    """Read one saved config; return the driver and snapshot, or why it cannot be read."""
    if not path.is_file():
        raise SnapshotError("snapshot file does not exist", file=path)
    body = read_text(path)
    if platform is None:
        found = _sniff(path, body)
        if found is None:
            names = ", ".join(d.name for d in drivers().values())
            return f"cannot tell the platform of {path} (supported: {names}); set platform:"
        return found
    driver = get_driver(platform)
    if driver is None:
        return f"platform {platform!r} is not supported yet"
    command = driver.sniff(str(path), body) or driver.commands()[0]
    return driver, read_single_file(path, command)


def _read_dir(path: Path, platform: str | None) -> tuple[PlatformDriver, Snapshot] | str:
    snap = read_directory(path)
    if platform and snap.meta.platform and snap.meta.platform != platform:
        msg = (
            f"snapshot was collected from platform {snap.meta.platform!r}, "
            f"inventory says {platform!r}"
        )
        raise SnapshotError(msg, file=path)
    platform = platform or snap.meta.platform
    if platform is None:
        for f in snap:
            found = _sniff(Path(f.path), f.text)
            if found is not None:
                return found[0], snap
        return f"cannot tell the platform of snapshot {path}; set platform:"
    driver = get_driver(platform)
    if driver is None:
        return f"platform {platform!r} is not supported yet"
    return driver, snap


def load_device(
    name: str, source: Path | str | None, platform: str | None, role: str | None
) -> _Loaded:
    """Read and parse one device's snapshot (directory or single file).

    ``source`` is a path, None (no snapshot, not collected) or a string: why live collection
    failed (rocetune.collect).
    """
    if source is None or isinstance(source, str):
        msg = source or "no snapshot and live collection is not available yet: not collected"
        return _Loaded(problem=DeviceProblem(device=name, kind="not-collected", message=msg))
    try:
        got = _read_dir(source, platform) if source.is_dir() else _read_file(source, platform)
        if isinstance(got, str):
            problem = DeviceProblem(
                device=name, kind="unsupported-platform", message=got, platform=platform
            )
            return _Loaded(problem=problem, source=str(source))
        driver, snap = got
        return _Loaded(result=driver.parse(snap, name, role))
    except (ParseError, SnapshotError) as exc:
        return _Loaded(error=exc)
    except Exception as exc:  # a parser bug must not lose the other devices
        msg = f"internal error while reading this snapshot: {type(exc).__name__}: {exc}"
        return _Loaded(error=RocetuneError(msg.splitlines()[0], file=source))


def _check(
    fabric: Fabric,
    provenance: dict[str, Provenance],
    selection: Selection,
    options: dict[str, RuleOptions] | None,
) -> list[Finding]:
    rules = select_rules(all_rules(), selection)
    report_missing = any(r.meta.code == MISSING_CODE for r in rules)
    return run_checks(fabric, rules, options, provenance, report_missing=report_missing)


def _assemble(
    loaded: Iterable[tuple[str, str | None, _Loaded]],
    intent: Intent,
    links: tuple[Link, ...],
    selection: Selection,
    options: dict[str, RuleOptions] | None,
) -> AuditResult:
    devices: dict[str, Device] = {}
    prov: dict[str, Provenance] = {}
    problems: list[DeviceProblem] = []
    status: dict[str, DeviceStatus] = {}
    errors: list[RocetuneError] = []
    for name, platform, item in loaded:
        if item.result is not None:
            devices[name] = item.result.device
            prov[name] = item.result.provenance
            status[name] = DeviceStatus(name, item.result.device.platform, "ok")
        elif item.problem is not None:
            problems.append(item.problem)
            if item.source is not None:
                prov[name] = Provenance()
                prov[name].add("", item.source, None)
            status[name] = DeviceStatus(name, platform, "error", item.problem.message)
        elif item.error is not None:
            errors.append(item.error)
            status[name] = DeviceStatus(name, platform, "error", str(item.error))
    fabric = Fabric(
        intent=intent,
        devices=devices,
        links=merge_links(devices, links, intent, known=status),
        problems=tuple(problems),
        known_devices=tuple(status),
    )
    findings = _check(fabric, prov, selection, options)
    ran = tuple(r.meta.code for r in select_rules(all_rules(), selection))
    return AuditResult(fabric, findings, status, errors, prov, ran)


def audit(
    inventory: Path | str,
    selection: Selection | None = None,
    options: dict[str, RuleOptions] | None = None,
    *,
    policy: Policy | None = None,
    collector: Callable[[Inventory], Mapping[str, Path | str]] | None = None,
) -> AuditResult:
    """Audit every device of an inventory from its saved snapshot.

    ``collector`` (rocetune.cli.collect.live_collector) collects the devices that have no
    ``snapshot:`` first: name -> snapshot directory, or why it failed (exit 3).
    Raises InventoryError for an invalid inventory (nothing can be checked then).
    """
    inv = load_inventory(inventory)
    live = collector(inv) if collector is not None else {}
    sources = {d.name: live.get(d.name, d.snapshot) for d in inv.devices.values()}
    loaded = [
        (d.name, d.platform, load_device(d.name, sources[d.name], d.platform, d.role))
        for d in inv.devices.values()
    ]
    result = _assemble(loaded, inv.intent, inv.links, selection or Selection(), options)
    result.inventory = str(inventory)
    if policy is not None or inv.suppressions:
        apply_to_result(result, policy or Policy(), inv.suppressions)
    return result


def _unique_name(wanted: str, fallback: str, taken: set[str]) -> str:
    for candidate in (wanted, fallback):
        if candidate not in taken:
            return candidate
    n = 2
    while f"{fallback}#{n}" in taken:
        n += 1
    return f"{fallback}#{n}"


def lint(
    paths: Sequence[Path | str],
    platform: str | None = None,
    intent: Intent | None = None,
    selection: Selection | None = None,
    options: dict[str, RuleOptions] | None = None,
    *,
    policy: Policy | None = None,
) -> AuditResult:
    """Lint saved config files (or snapshot directories) against an intent.

    Each file is one device, named after the hostname in its config, else the file stem.
    """
    if platform is not None and platform not in KNOWN_PLATFORMS:
        raise RocetuneError(f"unknown platform {platform!r}; known: {', '.join(KNOWN_PLATFORMS)}")
    loaded: list[tuple[str, str | None, _Loaded]] = []
    taken: set[str] = set()
    for raw in paths:
        path = Path(raw)
        stem = path.stem if path.is_file() else path.name
        item = load_device(stem, path, platform, None)
        name = stem
        if item.result is not None:
            name = _unique_name(item.result.device.hostname or stem, stem, taken)
            if name != item.result.device.name:
                device = item.result.device.model_copy(update={"name": name})
                item = _Loaded(result=ParseResult(device, item.result.provenance))
        elif item.problem is not None:
            name = _unique_name(stem, stem, taken)
            problem = item.problem.model_copy(update={"device": name})
            item = _Loaded(problem=problem, source=item.source)
        taken.add(name)
        loaded.append((name, platform, item))
    result = _assemble(loaded, intent or Intent(), (), selection or Selection(), options)
    if policy is not None:
        apply_to_result(result, policy, ())
    return result
