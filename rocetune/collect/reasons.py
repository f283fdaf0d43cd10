"""Why a device could not be collected: precise reasons from netmiko/paramiko exceptions.

netmiko raises one class, ``NetmikoTimeoutException``, for an unknown host key, a host-key
mismatch, a refused or timed-out TCP connection and a missing SSH banner, and one class,
``NetmikoAuthenticationException``, for a wrong password and an authentication timeout;
only the message and the chained paramiko/socket exception tell them apart
(collection-notes.md §4). :func:`classify` looks at both.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum


class Reason(str, Enum):
    """The cause of a collection failure (the value is what reports show)."""

    AUTH_FAILED = "auth failed"
    AUTH_TIMEOUT = "auth timeout"
    HOST_KEY_UNKNOWN = "host key unknown"
    HOST_KEY_MISMATCH = "host key mismatch"
    TCP_REFUSED = "TCP refused"
    TCP_TIMEOUT = "TCP timeout"
    DNS = "DNS failure"
    BANNER_TIMEOUT = "banner timeout"
    COMMAND_TIMEOUT = "command timeout"
    DISCONNECTED = "disconnected"
    COMMAND_ERROR = "command rejected"
    OUTPUT_TOO_LARGE = "output too large"
    OUT_OF_MEMORY = "out of memory"
    WRITE_FAILED = "write failed"
    SSH_ERROR = "SSH error"
    CONFIG = "configuration"
    INTERNAL = "internal error"

    @property
    def transient(self) -> bool:
        """Worth a retry: the network or the device may behave next time.

        Never authentication, host keys, DNS, a rejected command, local configuration or a
        command timeout (it already waited its full read timeout).
        """
        return self in _TRANSIENT


_TRANSIENT = frozenset(
    {
        Reason.TCP_REFUSED,
        Reason.TCP_TIMEOUT,
        Reason.BANNER_TIMEOUT,
        Reason.DISCONNECTED,
        Reason.SSH_ERROR,
    }
)


@dataclass(frozen=True)
class Failure:
    """A device that could not be collected."""

    reason: Reason
    detail: str
    command: str | None = None
    """The command that failed (command timeout, rejected command, disconnect)."""
    attempts: int = 1

    def __str__(self) -> str:
        where = f" during {self.command!r}" if self.command else ""
        tries = f" (after {self.attempts} attempts)" if self.attempts > 1 else ""
        return f"{self.reason.value}{where}: {self.detail}{tries}"


class CollectError(Exception):
    """Raised inside a session with an already-known reason."""

    def __init__(self, reason: Reason, detail: str, command: str | None = None) -> None:
        super().__init__(detail)
        self.reason, self.detail, self.command = reason, detail, command


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        yield cur
        cur = cur.__cause__ or cur.__context__


def _names(chain: list[BaseException]) -> set[str]:
    return {cls.__name__ for e in chain for cls in type(e).__mro__}


_BY_TEXT: tuple[tuple[str, Reason, str], ...] = (
    ("does not match", Reason.HOST_KEY_MISMATCH, "the host key differs from known_hosts"),
    ("not found in known_hosts", Reason.HOST_KEY_UNKNOWN, "the host is not in known_hosts"),
    ("Authentication timeout", Reason.AUTH_TIMEOUT, "authentication did not finish in time"),
    ("DNS failure", Reason.DNS, "the host name does not resolve"),
    ("Error reading SSH protocol banner", Reason.BANNER_TIMEOUT, "no SSH banner received"),
    ("No existing session", Reason.BANNER_TIMEOUT, "no SSH banner received"),
    ("Pattern not detected", Reason.COMMAND_TIMEOUT, "no prompt after the read timeout"),
    ("Socket is closed", Reason.DISCONNECTED, "the device closed the connection"),
    ("SSH session not active", Reason.DISCONNECTED, "the device closed the connection"),
)


def classify(exc: BaseException) -> Failure:
    """Map an exception from a session to a Failure with a precise reason."""
    if isinstance(exc, CollectError):
        return Failure(exc.reason, exc.detail, exc.command)
    chain = list(_chain(exc))
    if any(isinstance(e, MemoryError) for e in chain):  # never retried: it would again
        return Failure(Reason.OUT_OF_MEMORY, "out of memory while collecting")
    names = _names(chain)
    text = " | ".join(str(e) for e in chain)
    if "BadHostKeyException" in names:
        return Failure(Reason.HOST_KEY_MISMATCH, "the host key differs from known_hosts")
    for needle, reason, detail in _BY_TEXT:
        if needle in text:
            return Failure(reason, detail)
    if "AuthenticationException" in names:
        return Failure(Reason.AUTH_FAILED, "the device rejected the credentials")
    return _by_type(chain, names, text)


def _refused(e: BaseException) -> bool:
    if isinstance(e, ConnectionRefusedError):
        return True
    if isinstance(e, OSError) and e.errno == errno.ECONNREFUSED:
        return True
    inner = getattr(e, "errors", None)  # paramiko NoValidConnectionsError: addr -> error
    return isinstance(inner, dict) and bool(inner) and all(_refused(v) for v in inner.values())


def _by_type(chain: list[BaseException], names: set[str], text: str) -> Failure:
    for e in chain:
        if _refused(e):
            return Failure(Reason.TCP_REFUSED, "nothing listens on the SSH port")
        if isinstance(e, socket.gaierror):
            return Failure(Reason.DNS, "the host name does not resolve")
    if "ReadTimeout" in names:
        return Failure(Reason.COMMAND_TIMEOUT, "no prompt after the read timeout")
    if "TCP connection to device failed" in text or any(
        isinstance(e, TimeoutError | socket.timeout) for e in chain
    ):
        return Failure(Reason.TCP_TIMEOUT, "the TCP connection timed out or is unreachable")
    if any(isinstance(e, EOFError | ConnectionError) for e in chain):
        return Failure(Reason.DISCONNECTED, "the device closed the connection")
    if "SSHException" in names or "NetmikoBaseException" in names:
        first = str(chain[0]).strip().splitlines()
        return Failure(Reason.SSH_ERROR, first[0] if first else type(chain[0]).__name__)
    if isinstance(chain[0], OSError):
        return Failure(Reason.DISCONNECTED, f"{type(chain[0]).__name__}: {chain[0]}")
    return Failure(Reason.INTERNAL, f"{type(chain[0]).__name__}: {chain[0]}")
