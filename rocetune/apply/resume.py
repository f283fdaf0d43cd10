"""Continue or revert a recorded run: ``--resume RUN``, ``--rollback RUN``, ``--status RUN``.

**Resume** (the controller died): the record says how far each device got. A device that may
have been changed is reconciled against the device itself before anything else happens:
a commit of ours still armed is rolled back (its gates ran on a controller that is gone);
nothing pending and the running config equal to the plan applied means the confirm landed
(it is saved and DONE); equal to the pre-change snapshot means the device timer fired
(ROLLED_BACK); anything else is STUCK. Devices that had not started go on in waves.

**Rollback** of a run: every device the run left DONE gets the plan's own rollback as a new
transaction (stage, diff, arm with the timer, gates, confirm, save) in reverse wave order;
its target is the pre-change snapshot the run kept, and it is refused (stale) when the device
no longer runs what the run left.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from rocetune.apply.device import DeviceWorker
from rocetune.apply.devrun import DeviceRun, Lost
from rocetune.apply.fleet import Fleet, Unreachable
from rocetune.apply.gates import CounterLimits, Observation, differences, same_state
from rocetune.apply.options import ApplyOptions, Clock, Observer
from rocetune.apply.planfile import PlannedDevice, load_plan
from rocetune.apply.record import AUDIT, RecordError, RunSummary, read_events, summarize
from rocetune.apply.run import Run, RunResult
from rocetune.apply.states import FINAL, DeviceState, RunState
from rocetune.apply.window import Window, iso
from rocetune.platforms.transaction import TransactionError

D = DeviceState


def recorded_options(summary: RunSummary, base: ApplyOptions) -> ApplyOptions:
    """The run's options as its start event recorded them (``base`` for the rest)."""
    raw: dict[str, Any] = summary.start.get("options", {})
    start, end = raw.get("window", [base.window.start, base.window.end])
    return replace(
        base,
        change_id=str(summary.start.get("change_id", base.change_id)),
        window=Window(float(start), float(end)),
        devices=tuple(raw.get("devices", ())),
        canary=int(raw.get("canary", base.canary)),
        waves=tuple(raw.get("waves", base.waves)),
        max_fail=int(raw.get("max_fail", base.max_fail)),
        confirm_within_s=float(raw.get("confirm_within_s", base.confirm_within_s)),
        allow_disruptive=bool(raw.get("allow_disruptive", False)),
        verify_pairs=tuple(tuple(p) for p in raw.get("verify_pairs", ())),
        dry_run=bool(raw.get("dry_run", False)),
        parallel=int(raw.get("parallel", base.parallel)),
        counter_limits=CounterLimits(**raw.get("counter_limits", {}))
        if "counter_limits" in raw
        else base.counter_limits,
        counters_settle_s=float(raw.get("counters_settle_s", base.counters_settle_s)),
        shard=raw.get("shard", base.shard),
    )


def _plan_of(summary: RunSummary, directory: Path) -> dict[str, PlannedDevice]:
    path = Path(str(summary.start.get("plan", "")))
    plan = load_plan(path)
    if plan.digest != summary.start.get("plan_hash"):
        msg = f"the plan {path} changed since run {summary.run_id} started; restore it"
        raise RecordError(msg, file=directory / AUDIT)
    return plan.devices


def reconcile(worker: DeviceWorker, dev: DeviceRun) -> None:
    """Bring a device the dead controller left mid-way to a known state (see module doc)."""
    state = dev.state
    if state == D.PENDING or (state in FINAL and state != D.STUCK):
        return
    if state in (D.PRECHECKED, D.LOCKED):
        reason = "resumed: nothing was staged"
        worker.record.write("reset", device=dev.name, old=state.value, reason=reason)
        dev.state = D.PENDING
        return
    if not worker.load_pre(dev):
        worker.move(dev, D.STUCK, "resumed: no pre-change snapshot kept; check by hand")
        return
    if state == D.ROLLING_BACK:
        worker.prove_rollback(dev, worker.undo(dev, D.ARMED))
        return
    tx = worker.tx_for(dev)
    armed = False
    try:
        session = worker.open_session(dev)
        try:
            if tx is not None:
                armed = worker.call(dev, "pending", tx.pending, session).armed  # type: ignore[attr-defined]
        finally:
            session.close()
        now = worker.observe(dev, worker.collect_now(dev), None)
    except (Unreachable, TransactionError, Lost) as exc:
        if state != D.STUCK:
            worker.move(dev, D.STUCK, f"resumed: device state unknown: {exc}")
        return
    if armed:
        worker.rollback(dev, "resumed: our commit was still armed; its gates are stale")
    elif dev.intended is not None and not differences(dev.intended, now.model, worker.fleet.intent):
        _plan_runs(worker, dev, tx, now)
    else:
        _not_the_plan(worker, dev, now)


