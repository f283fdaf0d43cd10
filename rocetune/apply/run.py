"""One apply run: guard rails, canary, waves, halting, and the run's end state and exit code.

:func:`start` refuses before touching anything when the window is not open, the runs
directory is leased by another run, a planned device is DISRUPTIVE without
``--allow-disruptive``, or a fresh collection shows the plan is stale. Then the canary, then
the waves, each only when the window still has room for it (estimate + timer + rollback).
A wave whose failures exceed ``--max-fail`` (the canary tolerates none), a signal or the end
of the window halts the run: the wave's changed devices are rolled back, devices not started
are ABORTED. :func:`resume` and :func:`rollback_run` (in :mod:`rocetune.apply.resume`)
continue from the record.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocetune.apply.device import DeviceWorker
from rocetune.apply.devrun import DeviceRun
from rocetune.apply.fleet import Fleet, Topology, Unreachable
from rocetune.apply.inflight import Inflight
from rocetune.apply.options import ApplyOptions, Clock, NullObserver, Observer
from rocetune.apply.planfile import ApplyPlan, PlannedDevice
from rocetune.apply.record import Record, RecordError, RunLock, lock_name
from rocetune.apply.states import (
    EXIT_ROLLED_BACK,
    DeviceState,
    RunState,
    exit_code,
)
from rocetune.apply.waves import canary, domains, plan_waves
from rocetune.apply.window import iso
from rocetune.errors import ConfigError
from rocetune.shard import parse_shard

D = DeviceState


@dataclass
class RunResult:
    """How a run ended."""

    run_id: str
    directory: Path
    state: RunState
    devices: dict[str, DeviceRun]
    exit_code: int
    reason: str = ""
    waves: list[list[str]] = field(default_factory=list)
    seconds: float = 0.0

    def states(self) -> dict[str, DeviceState]:
        """Device -> final state."""
        return {n: d.state for n, d in self.devices.items()}


def new_run_id(now: float) -> str:
    """A short, sortable, session-name-safe id: ``YYMMDDHHMMSS`` + 4 hex digits."""
    return time.strftime("%y%m%d%H%M%S", time.gmtime(now)) + secrets.token_hex(2)


def options_json(options: ApplyOptions) -> dict[str, Any]:
    """The options as recorded in the start event (``--resume`` reads them back)."""
    return {
        "window": [options.window.start, options.window.end],
        "devices": list(options.devices),
        "canary": options.canary,
        "waves": list(options.waves),
        "max_fail": options.max_fail,
        "confirm_within_s": options.confirm_within_s,
        "allow_disruptive": options.allow_disruptive,
        "verify_pairs": [list(p) for p in options.verify_pairs],
        "dry_run": options.dry_run,
        "parallel": options.parallel,
        "counter_limits": {
            "drops": options.counter_limits.drops,
            "storms": options.counter_limits.storms,
            "pause": options.counter_limits.pause,
        },
        "counters_settle_s": options.counters_settle_s,
        "shard": options.shard,
    }


def select(plan: ApplyPlan, wanted: Sequence[str]) -> list[PlannedDevice]:
    """The plan's devices with changes, or only ``wanted`` (ConfigError for a stranger)."""
    unknown = sorted(set(wanted) - set(plan.devices))
    if unknown:
        raise ConfigError(f"--device {', '.join(unknown)}: not in the plan {plan.path}")
    got = plan.with_changes()
    return [d for d in got if not wanted or d.name in wanted]


