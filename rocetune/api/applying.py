"""``rocetune apply`` wired to the real machinery: :class:`LiveFleet` and :func:`apply`.

The orchestrator (:mod:`rocetune.apply`) sits beside collect, render and the engine and asks
them everything through a :class:`rocetune.apply.fleet.Fleet`; this module builds it:

- sessions and re-collections: the collect machinery (the inventory's credentials, host-key
  trust and timeouts; the platform's commands and redactor), one session per call;
- the running-config hash: the very function the plan used (``render.plan.config_hash``);
- the plan applied: the plan's own replay (``render.simulate``) on the pre-change snapshot;
- findings: the whole rule catalogue on the audited fabric with the device replaced (per
  device neighbourhood above :data:`FULL_LINT_MAX` devices);
- counters: the switch platform's counter reader (``Platform.counter_reader``: PFC frames,
  lossless drops, watchdog storms) or the host NIC counters (``ethtool -S``, RDMA
  ``hw_counters``); a platform without a reader makes that gate "unverified", named;
- verify: the perftest runner on the given pairs.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rocetune.api.audits import _check, audit_inventory
from rocetune.apply.fleet import CounterRead, Node, Topology, Unreachable
from rocetune.apply.gates import link_devices
from rocetune.apply.options import ApplyOptions, Clock, Observer, SystemClock
from rocetune.apply.planfile import load_plan
from rocetune.apply.resume import resume_run, rollback_run
from rocetune.apply.run import Run, RunResult
from rocetune.checks.registry import all_rules
from rocetune.collect import CollectOptions
from rocetune.collect.credentials import CredentialSource
from rocetune.collect.device import collect_device
from rocetune.collect.job import Job
from rocetune.collect.reasons import classify
from rocetune.collect.runner import plan as collect_plan
from rocetune.engine import Selection
from rocetune.errors import RocetuneError
from rocetune.inventory import Inventory, load_inventory
from rocetune.model import Device, Fabric, Finding, Intent, PortCounters
from rocetune.platforms import get_driver
from rocetune.platforms.base import Provenance
from rocetune.platforms.common.redact import redact_fallback
from rocetune.platforms.transaction import Transaction, TxContext
from rocetune.render.plan import config_hash, planner
from rocetune.render.simulate import reparse, with_devices
from rocetune.session import Session
from rocetune.snapshot import Command, Snapshot, SourceFile

_REDACT_AS = Command("apply", "apply")
FULL_LINT_MAX = 64
"""Fabrics up to this many devices are linted whole by every gate; above, the gates lint
the device's neighbourhood with the local rules and the whole fabric with the fabric-scope
rules only (:meth:`LiveFleet.lint_model`)."""


MULTI_HOP = ("RT707",)
"""Rules of device scope that read past the neighbours (RT707 compares a dual-homed host's
two ToRs: from one ToR, the other is two hops away)."""


@functools.cache
def fabric_codes() -> tuple[str, ...]:
    """The rules the gates run on the whole fabric above :data:`FULL_LINT_MAX` devices: the
    fabric-scope ones (RT705 uniformity, RT706 ECN on every hop, RT708 deadlock, RT306 ECN
    profile groups) and :data:`MULTI_HOP`."""
    wide = [r.meta.code for r in all_rules() if r.meta.scope == "fabric"]
    return tuple(sorted({*wide, *MULTI_HOP}))


def change_texts(platform: str, changes: Sequence[dict[str, Any]]) -> list[str]:
    """Plan change objects -> the change texts the platform's replay takes."""
    import json

    got = planner(platform)
    if got is not None and got.native == "patch":
        return [json.dumps(op, sort_keys=True) for c in changes for op in c.get("patch", [])]
    return ["\n".join(str(x) for x in c.get("commands", [])) for c in changes]


def _same(a: Device, b: Device) -> bool:
    """The same model, whatever directory its snapshot was read from (the unparsed lines
    name their file by the path it was read at)."""

    def unread(d: Device) -> list[tuple[object, ...]]:
        return [(u.item, u.reason, u.line, u.ports, u.features) for u in d.unparsed]

    if a.model_copy(update={"unparsed": ()}) != b.model_copy(update={"unparsed": ()}):
        return False
    return unread(a) == unread(b)