def _plan_runs(worker: DeviceWorker, dev: DeviceRun, tx: Any, now: Observation) -> None:
    state = dev.state
    if state in (D.STAGED, D.ARMED):  # the gates never finished: no confirm was sent
        worker.move(
            dev,
            D.STUCK,
            "resumed: the plan runs with nothing pending although it was never confirmed; "
            "check the device and confirm or roll back",
        )
        return
    if state == D.VERIFYING:
        reason = "resumed: nothing pending and the plan runs: the confirm had landed"
        worker.move(dev, D.CONFIRMED, reason)
    if tx is None:
        return
    if dev.state == D.CONFIRMED:
        worker.save_done(dev, tx, None, now)
    elif dev.state == D.SAVED:
        worker.finish_done(dev, now)
    elif dev.state == D.STUCK:
        try:
            session = worker.open_session(dev)
            try:
                worker.call(dev, "save", tx.save, session)
            finally:
                session.close()
        except (Unreachable, TransactionError, Lost) as exc:
            worker.record.write("note", device=dev.name, reason=f"save failed: {exc}")
            return
        worker.move(dev, D.DONE, "resumed: the plan runs and is saved")


def _not_the_plan(worker: DeviceWorker, dev: DeviceRun, now: Observation) -> None:
    assert dev.pre is not None
    same, why = same_state(dev.pre, now, worker.fleet.intent)
    if same:
        if dev.state != D.STUCK:
            worker.move(dev, D.ROLLING_BACK, "resumed: the device went back by itself")
        reason = f"resumed: re-collection equals the pre-change snapshot: {why}"
        worker.move(dev, D.ROLLED_BACK, reason)
    elif dev.state != D.STUCK:
        worker.move(dev, D.STUCK, "resumed: neither the plan nor the pre-change config runs")


def resume_run(  # noqa: PLR0917 (the run's collaborators)
    fleet: Fleet,
    runs_dir: Path,
    run_id: str,
    clock: Clock,
    observer: Observer | None,
    stop: threading.Event | None,
    base: ApplyOptions,
) -> RunResult:
    """``--resume RUN``."""
    directory = runs_dir / run_id
    summary = summarize(directory)
    planned = _plan_of(summary, directory)
    options = recorded_options(summary, base)
    run = Run(fleet, options, runs_dir, clock, observer, stop, run_id=run_id)
    names = [str(n) for n in summary.start.get("devices", [])]
    run.devices.update(
        {n: DeviceRun(planned[n], D(summary.devices.get(n, "PENDING"))) for n in names}
    )
    run.record.write("resume", reason=f"resumed by {run.record.who}")
    why = run.take_lease()
    if why:
        return run.refuse(why)
    for dev in run.devices.values():
        reconcile(run.worker, dev)
    left = [n for n, d in run.devices.items() if d.state == D.PENDING]
    if not left:
        return run.finish(RunState.COMPLETE, "resumed: every device reconciled")
    if not options.window.open_at(clock.now()):
        return run.finish(RunState.HALTED, f"resumed outside the window {options.window}")
    started = any(d.state != D.PENDING for d in run.devices.values())
    return run.waves_from(left, with_canary=not started)