class Run:
    """The orchestrator of one run (a fresh one, a resumed one or a rollback)."""

    def __init__(  # noqa: PLR0917 (the run collaborators)
        self,
        fleet: Fleet,
        options: ApplyOptions,
        runs_dir: Path,
        clock: Clock,
        observer: Observer | None = None,
        stop: threading.Event | None = None,
        run_id: str | None = None,
    ) -> None:
        self.fleet, self.options, self.clock = fleet, options, clock
        self.observer = observer or NullObserver()
        self.stop = stop or threading.Event()
        self.run_id = run_id or new_run_id(clock.now())
        self.directory = runs_dir / self.run_id
        self.lock = RunLock(runs_dir, clock.now, lock_name(options.shard))
        self.inflight = (
            Inflight(runs_dir, self.run_id, clock.now)
            if options.shard and not options.dry_run
            else None
        )
        self.directory.mkdir(parents=True, exist_ok=True)
        self.record = Record(self.directory, self.run_id, options.change_id, clock.now)
        self.worker = DeviceWorker(
            fleet,
            self.record,
            options,
            clock,
            self.observer,
            self.stop,
            self.run_id,
            self.directory,
        )
        self.devices: dict[str, DeviceRun] = {}
        self.worker.peers = self.devices
        self.waves: list[list[str]] = []
        self.started = time.monotonic()

    # --- run state -------------------------------------------------------------------------
    def set_state(self, state: RunState, reason: str, **fields: Any) -> None:
        """Record and announce the run's state."""
        self.record.run(state, reason, **fields)
        self.observer.run_state(state, reason)

    def finish(self, state: RunState, reason: str, refused: bool = False) -> RunResult:
        """End the run: every device final, lease released, exit code computed."""
        for dev in self.devices.values():
            if dev.state == D.PENDING:
                self.worker.move(dev, D.ABORTED, f"not started: {reason}")
        states = {n: d.state for n, d in self.devices.items()}
        unreachable = {n for n, d in self.devices.items() if d.unreachable}
        code = exit_code(states, unreachable, refused)
        if self.options.dry_run and not refused and all(map(self.ok, self.devices.values())):
            code = 0
        self.set_state(state, reason, exit_code=code)
        self.lock.release()
        return RunResult(
            self.run_id,
            self.directory,
            state,
            self.devices,
            code,
            reason,
            self.waves,
            round(time.monotonic() - self.started, 3),
        )

    def refuse(self, reason: str) -> RunResult:
        """Nothing was changed and nothing will be."""
        return self.finish(RunState.REFUSED, reason, refused=True)

    # --- guard rails -----------------------------------------------------------------------
    def take_lease(self) -> str | None:
        """Take the runs-directory lease (None, or why the run is refused)."""
        try:
            ttl = max(self.options.lease_s, self.options.window.end - self.clock.now() + 600)
            took = self.lock.acquire(self.run_id, self.options.change_id, ttl)
        except RecordError as exc:
            return str(exc)
        if took:
            self.record.write("lease", reason=took)
        return None

    def stale(self, devices: Sequence[DeviceRun]) -> list[str]:
        """Collect every device now; the ones whose hash is not the plan's (unreachable are
        marked and stay PENDING until their wave aborts them)."""

        def one(dev: DeviceRun) -> str | None:
            try:
                snap = self.fleet.collect(dev.name)
            except Exception as exc:
                dev.unreachable = True
                self.worker.move(dev, D.ABORTED, f"unreachable: {exc}")
                return None
            got = self.fleet.config_hash(dev.name, snap)
            if got != dev.planned.config_hash:
                return (
                    f"{dev.name} (running {got[:19]}…, plan {str(dev.planned.config_hash)[:19]}…)"
                )
            return None

        with ThreadPoolExecutor(max_workers=max(1, self.options.parallel)) as pool:
            return [s for s in pool.map(one, devices) if s]

    # --- the run ---------------------------------------------------------------------------
    def start(self, plan: ApplyPlan, extra: dict[str, Any] | None = None) -> RunResult:
        """A fresh run of ``plan``."""
        chosen = select(plan, self.options.devices)
        if self.options.shard:
            mine = parse_shard(self.options.shard)
            chosen = [d for d in chosen if mine.owns(d.name)]
        self.devices.update({d.name: DeviceRun(d) for d in chosen})
        self.record.write(
            "start",
            plan=str(plan.path),
            plan_hash=plan.digest,
            options=options_json(self.options),
            window=str(self.options.window),
            devices=sorted(self.devices),
            extra=extra or {},
        )
        now = self.clock.now()
        if not self.options.dry_run and not self.options.window.open_at(now):
            return self.refuse(
                f"outside the maintenance window {self.options.window} (now {iso(now)})"
            )
        why = self.take_lease()
        if why:
            return self.refuse(why)
        rough = [d.name for d in chosen if d.disruptive]
        if rough and not self.options.allow_disruptive:
            return self.refuse(
                f"DISRUPTIVE changes on {', '.join(rough)}: apply them on drained devices with "
                "--allow-disruptive, or leave them out with --device"
            )
        if not self.devices:
            return self.finish(RunState.COMPLETE, "no device of the plan has changes")
        stale = self.stale(list(self.devices.values()))
        if stale:
            return self.refuse("stale plan: " + ", ".join(stale) + "; plan again")
        return self.waves_from([n for n, d in self.devices.items() if d.state == D.PENDING])

    def waves_from(self, names: Sequence[str], with_canary: bool = True) -> RunResult:
        """Canary then waves over ``names`` (devices still PENDING)."""
        topo: Topology = self.fleet.topology
        first = canary(topo, names, self.options.canary) if with_canary else []
        for n in first:
            self.devices[n].canary = True
        self.waves = [first] if first else []
        self.waves += plan_waves(topo, names, self.options.waves, first)
        for i, wave in enumerate(self.waves):
            is_canary = bool(first) and i == 0
            label = "canary" if is_canary else f"wave {i if first else i + 1}"
            halted = self.run_wave(wave, label, is_canary)
            if halted:
                return self.finish(RunState.HALTED, halted)
        return self.finish(RunState.COMPLETE, "every wave done")

    def run_wave(self, wave: list[str], label: str, is_canary: bool) -> str | None:
        """Run one wave; the reason the run halts, or None."""
        if self.stop.is_set():
            return "stopped before " + label
        need = self.options.budget.wave(len(wave), self.options.parallel)
        if not self.options.dry_run and not self.options.window.room_for(self.clock.now(), need):
            left = self.options.window.remaining(self.clock.now())
            return f"the window has {left:.0f} s left, {label} needs {need:.0f} s"
        if self.inflight is not None:
            got = self.admit(wave, label, need)
            if isinstance(got, str):
                return got
            wave = got
        try:
            return self._wave(wave, label, is_canary)
        finally:
            if self.inflight is not None:
                self.inflight.release(wave)

    def admit(self, wave: list[str], label: str, need: float) -> list[str] | str:
        """Sharded runs: the devices of ``wave`` that fit beside the devices other shards
        have in flight (:mod:`rocetune.apply.inflight`); the others go to a later wave.
        Waits while none fits; the reason to halt when the window or a stop ends the wait."""
        assert self.inflight is not None
        doms = domains(self.fleet.topology)
        while True:
            taken, waiting = self.inflight.admit(wave, doms, self.options.window.end)
            if waiting:
                self.record.write("inflight", label=label, admitted=taken, waiting=waiting)
            if taken:
                if waiting:
                    self.waves.append(list(waiting))
                return taken
            if self.stop.is_set():
                return "stopped while waiting for other shards' devices in flight"
            if not self.options.window.room_for(self.clock.now() + self.options.poll_s, need):
                return f"{label}: the window ended while waiting for " + "; ".join(waiting.values())
            self.clock.sleep(self.options.poll_s)

    def _wave(self, wave: list[str], label: str, is_canary: bool) -> str | None:
        state = RunState.CANARY if is_canary else RunState.WAVE
        self.record.write("wave", label=label, devices=wave)
        self.set_state(state, f"{label}: {', '.join(wave)}")
        with ThreadPoolExecutor(max_workers=max(1, self.options.parallel)) as pool:
            list(pool.map(lambda n: self.worker.apply(self.devices[n]), wave))
        failed = [n for n in wave if not self.ok(self.devices[n])]
        limit = 0 if is_canary else self.options.max_fail
        if self.stop.is_set() or len(failed) > limit:
            why = (
                "stopped"
                if self.stop.is_set()
                else (
                    f"{label}: {len(failed)} device(s) failed ({', '.join(failed)}), "
                    f"--max-fail {limit}"
                )
            )
            self.roll_back_wave(wave, why)
            return why
        return None

    def ok(self, dev: DeviceRun) -> bool:
        """Whether the device did what was asked."""
        if self.options.dry_run:
            return dev.state == D.ABORTED and dev.reason.startswith("dry run")
        return dev.state == D.DONE

    def roll_back_wave(self, wave: Sequence[str], reason: str) -> None:
        """Roll back the wave's devices that are DONE (the failed ones already were)."""
        done = [self.devices[n] for n in wave if self.devices[n].state == D.DONE]
        with ThreadPoolExecutor(max_workers=max(1, self.options.parallel)) as pool:
            list(pool.map(lambda d: self.worker.rollback(d, f"wave halted: {reason}"), done))


def unreachable_error(exc: Exception) -> Unreachable:
    """Wrap anything a session raised as Unreachable."""
    return exc if isinstance(exc, Unreachable) else Unreachable(str(exc))


__all__ = ["EXIT_ROLLED_BACK", "Run", "RunResult", "new_run_id", "select"]