class LiveFleet:
    """The real :class:`rocetune.apply.fleet.Fleet` of an inventory."""

    def __init__(
        self,
        inv: Inventory,
        collect_options: CollectOptions | None = None,
        creds: CredentialSource | None = None,
    ) -> None:
        self.inv = inv
        self.options = collect_options or CollectOptions()
        self.creds = creds
        base = audit_inventory(inv)
        self.fabric = base.fabric
        self.provenance: dict[str, Provenance] = dict(base.provenance)
        self.intent: Intent = self.fabric.intent
        nodes = {
            d.name: Node(d.name, d.platform or "", d.role, tuple(getattr(d, "groups", ()) or ()))
            for d in inv.devices.values()
        }
        pairs = {(lk.a.device, lk.b.device) for lk in self.fabric.links}
        pairs |= {(lk.a.device, lk.b.device) for lk in inv.links}
        self.topology = Topology(nodes, tuple(sorted(pairs)))
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._wide_base: list[Finding] | None = None

    # --- sessions --------------------------------------------------------------------------
    def _job(self, device: str) -> Job:
        with self._lock:
            if device not in self._jobs:
                jobs, failed = collect_plan(self.inv, [device], self.options, self.creds)
                if failed:
                    raise Unreachable(f"{device}: {failed[0].failure}")
                self._jobs[device] = jobs[0]
            return self._jobs[device]

    def open(self, device: str) -> Session:
        """A new session to ``device``."""
        job = self._job(device)
        try:
            return job.transport.open(job.target)
        except Exception as exc:
            raise Unreachable(str(classify(exc))) from exc

    def collect(self, device: str) -> Snapshot:
        """A fresh collection (the platform's commands and follow-ups, redacted)."""
        job = self._job(device)
        redact = job.driver.redactor
        try:
            got = collect_device(job.target, job.driver, job.nics, job.transport, redact)
        except Exception as exc:
            raise Unreachable(str(classify(exc))) from exc
        files = {n: SourceFile(path=n, text=t) for n, t in got.outputs.items()}
        return Snapshot(files=files, meta=got.meta(device, job.target.platform))

    # --- what the plan says ----------------------------------------------------------------
    def _platform(self, device: str) -> str:
        return self.inv.devices[device].platform or ""

    def config_hash(self, device: str, snapshot: Snapshot) -> str:
        """The plan's hash function."""
        return config_hash(self._platform(device), snapshot)

    def _like(self, device: str) -> Device:
        got = self.fabric.devices.get(device)
        if got is not None:
            return got
        dev = self.inv.devices[device]
        kind = "host" if (dev.role or "") == "host" else "switch"
        return Device(name=device, kind=kind, platform=dev.platform or "", role=dev.role)

    def model(self, device: str, snapshot: Snapshot) -> Device:
        """The snapshot parsed the way the audit parsed the device."""
        return reparse(self._like(device), snapshot)[0]

    def replay(
        self, device: str, snapshot: Snapshot, changes: Sequence[dict[str, Any]]
    ) -> Snapshot:
        """The plan's replay of the changes on ``snapshot``."""
        platform = self._platform(device)
        got = planner(platform)
        if got is None:
            raise RocetuneError(f"{device}: platform {platform!r} cannot replay a plan")
        return got.simulate(snapshot, change_texts(platform, changes))

    def _scope(self, device: str) -> Fabric:
        """The device, its linked neighbours and their links (every port- link- and
        device-scope rule reads no more than that for the device's own findings)."""
        fabric = self.fabric
        links = tuple(lk for lk in fabric.links if device in (lk.a.device, lk.b.device))
        names = {device} | {lk.a.device for lk in links} | {lk.b.device for lk in links}
        devices = {n: d for n, d in fabric.devices.items() if n in names}
        return fabric.model_copy(update={"devices": devices, "links": links})

    def lint(self, device: str, snapshot: Snapshot) -> list[Finding]:
        """Every rule on the fabric with this device as in ``snapshot``; its findings."""
        model, prov = reparse(self._like(device), snapshot)
        return self.lint_model(device, model, {**self.provenance, device: prov})

    def lint_model(
        self, device: str, model: Device, provenance: dict[str, Provenance]
    ) -> list[Finding]:
        """The findings that concern ``device`` with ``model`` in place of it.

        Up to :data:`FULL_LINT_MAX` devices: every rule on the whole fabric. Above: the
        rules of port, link and device scope on the device's neighbourhood (what they read
        for the device's own findings: its ports, its links and both their ends), and the
        rules that compare more than a neighbourhood (:func:`fabric_codes`: uniformity, ECN on
        every hop, deadlock, ECN profile groups, dual-homing symmetry) on the whole fabric. The two
        give the same findings for the device as one whole-fabric lint
        (tests/apply/test_lint_scope.py); the neighbourhood alone would not (RT705 majorities
        and RT707's other ToR of a dual-homed host lie outside it)."""
        if len(self.fabric.devices) <= FULL_LINT_MAX:
            found = _check(
                with_devices(self.fabric, {device: model}), provenance, Selection(), None
            )
        else:
            local = with_devices(self._scope(device), {device: model})
            found = _check(local, provenance, Selection(ignore=fabric_codes()), None)
            found += self._wide(device, model, provenance)
        return [f for f in found if f.device == device or device in link_devices(f.link)]

    def _wide(self, device: str, model: Device, provenance: dict[str, Provenance]) -> list[Finding]:
        """The fabric-wide rules on the whole fabric with ``model`` for ``device``. When the
        model is the audited one (every baseline: the plan is not stale), the fabric is the
        audited fabric: that run is made once and shared by every device."""
        select = Selection(select=(*fabric_codes(), "RT000"))
        audited = self.fabric.devices.get(device)
        if audited is not None and _same(model, audited):
            with self._lock:
                if self._wide_base is None:
                    self._wide_base = _check(self.fabric, self.provenance, select, None)
                return self._wide_base
        return _check(with_devices(self.fabric, {device: model}), provenance, select, None)

    def counters(self, device: str, session: Session) -> list[PortCounters] | CounterRead | None:
        """PFC pause, lossless-drop and watchdog counters: the switch platform's counter
        reader (:mod:`rocetune.platforms.counters`), or the host NIC counters."""
        if self._platform(device) != "linux_host":
            return self._switch_counters(device, session)
        from rocetune.platforms.linux_host.commands import HW_COUNTERS, STATS
        from rocetune.platforms.linux_host.counters import nic_counters, parse_counter_text

        model = self.fabric.devices.get(device)
        if model is None or not model.nics:
            return None
        out: list[PortCounters] = []
        for name, nic in sorted(model.nics.items()):
            wanted = [STATS.command(name).command]
            if nic.rdma_device:  # unknown RDMA device: ethtool only (its PFC/drop counters)
                wanted.append(HW_COUNTERS.command(nic.rdma_device).command)
            stats, *more = session.run_many(wanted)
            ethtool = parse_counter_text(stats.text)[0] if stats.error is None else None
            hw = more[0] if more else None
            rdma = parse_counter_text(hw.text)[1] if hw is not None and hw.error is None else None
            out.append(nic_counters(device, name, ethtool, rdma))
        return out

    def _counted(self, model: Device) -> Device:
        """The device with only the ports whose counters matter: its ends of the fabric's
        links when it has any (the lossless domain the rules check), else every port (the
        readers that ask per port then pick the PFC ports)."""
        ends = {
            end.port
            for lk in self.fabric.links
            for end in (lk.a, lk.b)
            if end.device == model.name and end.port in model.ports
        }
        if not ends:
            return model
        return model.model_copy(update={"ports": {n: model.ports[n] for n in sorted(ends)}})

    def _switch_counters(self, device: str, session: Session) -> CounterRead | None:
        driver = get_driver(self._platform(device))
        reader = None if driver is None else driver.counter_reader
        if driver is None or reader is None:
            return CounterRead(None, f"platform {self._platform(device)} has no counter reader")
        model = self._counted(self.fabric.devices.get(device) or self._like(device))
        wanted = reader.commands(model)
        outputs: dict[str, str | None] = {}
        refused: list[str] = []
        for command, out in zip(wanted, session.run_many(list(wanted)), strict=True):
            error = out.error or driver.command_error(out.text)
            outputs[command] = None if error else out.text
            if error:
                refused.append(f"{command!r}: {error}"[:160])
        got = [c for c in reader.parse(model, outputs) if not model.ports or c.port in model.ports]
        notes = list(reader.unread)
        if refused:
            notes.append("refused " + "; ".join(refused[:3]))
        return CounterRead(got, "; ".join(notes))

    def verify(self, pairs: Sequence[tuple[str, str]]) -> list[str]:
        """perftest on ``pairs`` (``host:nic`` each); error findings and problems."""
        from rocetune.api.verification import close_all, open_sessions, with_verification
        from rocetune.verify.live import plan_hosts
        from rocetune.verify.plan import Endpoint, build_plan
        from rocetune.verify.runner import PlanRunner, RunOptions

        ends = [(Endpoint(*a.split(":", 1)), Endpoint(*b.split(":", 1))) for a, b in pairs]
        addresses = {d.name: d.host for d in self.inv.devices.values() if d.host is not None}
        plan = build_plan(self.fabric, ends, addresses)
        try:
            sessions = open_sessions(self.inv, plan_hosts(plan), self.options, self.creds)
        except RocetuneError as exc:
            return [str(exc)]
        try:
            found = PlanRunner(self.fabric, sessions, RunOptions()).run(plan)
        finally:
            close_all(sessions.values())
        base = audit_inventory(self.inv)
        result = with_verification(
            base, found, selection=Selection(), options=None, policy=None, inv=self.inv
        )
        errors = [
            f"{f.code} {f.device or ''} {f.port or f.link or ''}: {f.message}".strip()
            for f in result.findings
            if f.code.startswith("RT8") and f.severity.value == "error"
        ]
        return list(found.problems) + errors

    def transaction(self, device: str, context: TxContext) -> Transaction | None:
        """The platform's apply driver."""
        driver = get_driver(self._platform(device))
        return None if driver is None else driver.transaction(context)

    def redact(self, device: str, text: str) -> str:
        """The platform's redactor on a device answer."""
        driver = get_driver(self._platform(device))
        redact = driver.redactor if driver is not None else redact_fallback
        return redact(_REDACT_AS, text)


def apply(
    plan_path: Path | None,
    inventory: Path | None,
    options: ApplyOptions,
    runs_dir: Path,
    *,
    resume: str | None = None,
    rollback: str | None = None,
    collect_options: CollectOptions | None = None,
    clock: Clock | None = None,
    observer: Observer | None = None,
    stop: threading.Event | None = None,
    fleet: Any = None,
) -> RunResult:
    """Apply ``plan_path`` to ``inventory``'s devices (or resume/roll back a recorded run)."""
    clock = clock or SystemClock()
    if fleet is None:
        if inventory is None:
            raise RocetuneError("give --inventory (the inventory the plan was made from)")
        fleet = LiveFleet(load_inventory(inventory), collect_options)
    if resume is not None:
        return resume_run(fleet, runs_dir, resume, clock, observer, stop, options)
    if rollback is not None:
        return rollback_run(fleet, runs_dir, rollback, options, clock, observer, stop)
    if plan_path is None:
        raise RocetuneError("give PLAN.json")
    plan = load_plan(plan_path)
    extra = {"inventory": str(inventory) if inventory else None}
    run = Run(fleet, options, runs_dir, clock, observer, stop)
    return run.start(plan, extra)


__all__ = ["LiveFleet", "apply", "change_texts", "replace"]
