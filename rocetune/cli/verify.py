"""``rocetune verify INVENTORY``: perftest between NIC pairs, counters before/after, audit."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from rocetune import inputs
from rocetune.cli.collect import collect_options, live_collector, options_from, shard_option
from rocetune.cli.common import common_options, emit, run_guarded
from rocetune.cli.settings import settings_from

if TYPE_CHECKING:
    from rocetune.model import AuditResult
    from rocetune.verify.plan import Endpoint, PairMode, Plan, Settings
    from rocetune.verify.runner import Verification

PAIR_MODES = ("all", "ring", "cross-leaf")


def _settings(tests: str, duration: int) -> Settings:
    from rocetune.errors import ConfigError
    from rocetune.verify.plan import Settings

    kinds = tuple(dict.fromkeys(t.strip() for t in tests.split(",") if t.strip()))
    if not kinds or not set(kinds) <= {"bw", "lat"}:
        msg = f"--tests: expected bw, lat or bw,lat, got {tests!r}"
        raise ConfigError(msg)
    return Settings(tests=kinds, duration_s=duration)  # type: ignore[arg-type]


def _pairs(value: str) -> PairMode | list[tuple[Endpoint, Endpoint]]:
    from rocetune.errors import ConfigError
    from rocetune.verify.plan import parse_pairs

    if value in PAIR_MODES:
        return value  # type: ignore[return-value]
    try:
        text = inputs.read_text(Path(value))
    except (OSError, inputs.InputRefused) as exc:
        msg = f"--pairs: not all, ring, cross-leaf or a readable file: {value!r} ({exc})"
        raise ConfigError(msg) from None
    return parse_pairs(text)


def dry_run_text(plan: Plan) -> str:
    """The exact perftest command lines per round (what ``--dry-run`` prints)."""
    from rocetune.verify.plan import dry_run

    lines = [f"# {len(plan.rounds)} round(s) (lower bound {plan.lower_bound})"]
    for number, commands in enumerate(dry_run(plan), start=1):
        lines.append(f"round {number}:")
        lines += [f"  {host} {role}: {command}" for host, role, command in commands]
    lines += [f"skipped {end}: {why}" for end, why in plan.skipped]
    return "\n".join(lines) + "\n"


@click.command("verify")
@click.argument("inventory", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--pairs",
    default="cross-leaf",
    show_default=True,
    help="all, ring, cross-leaf, or a file of 'hostA:nic hostB:nic' lines (A = client).",
)
@click.option("--tests", default="bw,lat", show_default=True, help="bw, lat or bw,lat.")
@click.option(
    "--duration",
    type=click.IntRange(1, 3600),
    default=10,
    show_default=True,
    help="Seconds per bandwidth test.",
)
@click.option(
    "--test-timeout",
    type=click.IntRange(2, 7200),
    default=60,
    show_default=True,
    help="Seconds before a client is stopped (more than --duration).",
)
@click.option("--dry-run", is_flag=True, help="Print the commands per round; connect to nothing.")
@shard_option
@common_options
@collect_options
def verify(
    inventory: Path,
    *,
    shard: str | None,
    pairs: str,
    tests: str,
    duration: int,
    test_timeout: int,
    dry_run: bool,
    **opts: Any,
) -> None:
    """Run perftest (ib_write_bw, ib_send_lat) between NIC pairs of INVENTORY's hosts.

    Each round snapshots the NIC counters, starts the servers, runs the clients and always
    stops the servers, then reads the counters again. The report is the audit plus the
    counter rules (RT801-RT810) and the perftest rules (RT901-RT904); the text report starts
    with a results table per pair; JSON has a `verify` list and HTML a bandwidth chart.
    --dry-run reads the snapshots only (devices without one are left out) and prints the
    exact perftest command lines per round.
    """

    def job() -> int:
        from rocetune import api
        from rocetune.shard import parse_shard

        settings = settings_from(opts)
        verify_settings = _settings(tests, duration)
        part = parse_shard(shard) if shard is not None else None
        if dry_run:
            _, _, plan = api.verify_plan(
                inventory,
                _pairs(pairs),
                verify_settings,
                settings.selection,
                settings.options,
                shard=part,
            )
            click.echo(dry_run_text(plan), nl=False)
            return 0
        if test_timeout <= duration:
            click.echo("rocetune: error: --test-timeout must exceed --duration", err=True)
            return 2
        collector, scope = live_collector(opts, None)
        with scope:
            base, inv, plan = api.verify_plan(
                inventory,
                _pairs(pairs),
                verify_settings,
                settings.selection,
                settings.options,
                collector=collector,
                shard=part,
            )
        for end, why in plan.skipped:
            click.echo(f"rocetune: skipped {end}: {why}", err=True)
        # a client prints its results at the end: the SSH read must outlast `timeout`
        read = max(float(opts["read_timeout"]), test_timeout + 10.0)
        result, found = api.verify(
            base,
            inv,
            plan,
            options_from({**opts, "read_timeout": read}),
            test_timeout=test_timeout,
            selection=settings.selection,
            options=settings.options,
            policy=settings.policy,
        )
        for problem in found.problems:
            click.echo(f"rocetune: {problem}", err=True)
        return _emit(result, found, opts, settings)

    sys.exit(run_guarded(job))


def _emit(result: AuditResult, found: Verification, opts: dict[str, Any], settings: Any) -> int:
    """The report; the text report starts with the results table."""
    from rocetune.verify.live import results_table

    if opts["fmt"] == "text":
        table = results_table(found, result.fabric.intent)
        if opts["output"] is None:
            click.echo(table, nl=False)
            return emit(result, opts, settings)
        code = emit(result, opts, settings)
        out: Path = opts["output"]
        from rocetune.outputs import write_atomic

        write_atomic(out, table + out.read_text(encoding="utf-8"))
        return code
    return emit(result, opts, settings)
