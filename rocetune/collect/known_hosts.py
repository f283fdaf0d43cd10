"""known_hosts read as OpenSSH reads it, once per run.

paramiko's own loader stops at the first line it cannot decode, so one standard
``@cert-authority`` or ``@revoked`` line made every device fail. This reader follows
sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT":

- ``[@marker] hostpatterns keytype base64-key [comment]``; blank lines and ``#`` comments
  are ignored;
- host patterns are comma-separated, with ``*`` and ``?`` wildcards and ``!`` negation (a
  negated match excludes the line whatever else matches); ``[host]:port`` names a
  non-standard port; ``|1|salt|hash`` is a hashed name (HMAC-SHA1 of the name, keyed
  with the salt);
- ``@revoked`` keys are refused for every host, even where another line lists them;
- ``@cert-authority`` lines trust certificates signed by that CA: rocetune verifies plain
  host keys only, so such lines are skipped (a host known only through its CA is then
  "host key unknown"), with one warning;
- a malformed line is skipped with a warning naming its line number, never the whole file.

The keys that apply to one endpoint are handed to paramiko (exec channels) or written to a
private one-host file for netmiko, which only takes a path.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

_MAX_BYTES = 16 * 1024 * 1024
"""A known_hosts file larger than this is refused (OpenSSH files are kilobytes)."""

_KEY_TYPES = frozenset(
    {
        "ssh-rsa",
        "ssh-dss",
        "ssh-ed25519",
        "ecdsa-sha2-nistp256",
        "ecdsa-sha2-nistp384",
        "ecdsa-sha2-nistp521",
        "sk-ssh-ed25519@openssh.com",
        "sk-ecdsa-sha2-nistp256@openssh.com",
    }
)


@dataclass(frozen=True)
class HostKey:
    """One trusted key: its type and base64 blob."""

    keytype: str
    key: str


@dataclass(frozen=True)
class _Entry:
    patterns: tuple[str, ...]
    keytype: str
    key: str


@dataclass
class KnownHosts:
    """A parsed known_hosts file."""

    entries: list[_Entry] = field(default_factory=list)
    revoked: set[tuple[str, str]] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    _exact: dict[str, list[int]] | None = field(default=None, repr=False, compare=False)
    """Plain host name (lower case) -> indexes of the entries that list it."""
    _scan: list[int] = field(default_factory=list, repr=False, compare=False)
    """Indexes of the entries with a wildcard, negated or hashed pattern (tried one by one)."""

    def keys_for(self, host: str, port: int | None) -> list[HostKey]:
        """The non-revoked keys OpenSSH would accept for ``host`` on ``port``.

        Entries whose patterns are all plain names are found through an index built on the
        first lookup, so a run over many devices does not match every line per device."""
        name = endpoint_name(host, port)
        if self._exact is None:
            self._index()
        assert self._exact is not None
        candidates = sorted({*self._exact.get(name.lower(), ()), *self._scan})
        out: list[HostKey] = []
        for i in candidates:
            entry = self.entries[i]
            if (entry.keytype, entry.key) in self.revoked:
                continue
            if _matches(entry.patterns, name):
                key = HostKey(entry.keytype, entry.key)
                if key not in out:
                    out.append(key)
        return out

    def _index(self) -> None:
        exact: dict[str, list[int]] = {}
        self._scan = []
        for i, entry in enumerate(self.entries):
            if any(_special(p) for p in entry.patterns):
                self._scan.append(i)
                continue
            for pattern in entry.patterns:
                exact.setdefault(pattern.lower(), []).append(i)
        self._exact = exact


def _special(pattern: str) -> bool:
    """A pattern that is not one literal name: wildcard, negation or a hashed name."""
    return pattern.startswith(("!", "|")) or "*" in pattern or "?" in pattern


def _matches(patterns: tuple[str, ...], name: str) -> bool:
    hit = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        pat = pattern[1:] if negated else pattern
        if pat.startswith("|1|"):
            ok = _hashed_match(pat, name)
        else:
            ok = _glob(pat).fullmatch(name.lower()) is not None
        if ok and negated:
            return False
        hit = hit or ok
    return hit


@lru_cache(maxsize=4096)
def _glob(pattern: str) -> re.Pattern[str]:
    """OpenSSH patterns know only ``*`` and ``?`` (``[`` is literal: ``[host]:port``)."""
    parts = (".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern.lower())
    return re.compile("".join(parts), re.DOTALL)


def _hashed_match(pattern: str, name: str) -> bool:
    parts = pattern.split("|")
    if len(parts) != 4:
        return False
    try:
        salt = base64.b64decode(parts[2], validate=True)
        want = base64.b64decode(parts[3], validate=True)
    except (binascii.Error, ValueError):
        return False
    got = hmac.new(salt, name.encode(), hashlib.sha1).digest()
    return hmac.compare_digest(got, want)


def parse(text: str, source: str = "known_hosts") -> KnownHosts:
    """Parse known_hosts text; bad lines become warnings, never errors."""
    kh = KnownHosts()
    authorities = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split()
        marker = None
        if fields[0].startswith("@"):
            marker, fields = fields[0], fields[1:]
            if marker not in ("@revoked", "@cert-authority"):
                kh.warnings.append(f"{source}:{number}: unknown marker, line skipped")
                continue
        problem = _check(fields)
        if problem:
            kh.warnings.append(f"{source}:{number}: {problem}, line skipped")
            continue
        patterns, keytype, key = tuple(fields[0].split(",")), fields[1], fields[2]
        if marker == "@revoked":
            kh.revoked.add((keytype, key))
        elif marker == "@cert-authority":
            authorities += 1
        else:
            kh.entries.append(_Entry(patterns, keytype, key))
    if authorities:
        kh.warnings.append(
            f"{source}: {authorities} @cert-authority line(s) skipped: rocetune verifies "
            "plain host keys only; list the devices' own keys (ssh-keyscan)"
        )
    return kh


def _check(fields: list[str]) -> str | None:
    if len(fields) < 3:
        return "fewer than three fields"
    if fields[1] not in _KEY_TYPES:
        return f"unknown key type {fields[1][:40]!r}"
    try:
        blob = base64.b64decode(fields[2], validate=True)
    except (binascii.Error, ValueError):
        return "key is not base64"
    # The blob starts with its own key type as an SSH string: reject mismatched lines.
    if len(blob) < 4:
        return "key too short"
    n = int.from_bytes(blob[:4], "big")
    if blob[4 : 4 + n].decode("ascii", "replace") != fields[1]:
        return "key type does not match the key"
    return None


@lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int, size: int) -> KnownHosts:
    del mtime_ns, size  # part of the cache key only: a changed file is read again
    with open(path, "rb") as fh:
        data = fh.read(_MAX_BYTES + 1)
    if len(data) > _MAX_BYTES:
        kh = KnownHosts()
        kh.warnings.append(f"{path}: larger than {_MAX_BYTES} bytes, not read")
        return kh
    return parse(data.decode("utf-8", "replace"), source=path)


def load(path: Path) -> KnownHosts:
    """Read ``path`` once per run (cached while its size and mtime stay the same)."""
    st = path.stat()
    return _load_cached(str(path), st.st_mtime_ns, st.st_size)


def endpoint_name(host: str, port: int | None) -> str:
    """The name OpenSSH and paramiko look up: ``host``, or ``[host]:port`` off port 22."""
    return host if port in (None, 22) else f"[{host}]:{port}"


@contextlib.contextmanager
def one_host_file(keys: list[HostKey], host: str, port: int | None) -> Iterator[Path]:
    """A private known_hosts file holding only ``keys`` for ``host`` (deleted afterwards).

    netmiko takes host keys only as a file path; this file carries the keys the full
    file grants that one endpoint, in the plain form paramiko's loader reads.
    """
    name = endpoint_name(host, port)
    fd, tmp = tempfile.mkstemp(prefix="rocetune-kh-", text=True)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            for k in keys:
                fh.write(f"{name} {k.keytype} {k.key}\n")
        yield Path(tmp)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