def _after_hashes(directory: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for ev in read_events(directory / AUDIT):
        if ev.get("event") == "after" and "device" in ev:
            out[str(ev["device"])] = str(ev.get("config_hash"))
    return out


def rollback_run(  # noqa: PLR0917 (the run's collaborators)
    fleet: Fleet,
    runs_dir: Path,
    run_id: str,
    options: ApplyOptions,
    clock: Clock,
    observer: Observer | None,
    stop: threading.Event | None,
) -> RunResult:
    """``--rollback RUN``: revert the devices ``RUN`` left DONE, last wave first."""
    old_dir = runs_dir / run_id
    summary = summarize(old_dir)
    planned = _plan_of(summary, old_dir)
    done = [n for n, s in summary.devices.items() if s == D.DONE.value]
    after = _after_hashes(old_dir)
    run = Run(fleet, replace(options, canary=0), runs_dir, clock, observer, stop)
    for name in done:
        p = planned[name]
        inverse = PlannedDevice(
            p.name,
            p.platform,
            "changes",
            after.get(name),
            ({**p.rollback, "disruptive": p.disruptive},),
            {},
            frozenset(),
            p.codes,
        )
        dev = DeviceRun(inverse)
        original = DeviceRun(p)
        old_worker = DeviceWorker(
            fleet, run.record, options, clock, run.observer, run.stop, run_id, old_dir
        )
        if old_worker.load_pre(original):
            dev.target = original.pre.model if original.pre else None
            dev.audit_base = original.pre
        run.devices[name] = dev
    run.record.write(
        "start",
        rollback_of=run_id,
        plan=summary.start.get("plan"),
        plan_hash=summary.start.get("plan_hash"),
        devices=sorted(run.devices),
        options={"window": [options.window.start, options.window.end]},
    )
    now = clock.now()
    if not options.window.open_at(now):
        return run.refuse(f"outside the maintenance window {options.window} (now {iso(now)})")
    why = run.take_lease()
    if why:
        return run.refuse(why)
    missing = [n for n, d in run.devices.items() if d.target is None]
    if missing:
        return run.refuse(f"no pre-change snapshot kept for {', '.join(missing)}")
    if not run.devices:
        return run.finish(RunState.COMPLETE, f"run {run_id} left no device DONE")
    order = [[n for n in w if n in run.devices] for w in reversed(summary.waves)]
    run.waves = [w for w in order if w]
    for i, wave in enumerate(run.waves):
        halted = run.run_wave(wave, f"rollback wave {i + 1}", False)
        if halted:
            return run.finish(RunState.HALTED, halted)
    return run.finish(RunState.ROLLED_BACK, f"run {run_id} rolled back")


def status(runs_dir: Path, run_id: str) -> str:
    """``--status RUN``: the run's state and each device's last state, as text."""
    directory = runs_dir / run_id
    if not (directory / AUDIT).is_file():
        raise RecordError(f"no run {run_id} (no {AUDIT})", file=directory)
    s = summarize(directory)
    lines = [
        f"run {s.run_id}: {s.run_state}  change {s.start.get('change_id')}  "
        f"by {s.start.get('who')}  plan {s.start.get('plan')}",
    ]
    for i, wave in enumerate(s.waves):
        lines.append(f"  wave {i}: {', '.join(wave)}")
    width = max((len(n) for n in s.devices), default=0)
    for name in sorted(s.devices):
        lines.append(f"  {name:<{width}}  {s.devices[name]:<12} {s.reasons.get(name, '')}")
    return "\n".join(lines) + "\n"


def merged_status(runs_dir: Path, run_ids: list[str]) -> str:
    """``--status RUN --status RUN ...``: each run, then one line over all of them (the runs
    of a sharded apply, ``--shard I/N``, merged: device counts by state, the shards seen, and
    any device two runs both worked on)."""
    texts = [status(runs_dir, r) for r in run_ids]
    if len(run_ids) < 2:
        return "".join(texts)
    seen: dict[str, list[str]] = {}
    states: dict[str, str] = {}
    shards = []
    for run_id in run_ids:
        s = summarize(runs_dir / run_id)
        shards.append(str(s.start.get("options", {}).get("shard") or "-"))
        for name, state in s.devices.items():
            seen.setdefault(name, []).append(run_id)
            states[name] = state
    counts: dict[str, int] = {}
    for state in states.values():
        counts[state] = counts.get(state, 0) + 1
    both = sorted(n for n, runs in seen.items() if len(runs) > 1)
    line = (
        f"merged {len(run_ids)} runs (shards {', '.join(shards)}): {len(states)} device(s) "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )
    if both:
        line += f"; in more than one run (last state counted): {', '.join(both[:10])}"
    return "".join(texts) + line + "\n"
