"""What a transport needs to reach one device: address, credentials, trust, timeouts.

:func:`endpoint` applies an OpenSSH client config file (the inventory's ``ssh_config``) the
way netmiko does: ``HostName``, ``Port`` (when the inventory gives none), ``User`` (when no
username is set), and ``ProxyCommand`` or a single-hop ``ProxyJump`` (run as ``ssh -F
<file> -W host:port <jump>``, so the jump host's own settings come from the same file).
"""

from __future__ import annotations

import shlex
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rocetune.collect.reasons import CollectError, Reason

if TYPE_CHECKING:
    from rocetune.collect.credentials import Credentials

DEFAULT_PORT = 22


@dataclass(frozen=True)
class Timeouts:
    """Limits of one session. Seconds; the banner wait is effectively min(banner, connect)
    in paramiko."""

    connect: float = 10.0
    banner: float = 10.0
    auth: float = 20.0
    read: float = 60.0
    """Per command: how long to wait for the prompt (or the end of an exec channel); a
    deadline, not an idle timeout."""
    device: float = 900.0
    """Per device: all its commands must finish within this many seconds."""
    max_output_bytes: int = 64 * 2**20
    """Not a time but a limit of the same session: output of one command past this is cut
    after its last complete line and marked truncated (the read stops there), so a flooding
    peer cannot drive memory up."""


@dataclass(frozen=True)
class Trust:
    """Host-key policy: verify against ``known_hosts``, or (explicitly) accept any key."""

    known_hosts: Path | None
    insecure: bool = False

    def check(self) -> None:
        """Raise CollectError(CONFIG) when verification is on and the file is missing.

        netmiko and paramiko silently skip a missing file, which would make every host
        "unknown" (or, with a permissive policy, trusted).
        """
        if self.insecure:
            return
        if self.known_hosts is None or not self.known_hosts.is_file():
            where = self.known_hosts or "~/.ssh/known_hosts"
            msg = (
                f"known_hosts file {where} does not exist: add the devices' host keys "
                "(ssh-keyscan) or name another file with --known-hosts"
            )
            raise CollectError(Reason.CONFIG, msg)

    def warnings(self) -> list[str]:
        """Lines of known_hosts that were skipped (markers rocetune does not use, bad lines)."""
        if self.insecure or self.known_hosts is None or not self.known_hosts.is_file():
            return []
        from rocetune.collect import known_hosts

        return list(known_hosts.load(self.known_hosts).warnings)


@dataclass(frozen=True)
class Target:
    """One device to collect."""

    name: str
    host: str
    port: int | None
    platform: str
    device_type: str
    credentials: Credentials = field(repr=False)
    ssh_config: Path | None = None


@dataclass(frozen=True)
class Endpoint:
    """Where the TCP connection really goes (after ssh_config)."""

    host: str
    port: int
    username: str
    proxy: str | None = None
    """A proxy command line (its stdin/stdout carry the SSH stream)."""

    def sock(self, timeout: float) -> Any:
        """A connected socket: TCP with TCP_NODELAY, or a paramiko ProxyCommand.

        paramiko leaves Nagle's algorithm on, which costs a delayed-ACK wait (~40 ms) on
        every exec channel request; connecting here also makes TCP errors plain
        ``OSError`` subclasses (refused, timeout, DNS) instead of netmiko's one class.
        """
        if self.proxy is not None:
            import paramiko  # type: ignore[import-untyped,unused-ignore]

            return paramiko.ProxyCommand(self.proxy)
        sock = socket.create_connection((self.host, self.port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock


def endpoint(target: Target) -> Endpoint:
    """Resolve the target's address through its ssh_config file (if any)."""
    port = target.port or DEFAULT_PORT
    user = target.credentials.username
    if target.ssh_config is None:
        return Endpoint(target.host, port, user)
    import paramiko  # type: ignore[import-untyped,unused-ignore]

    if not target.ssh_config.is_file():
        raise CollectError(Reason.CONFIG, f"ssh_config file {target.ssh_config} does not exist")
    found = paramiko.SSHConfig.from_path(str(target.ssh_config)).lookup(target.host)
    host = str(found.get("hostname", target.host))
    if target.port is None:
        port = int(found.get("port", DEFAULT_PORT))
    user = user or str(found.get("user", ""))
    proxy: str | None = None
    if "proxycommand" in found and str(found["proxycommand"]).lower() != "none":
        proxy = str(found["proxycommand"])
    elif "proxyjump" in found and str(found["proxyjump"]).lower() != "none":
        hops = str(found["proxyjump"]).split(",")
        if len(hops) > 1:
            raise CollectError(Reason.CONFIG, "ProxyJump with more than one hop is not supported")
        cfg = shlex.quote(str(target.ssh_config))
        proxy = f"ssh -F {cfg} -W {shlex.quote(f'{host}:{port}')} {shlex.quote(hops[0])}"
    if not user:
        raise CollectError(Reason.CONFIG, "no username (set the variable or User in ssh_config)")
    return Endpoint(host, port, user, proxy)
