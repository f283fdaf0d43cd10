"""``rocetune apply PLAN.json``: the reviewed plan applied in a maintenance window."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import click

from rocetune.cli.collect import collect_options, options_from, shard_option
from rocetune.cli.common import EXIT_INPUT, run_guarded

RUNS_DIR = Path("runs")


def _pairs(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    from rocetune.errors import ConfigError

    out = []
    for v in values:
        a, sep, b = v.partition(",")
        if not sep or ":" not in a or ":" not in b:
            raise ConfigError(f"--verify-pairs {v!r}: give hostA:nic,hostB:nic")
        out.append((a.strip(), b.strip()))
    return tuple(out)


def _options(opts: dict[str, Any], *, need_window: bool) -> Any:
    from rocetune.apply.gates import CounterLimits
    from rocetune.apply.options import ApplyOptions, SystemClock
    from rocetune.apply.waves import parse_waves
    from rocetune.apply.window import Budget, Window, parse_duration
    from rocetune.errors import ConfigError

    now = SystemClock().now()
    if opts["window"] and opts["now"]:
        raise ConfigError("give --window or --now, not both")
    if opts["window"]:
        window = Window.parse(opts["window"])
    elif opts["now"] or not need_window:
        window = Window.now(now, parse_duration(opts["now_for"], "--now-for"))
    else:
        raise ConfigError("give the maintenance window: --window START/DURATION or --now")
    timer = parse_duration(opts["confirm_within"], "--confirm-within")
    if not 30 <= timer <= 3600:  # the NX-OS commit-timeout range; EOS/NVUE take it too
        raise ConfigError("--confirm-within must be between 30s and 1h")
    settle = parse_duration(opts["counters_settle"], "--counters-settle")
    if settle > timer / 2:
        raise ConfigError("--counters-settle must leave half of --confirm-within for the gates")
    shard = opts.get("shard")
    if shard:
        from rocetune.shard import parse_shard

        shard = str(parse_shard(shard))
    limits = CounterLimits(
        drops=int(opts["max_lossless_drops"]),
        storms=int(opts["max_pfc_storms"]),
        pause=None if opts["max_pause_frames"] is None else int(opts["max_pause_frames"]),
    )
    return ApplyOptions(
        change_id=opts["change_id"] or "",
        window=window,
        devices=tuple(opts["devices"]),
        canary=int(opts["canary"]),
        waves=tuple(parse_waves(opts["waves"])),
        max_fail=int(opts["max_fail"]),
        confirm_within_s=timer,
        allow_disruptive=bool(opts["allow_disruptive"]),
        verify_pairs=_pairs(opts["verify_pairs"]),
        dry_run=bool(opts["dry_run"]),
        parallel=int(opts["parallel"]),
        budget=Budget(timer),
        counter_limits=limits,
        counters_settle_s=settle,
        shard=shard or None,
    )


def _watch_signals(stop: threading.Event, got: list[int]) -> None:
    """Ctrl-C / SIGTERM: stop starting work and roll back the wave in flight; the first
    signal's number is appended to ``got`` (the run then exits 128 + it: 130 / 143)."""
    import signal

    def handler(signum: int, frame: object) -> None:
        if stop.is_set():
            click.echo(
                "rocetune: still rolling back; armed devices revert by their timer", err=True
            )
            return
        got.append(signum)
        stop.set()
        name = "SIGTERM" if signum == signal.SIGTERM else "SIGINT"
        click.echo(f"rocetune: {name}: rolling back the wave in flight, then stopping", err=True)

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)


