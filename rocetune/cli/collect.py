"""``rocetune collect`` and the live-collection options of ``rocetune audit``."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from rocetune.cli.common import EXIT_INPUT, run_guarded

if TYPE_CHECKING:
    from rocetune.collect import CollectOptions, Outcome
    from rocetune.inventory import Inventory

F = TypeVar("F", bound=Callable[..., Any])
EXIT_NOT_COLLECTED = 3
DEFAULT_WORKERS = 32
"""``--workers`` default: rocetune.collect.options.DEFAULT_WORKERS (a test keeps them equal;
spelt here so that declaring the options imports no SSH code)."""
INSECURE_WARNING = (
    "rocetune: warning: --insecure-host-keys: host keys are NOT verified; anyone on the path "
    "can impersonate these devices and receive the credentials (use only in a lab)"
)


def collect_options(func: F) -> F:
    """Add the SSH options shared by `collect` and `audit`."""
    decorators = [
        click.option(
            "--workers",
            type=click.IntRange(1, 1024),
            default=DEFAULT_WORKERS,
            show_default=True,
            help="Devices collected at the same time.",
        ),
        click.option(
            "--known-hosts",
            type=click.Path(dir_okay=False, path_type=Path),
            envvar="ROCETUNE_KNOWN_HOSTS",
            help="OpenSSH known_hosts file to verify host keys [default: ~/.ssh/known_hosts].",
        ),
        click.option(
            "--insecure-host-keys",
            is_flag=True,
            help="Do not verify host keys (labs only; prints a warning).",
        ),
        click.option("--connect-timeout", type=click.FloatRange(0.1), default=10.0),
        click.option("--auth-timeout", type=click.FloatRange(0.1), default=20.0),
        click.option(
            "--read-timeout",
            type=click.FloatRange(0.1),
            default=60.0,
            show_default=True,
            help="Seconds one command's output may take (a deadline, not an idle timeout).",
        ),
        click.option(
            "--device-timeout",
            type=click.FloatRange(1.0),
            default=900.0,
            show_default=True,
            help="Seconds all of one device's commands may take.",
        ),
        click.option(
            "--max-output-mib",
            type=click.IntRange(1, 4096),
            default=64,
            show_default=True,
            help="MiB of output kept per command: past it the output is cut after its last "
            "complete line, marked truncated in meta.json and reported as RT001 (the device "
            "is still collected).",
        ),
        click.option(
            "--retries",
            type=click.IntRange(0, 10),
            default=2,
            show_default=True,
            help="Retries after a transient failure (never after auth/host-key failures).",
        ),
        click.option(
            "--processes",
            type=click.IntRange(1, 64),
            default=None,
            help="Processes sharing the work (collecting; in audit also parsing the snapshots,"
            " and 1 plans the fix: lines in one process) [default: one per 64 devices, up to"
            " the CPUs].",
        ),
        click.option(
            "--host-transport",
            type=click.Choice(["exec", "shell"]),
            default="exec",
            show_default=True,
            help="Linux hosts: one SSH exec channel per command, or an interactive shell.",
        ),
        click.option(
            "--switch-transport",
            type=click.Choice(["asyncio", "netmiko"]),
            default="asyncio",
            show_default=True,
            help="Switch CLIs: rocetune's own shell over asyncssh (netmiko's for platforms,"
            " device types and proxies it does not serve), or netmiko for every switch.",
        ),
    ]
    for deco in reversed(decorators):
        func = deco(func)
    return func


def options_from(opts: dict[str, Any], *, warn: bool = True) -> CollectOptions:
    """Build CollectOptions from the CLI options (warns on --insecure-host-keys)."""
    from rocetune.collect import CollectOptions, Timeouts, Trust
    from rocetune.collect.options import default_known_hosts

    insecure = bool(opts["insecure_host_keys"])
    if insecure and warn:
        click.echo(INSECURE_WARNING, err=True)
    connect = float(opts["connect_timeout"])
    timeouts = Timeouts(
        connect,
        connect,
        float(opts["auth_timeout"]),
        float(opts["read_timeout"]),
        float(opts["device_timeout"]),
        int(opts["max_output_mib"]) * 2**20,
    )
    trust = Trust(opts["known_hosts"] or default_known_hosts(), insecure=insecure)
    return CollectOptions(
        workers=int(opts["workers"]),
        retries=int(opts["retries"]),
        timeouts=timeouts,
        trust=trust,
        host_transport=opts["host_transport"],
        switch_transport=opts["switch_transport"],
        processes=opts["processes"],
    )


def report_failures(outcomes: dict[str, Outcome]) -> None:
    """List the devices that could not be collected, with their reasons."""
    failed = [o for o in outcomes.values() if o.failure is not None]
    if not failed:
        return
    click.echo(f"rocetune: {len(failed)} device(s) not collected:", err=True)
    for o in failed:
        click.echo(f"  {o.name}: {o.failure}", err=True)


def run_collect(
    inv: Inventory,
    out_dir: Path,
    names: list[str],
    opts: dict[str, Any],
    *,
    lock_name: str | None = None,
) -> dict[str, Outcome]:
    """Collect ``names`` (:func:`rocetune.api.collecting.collect`) with progress on stderr;
    list failures and the host keys to add at the end."""
    from rocetune.api.collecting import collect, kept_since
    from rocetune.collect.progress import progress_for

    options = options_from(opts)
    for warning in options.trust.warnings():
        click.echo(f"rocetune: warning: {warning}", err=True)
    started = time.time()
    try:
        run = collect(inv, out_dir, names, options, progress=progress_for(), lock_name=lock_name)
    except KeyboardInterrupt:
        kept = kept_since(out_dir, names, started)
        click.echo(
            f"rocetune: interrupted: {len(kept)} of {len(names)} device(s) were collected "
            f"and are kept in {out_dir}",
            err=True,
        )
        raise
    report_failures(run.outcomes)
    if run.keyscan:
        click.echo(
            "rocetune: add the unknown host keys after checking their fingerprints, e.g.:",
            err=True,
        )
        for line in run.keyscan:
            click.echo(f"  {line}", err=True)
    run.check_written()
    return run.outcomes


def live_collector(
    opts: dict[str, Any], save_to: Path | None
) -> tuple[Callable[[Inventory], dict[str, Path | str]], AbstractContextManager[Any]]:
    """For `audit`: a collector of the devices without a snapshot, and the context that
    keeps their snapshots alive (a temporary directory unless --save-snapshot is given)."""
    holder: dict[str, Path] = {}
    scope: AbstractContextManager[Any]
    if save_to is not None:
        holder["dir"] = save_to
        scope = nullcontext()
    else:
        # A signal can stop the run while collector threads still write here: cleaning up
        # must not replace the KeyboardInterrupt with "Directory not empty" (that turned a
        # Ctrl-C into an internal error and a hang on the still-running threads).
        import tempfile

        tmp = tempfile.TemporaryDirectory(prefix="rocetune-collect-", ignore_cleanup_errors=True)
        holder["dir"] = Path(tmp.name)
        scope = tmp

    def collector(inv: Inventory) -> dict[str, Path | str]:
        names = [d.name for d in inv.devices.values() if d.snapshot is None]
        if not names:
            return {}
        from rocetune.collect import CollectConfigError

        try:
            outcomes = run_collect(inv, holder["dir"], names, opts)
        except CollectConfigError as exc:  # the offline devices are still checked
            click.echo(f"rocetune: error: {exc}", err=True)
            return dict.fromkeys(names, f"not collected: configuration: {exc}")
        return {
            n: o.path if o.path is not None else f"not collected: {o.failure}"
            for n, o in outcomes.items()
        }

    return collector, scope


def shard_option(func: F) -> F:
    """``--shard i/n``: only the devices of shard i (0 to n-1) of n (rocetune.shard)."""
    return click.option(
        "--shard",
        metavar="I/N",
        help="Only the devices of shard I of N (0 <= I < N; stable by device name: "
        "sha1(name) mod N), so several controllers or a Slurm array share one fabric.",
    )(func)


@click.command("collect")
@click.argument("inventory", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for the snapshots (one sub-directory per device).",
)
@click.option(
    "--device",
    "devices",
    multiple=True,
    help="Only these devices (names or glob patterns; repeat the option).",
)
@click.option(
    "--local",
    is_flag=True,
    help="Collect this machine (a Linux host) without SSH into DIR/<hostname>/; no INVENTORY.",
)
@click.option(
    "--nics",
    help="With --local: the RoCE netdevs, comma-separated [default: from ibdev2netdev/sysfs].",
)
@click.option("--name", "host_name", help="With --local: the snapshot's name [default: hostname].")
@shard_option
@collect_options
def collect_cmd(
    inventory: Path | None,
    out_dir: Path,
    *,
    devices: tuple[str, ...],
    local: bool,
    nics: str | None,
    host_name: str | None,
    shard: str | None,
    **opts: Any,
) -> None:
    """Collect every device of INVENTORY over SSH into DIR/<device>/ snapshot directories.

    Credentials come from the environment variables the inventory names (default
    ROCETUNE_USER / ROCETUNE_PASSWORD), SSH keys, or a prompt on a terminal. Secrets are
    redacted from the outputs before they are written. Exit 3 when a device failed.

    With --local (no INVENTORY), collect the machine rocetune runs on as a Linux host: the
    same commands run as local processes, each with --read-timeout (one srun task per node
    under Slurm; see contrib/slurm/).
    """

    def job() -> int:
        if local and (shard or devices):
            click.echo(
                "rocetune: error: --local collects this machine: no --shard/--device", err=True
            )
            return EXIT_INPUT
        if local:
            return _collect_local(inventory, out_dir, nics, host_name, opts)
        if inventory is None:
            click.echo("rocetune: error: INVENTORY is required (or --local)", err=True)
            return EXIT_INPUT
        if nics or host_name:
            click.echo("rocetune: error: --nics and --name need --local", err=True)
            return EXIT_INPUT
        from rocetune.api.collecting import select
        from rocetune.inventory import load_inventory

        inv = load_inventory(inventory)
        names, lock_name = select(inv, devices, shard)
        outcomes = run_collect(inv, out_dir, names, opts, lock_name=lock_name)
        return EXIT_NOT_COLLECTED if any(not o.ok for o in outcomes.values()) else 0

    sys.exit(run_guarded(job))


def _collect_local(
    inventory: Path | None,
    out_dir: Path,
    nics: str | None,
    host_name: str | None,
    opts: dict[str, Any],
) -> int:
    """``collect --local``: this machine into DIR/<hostname>/ (exit 3 when it failed)."""
    from rocetune.api.collecting import collect_local

    if inventory is not None:
        click.echo("rocetune: error: --local collects this machine: give no INVENTORY", err=True)
        return EXIT_INPUT
    names = [n.strip() for n in nics.split(",") if n.strip()] if nics else None
    options = options_from({**opts, "insecure_host_keys": True, "known_hosts": None}, warn=False)
    run = collect_local(out_dir, options, names, host_name)
    report_failures(run.outcomes)
    run.check_written()
    [outcome] = run.outcomes.values()
    if outcome.ok:
        click.echo(
            f"rocetune: {outcome.name}: {outcome.commands} command(s), "
            f"{outcome.rejected} not available (see meta.json) -> {outcome.path}",
            err=True,
        )
    return 0 if outcome.ok else EXIT_NOT_COLLECTED
