"""Collect many devices: plan targets from the inventory, run a worker pool, write snapshots.

One task per device (one SSH session for all its commands); transient failures (TCP,
banner, disconnect) are retried with exponential backoff and jitter; authentication,
host-key, DNS, configuration and command failures never are. Each device's snapshot is
written atomically as soon as it is complete; a device that fails leaves its previous
snapshot (if any) untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from pathlib import Path
from typing import Protocol

from rocetune.collect.aio_exec import AioExecTransport
from rocetune.collect.aio_shell import AioShellTransport
from rocetune.collect.credentials import CredentialError, CredentialSource
from rocetune.collect.job import Job, Outcome
from rocetune.collect.options import CollectOptions
from rocetune.collect.pool import run_jobs
from rocetune.collect.reasons import CollectError, Failure, Reason
from rocetune.collect.target import Target
from rocetune.collect.transport import NetmikoTransport, Transport
from rocetune.errors import RocetuneError
from rocetune.inventory import Inventory, ResolvedDevice
from rocetune.platforms import get_driver


class CollectConfigError(RocetuneError):
    """Collection cannot start (e.g. no known_hosts file): an input error, exit 2."""


class Progress(Protocol):
    """Receives per-device outcomes as they happen."""

    def start(self, total: int, names: Sequence[str] = ()) -> None:
        """Collection of ``total`` devices (``names``) starts."""

    def done(self, outcome: Outcome) -> None:
        """One device is finished (collected or failed)."""

    def finish(self) -> None:
        """Every device is finished."""


def _ssh_config(inv: Inventory, dev: ResolvedDevice) -> Path | None:
    raw = dev.access.ssh_config
    if raw is None:
        return None
    path = Path(raw).expanduser()
    return path if path.is_absolute() else inv.path.parent / path


class _NoCredentials(Exception):
    """A device has no usable credentials (gathered, then reported once for the fabric)."""


def _job(
    inv: Inventory,
    dev: ResolvedDevice,
    creds: CredentialSource,
    transports: dict[str, Transport],
    options: CollectOptions,
) -> Job | Outcome:
    def fail(detail: str) -> Outcome:
        return Outcome(dev.name, dev.platform, failure=Failure(Reason.CONFIG, detail))

    if dev.host is None:
        return fail("no host: set host: in the inventory to collect it")
    if dev.platform is None:
        return fail("no platform: set platform: in the inventory to collect it")
    driver = get_driver(dev.platform)  # imports only that platform's package
    if driver is None:
        return fail(f"platform {dev.platform!r} has no driver yet")
    try:
        cred = creds.resolve(dev.access)
    except CredentialError as exc:
        raise _NoCredentials(str(exc)) from None
    device_type = dev.access.device_type or driver.device_type
    use_exec = driver.kind == "host" and options.host_transport == "exec"
    use_exec = use_exec and dev.access.device_type is None
    target = Target(
        dev.name,
        dev.host,
        dev.access.port,
        dev.platform,
        device_type,
        cred,
        _ssh_config(inv, dev),
    )
    kind = "exec" if use_exec else "netmiko"
    if driver.kind == "switch" and options.switch_transport == "asyncio":
        kind = "shell"
    transport = transports[kind]
    return Job(target, driver, dev.nics or (), transport, cred.secrets)


def _transports(options: CollectOptions) -> dict[str, Transport]:
    return {
        "netmiko": NetmikoTransport(options.timeouts, options.trust),
        "exec": AioExecTransport(options.timeouts, options.trust),
        "shell": AioShellTransport(options.timeouts, options.trust),
    }


def _preload(jobs: Sequence[Job]) -> None:
    """Import the SSH libraries the jobs use once, before the workers race for the import
    lock (asyncssh for exec hosts and the switches the asyncio shell serves; netmiko and
    paramiko only when a job needs them: netmiko chosen, a platform the asyncio shell
    hands to netmiko, a ProxyCommand)."""
    asyncio_kinds = (AioExecTransport, AioShellTransport)
    if any(isinstance(job.transport, asyncio_kinds) for job in jobs):
        import asyncssh  # noqa: F401

    def needs_netmiko(job: Job) -> bool:
        if isinstance(job.transport, AioShellTransport):
            return not job.transport.serves(job.target)
        return not isinstance(job.transport, AioExecTransport)

    if any(job.target.ssh_config or needs_netmiko(job) for job in jobs):
        import netmiko  # noqa: F401
        import paramiko  # type: ignore[import-untyped,unused-ignore]  # noqa: F401


def plan(
    inv: Inventory,
    names: Sequence[str],
    options: CollectOptions,
    creds: CredentialSource | None = None,
) -> tuple[list[Job], list[Outcome]]:
    """Resolve devices to jobs; devices that cannot be tried become failed outcomes.

    Fabric-wide configuration errors stop the run once, before any connection
    (:class:`CollectConfigError`, exit 2): a known_hosts file that does not exist, and
    missing credentials (an unset variable is one line naming the devices that need it).
    """
    try:
        options.trust.check()
    except CollectError as exc:
        raise CollectConfigError(exc.detail) from None
    creds = creds or CredentialSource.default(inv.path.parent)
    transports = _transports(options)
    jobs: list[Job] = []
    failed: list[Outcome] = []
    missing: dict[str, list[str]] = {}
    for name in names:
        try:
            item = _job(inv, inv.devices[name], creds, transports, options)
        except _NoCredentials as exc:
            missing.setdefault(str(exc), []).append(name)
            continue
        (jobs if isinstance(item, Job) else failed).append(item)  # type: ignore[arg-type]
    if missing:
        raise CollectConfigError("; ".join(_grouped(why, who) for why, who in missing.items()))
    return jobs, failed


def _grouped(why: str, devices: list[str], shown: int = 5) -> str:
    names = ", ".join(devices[:shown])
    more = f" and {len(devices) - shown} more" if len(devices) > shown else ""
    return f"{why} (needed by {names}{more})"


def collect(
    inv: Inventory,
    out_dir: Path,
    names: Sequence[str] | None = None,
    *,
    options: CollectOptions | None = None,
    progress: Progress | None = None,
    creds: CredentialSource | None = None,
) -> dict[str, Outcome]:
    """Collect ``names`` (default: every device) of ``inv`` into ``out_dir/<device>/``."""
    options = options or CollectOptions()
    names = list(inv.devices) if names is None else list(names)
    jobs, failed = plan(inv, names, options, creds)
    _preload(jobs)
    stream = run_jobs(jobs, out_dir, options)  # forks now, before a progress thread starts
    outcomes: dict[str, Outcome] = {}
    if progress is not None:
        progress.start(len(names), names)
    for outcome in chain(failed, stream):
        outcomes[outcome.name] = outcome
        if progress is not None:
            progress.done(outcome)
    if progress is not None:
        progress.finish()
    return {name: outcomes[name] for name in names}