@click.command("apply")
@click.argument("plan", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-i",
    "--inventory",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The inventory the plan was made from (device addresses and credentials).",
)
@click.option("--window", help="Maintenance window START/DURATION, e.g. 2026-12-05T01:00Z/PT2H.")
@click.option("--now", is_flag=True, help="The window opens now (for --now-for).")
@click.option("--now-for", default="1h", show_default=True, help="Length of the --now window.")
@click.option("--change-id", help="Your change ticket; recorded and in every lease.")
@click.option("--device", "devices", multiple=True, help="Only this device of the plan.")
@click.option(
    "--canary",
    type=click.IntRange(0),
    default=1,
    show_default=True,
    help="Canary devices per platform x role (0: none).",
)
@click.option(
    "--waves",
    default="1,10%,100%",
    show_default=True,
    help="Wave sizes after the canary (count or %% of the rest; the last repeats).",
)
@click.option(
    "--max-fail",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Failed devices a wave tolerates before the run halts and rolls it back.",
)
@click.option(
    "--confirm-within",
    default="5m",
    show_default=True,
    help="Device-side revert timer: confirm must come before it fires.",
)
@click.option(
    "--allow-disruptive", is_flag=True, help="Apply DISRUPTIVE changes too (drained devices only)."
)
@click.option(
    "--verify-pairs",
    multiple=True,
    metavar="HOST:NIC,HOST:NIC",
    help="perftest pair run on the canary before its confirm (repeatable).",
)
@click.option("--dry-run", is_flag=True, help="Stage, show the device's diff, discard.")
@click.option("--resume", metavar="RUN", help="Continue RUN after the controller died.")
@click.option("--rollback", metavar="RUN", help="Revert the devices RUN completed.")
@click.option(
    "--status",
    metavar="RUN",
    multiple=True,
    help="Show RUN's record and exit (repeat for the runs of a sharded apply: merged).",
)
@click.option(
    "--runs-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=RUNS_DIR,
    show_default=True,
    help="Where run records (runs/<run>/audit.jsonl) live.",
)
@click.option(
    "--parallel",
    type=click.IntRange(1, 512),
    default=20,
    show_default=True,
    help="Devices of a wave worked on at the same time.",
)
@click.option(
    "--max-lossless-drops",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Counter gate: drops a port may add on a lossless priority after the change.",
)
@click.option(
    "--max-pfc-storms",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="Counter gate: PFC watchdog/storm events a port may add after the change.",
)
@click.option(
    "--max-pause-frames",
    type=click.IntRange(0),
    default=None,
    help="Counter gate: PFC frames a port may add per lossless priority (default: "
    "reported, not gated; pause frames are normal under load).",
)
@click.option(
    "--counters-settle",
    default="0s",
    show_default=True,
    help="Wait this long after arming before the re-read, so the counters see traffic.",
)
@shard_option
@collect_options
def apply(plan: Path | None, **opts: Any) -> None:
    """Apply PLAN.json (from `rocetune plan --format json`) in a maintenance window.

    Each device: fresh collection (the plan must not be stale), stage, the device's own diff,
    commit with a device-side revert timer, re-collect and gate (config equals the plan,
    planned findings gone and no new error, counters, LLDP, verify on the canary), confirm,
    save. Canary first, then failure-domain-aware waves. Any failure, lost management,
    Ctrl-C/SIGTERM or window end rolls back. Record: RUNS_DIR/<run>/audit.jsonl.
    Exit: 0 done, 1 rolled back/refused, 2 usage, 3 unreachable, 4 needs a human.
    """
    from rocetune.cli.apply_progress import progress

    def job() -> int:
        if opts["status"]:
            from rocetune.apply.resume import merged_status

            click.echo(merged_status(opts["runs_dir"], list(opts["status"])), nl=False)
            return 0
        resuming = opts["resume"] or opts["rollback"]
        if not resuming and plan is None:
            click.echo(
                "rocetune: error: give PLAN.json (or --resume/--rollback/--status RUN)", err=True
            )
            return EXIT_INPUT
        if not resuming and not opts["change_id"]:
            click.echo("rocetune: error: give --change-id (recorded with every change)", err=True)
            return EXIT_INPUT
        from rocetune.api.applying import apply as run_apply

        options = _options(opts, need_window=not (opts["dry_run"] or opts["resume"]))
        stop = threading.Event()
        signalled: list[int] = []
        _watch_signals(stop, signalled)
        with progress(sys.stderr) as observer:
            result = run_apply(
                plan,
                opts["inventory"],
                options,
                opts["runs_dir"],
                resume=opts["resume"],
                rollback=opts["rollback"],
                collect_options=options_from(opts),
                observer=observer,
                stop=stop,
            )
        click.echo(
            f"run {result.run_id}: {result.state.value} ({result.reason}) in "
            f"{result.seconds:.1f} s; record {result.directory / 'audit.jsonl'}"
        )
        for name, dev in sorted(result.devices.items()):
            click.echo(f"  {name}: {dev.state.value}  {dev.reason}")
        if signalled:  # stopped by a signal: 130 (SIGINT) / 143 (SIGTERM), as collect/audit
            return 128 + signalled[0]
        return result.exit_code

    sys.exit(run_guarded(job))
