"""Collection settings (the netmiko device type is the platform's ``device_type``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rocetune.collect.target import Timeouts, Trust

DEFAULT_WORKERS = 32
"""Concurrent sessions. netmiko is CPU-bound at ~18 ms per device under the GIL, so more
threads buy little; real devices are latency-bound (0.5-3 s per command), where this is
what sets the wall time. Raise it for large fleets."""

HostTransport = Literal["exec", "shell"]
SwitchTransport = Literal["asyncio", "netmiko"]


def default_known_hosts() -> Path:
    """The user's OpenSSH known_hosts file."""
    return Path.home() / ".ssh" / "known_hosts"


@dataclass(frozen=True)
class CollectOptions:
    """How to collect."""

    workers: int = DEFAULT_WORKERS
    retries: int = 2
    """Extra attempts after a transient failure (never after auth or host-key failures)."""
    backoff: float = 1.0
    """Seconds before the first retry; doubled for each further retry (plus jitter)."""
    timeouts: Timeouts = field(default_factory=Timeouts)
    trust: Trust = field(default_factory=lambda: Trust(default_known_hosts()))
    host_transport: HostTransport = "exec"
    """``exec``: Linux hosts over SSH exec channels; ``shell``: netmiko like switches."""
    switch_transport: SwitchTransport = "asyncio"
    """``asyncio``: switches through rocetune's shell over asyncssh
    (:mod:`rocetune.collect.aio_shell`, which hands what it does not serve to netmiko);
    ``netmiko``: every switch through netmiko."""
    durable: bool = True
    """fsync snapshot files before the rename (crash safety against power loss too)."""
    processes: int | None = None
    """Processes sharing the work (None: automatic, one per 64 devices up to the CPUs)."""
