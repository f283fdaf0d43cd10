"""The parse cache's unchanged test: stat signatures of snapshots (like git's index).

Hashing a snapshot means reading every file of it; for a fleet of 10,000 hosts that is
160,000 files per audit. Instead, when a snapshot's key is computed, the stat signature of
the snapshot (for a directory: name, mode, size, mtime, ctime and inode of every entry
:func:`rocetune.snapshot.read_directory` looks at; for a file: the same of the file) is
recorded with the key. The next run computes the signature only (one ``stat`` per file) and,
when it is the recorded one, uses the recorded key without reading anything.

Racy-clean rule (git's): a file modified within :data:`RACY_NS` of the moment the snapshot
was read (or after it) may have changed again within the timestamp granularity of its file
system without changing its signature, so such a signature is not recorded: the snapshot is
read and hashed again next time. ``ctime`` is part of the signature because a program can set
``mtime`` back (``touch -d``, ``rsync -t``) but not ``ctime``.

The index is a hint, never trusted for content: it maps a device's identity (what its key
depends on besides the files) to (signature hash, key); a stale or damaged index only costs
a read and a hash.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocetune.outputs import replace_bytes

RACY_NS = 2_000_000_000
"""Files modified this close to (or after) the read are hashed again next time."""
KEEP_S = 30 * 24 * 3600
"""Index records not used for this long are dropped (their entries pruned)."""
FORMAT = 1


@dataclass(frozen=True)
class Signature:
    """The stat signature of a snapshot: a hash, and the newest mtime/ctime in it."""

    digest: str
    newest_ns: int


_TAKEN: dict[str, tuple[int, Signature | None]] = {}
"""The signatures this process took: path -> (when, the signature)."""
_TAKEN_MAX = 1_000_000


def signature(source: Path, *, since_ns: int | None = None) -> Signature | None:
    """The stat signature of a snapshot directory or file; None when it is neither (or
    cannot be listed: the normal read reports why). ``since_ns``: the one this process took
    of ``source`` at or after that time (``time.time_ns``), if any, instead of a new one (the
    run cache stores the signatures the audit's reads took: they describe what was read)."""
    key = os.fspath(source)
    if since_ns is not None:
        held = _TAKEN.get(key)
        if held is not None and held[0] >= since_ns:
            return held[1]
    taken = time.time_ns()
    sig = _signature(source)
    if len(_TAKEN) >= _TAKEN_MAX:
        _TAKEN.clear()
    _TAKEN[key] = (taken, sig)
    return sig


def signature_taken(source: Path) -> tuple[int, Signature | None]:
    """A new :func:`signature` of ``source`` and when it was taken (``time.time_ns``)."""
    sig = signature(source)
    held = _TAKEN.get(os.fspath(source))
    return (held[0] if held is not None else 0), sig


def taken(source: Path, when_ns: int, sig: Signature) -> None:
    """Record ``sig`` as taken of ``source`` at ``when_ns`` by this process (a worker of it
    took it: :func:`signature` with ``since_ns`` then gives it)."""
    if len(_TAKEN) >= _TAKEN_MAX:
        _TAKEN.clear()
    _TAKEN[os.fspath(source)] = (when_ns, sig)


def _signature(source: Path) -> Signature | None:
    h = hashlib.blake2b(digest_size=16)
    newest = 0
    try:
        st = os.stat(source)
        if stat.S_ISDIR(st.st_mode):
            rows = []
            with os.scandir(source) as entries:
                for entry in entries:
                    if entry.name.startswith("."):
                        continue  # read_directory skips hidden entries
                    es = entry.stat(follow_symlinks=False)
                    rows.append(
                        f"{entry.name}\0{es.st_mode}\0{es.st_size}\0{es.st_mtime_ns}"
                        f"\0{es.st_ctime_ns}\0{es.st_ino}\0{es.st_dev}"
                    )
                    newest = max(newest, es.st_mtime_ns, es.st_ctime_ns)
            rows.sort()
            h.update(f"d\0{st.st_dev}\0{st.st_ino}\n".encode("utf-8", "surrogateescape"))
            h.update("\n".join(rows).encode("utf-8", "surrogateescape"))
        elif stat.S_ISREG(st.st_mode):
            lst = os.lstat(source)
            h.update(
                f"f\0{st.st_mode}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}"
                f"\0{st.st_ino}\0{st.st_dev}\0{lst.st_ino}\0{lst.st_mtime_ns}"
                f"\0{lst.st_ctime_ns}".encode()
            )
            newest = max(st.st_mtime_ns, st.st_ctime_ns, lst.st_mtime_ns, lst.st_ctime_ns)
        else:
            return None
    except OSError:
        return None
    return Signature(h.hexdigest(), newest)


@dataclass
class StatIndex:
    """Identity -> (signature, key, last used) of one cache version directory."""

    path: Path
    _records: dict[str, list[Any]] | None = field(default=None, repr=False)
    _changed: bool = False
    replaced: set[str] = field(default_factory=set)
    """Keys this run stopped using (the snapshot changed): candidates for pruning."""
    used: set[str] = field(default_factory=set)
    """Keys this run looked up or recorded."""
    journal: list[tuple[str, list[Any]]] = field(default_factory=list)
    """What this index recorded (identity, record): a forked worker sends it to the parent,
    which :meth:`apply` s it."""

    def _load(self) -> dict[str, list[Any]]:
        if self._records is None:
            self._records = _read(self.path)
        return self._records

    def read(self) -> None:
        """Read the index now (else at its first use)."""
        self._load()

    def recorded(self, identity: str) -> str | None:
        """The key recorded for ``identity`` whatever its signature (None: none); not a
        use of it (:meth:`known` says whether the snapshot is unchanged)."""
        record = self._load().get(identity)
        return None if record is None else str(record[1])

    def known(self, identity: str, sig: Signature) -> str | None:
        """The key recorded for ``identity`` with this signature, else None."""
        record = self._load().get(identity)
        if record is None or record[0] != sig.digest:
            return None
        key = str(record[1])
        self.used.add(key)
        if record[2] != _today():
            record[2] = _today()
            self._changed = True
        return key

    def note(self, identity: str, sig: Signature | None, stamp_ns: int, key: str) -> None:
        """``key`` was computed from ``identity``'s files read after ``stamp_ns``."""
        racy = sig is None or sig.newest_ns >= stamp_ns - RACY_NS
        record = ["" if racy or sig is None else sig.digest, key, _today()]
        self.apply([(identity, record)])

    def apply(self, journal: list[tuple[str, list[Any]]]) -> None:
        """Record what :meth:`note` recorded in another process."""
        records = self._load()
        for identity, record in journal:
            old = records.get(identity)
            key = str(record[1])
            self.used.add(key)
            if old is not None and old[1] != key:
                self.replaced.add(str(old[1]))
            if old != record:  # a racy signature is left empty: never matches, hashed again
                records[identity] = record
                self._changed = True
                self.journal.append((identity, record))

    def save(self) -> set[str]:
        """Write the index (merged with what another run saved meanwhile); return the keys
        no record uses any more (entries that can be deleted)."""
        if not self._changed:
            return set()
        on_disk = _read(self.path)
        mine = self._load()
        merged = {**on_disk, **mine}
        cutoff = _today() - KEEP_S // 86400
        dropped = {str(r[1]) for r in merged.values() if r[2] < cutoff}
        merged = {i: r for i, r in merged.items() if r[2] >= cutoff}
        referenced = {str(r[1]) for r in merged.values()}
        write_json(self.path, {"format": FORMAT, "records": merged})
        self._changed = False
        return (self.replaced | dropped) - referenced - self.used


def _today() -> int:
    return int(time.time() // 86400)


def _read(path: Path) -> dict[str, list[Any]]:
    from pydantic_core import from_json

    try:
        data = from_json(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    records = data.get("records")
    if not isinstance(records, dict):
        return {}
    out: dict[str, list[Any]] = {}
    for identity, record in records.items():
        if (
            isinstance(record, list)
            and len(record) == 3
            and isinstance(record[0], str)
            and isinstance(record[1], str)
            and type(record[2]) is int
        ):
            out[identity] = record
    return out


def write_json(path: Path, data: object) -> None:
    """Write ``data`` as JSON to ``path`` atomically (temporary file + rename)."""
    from pydantic_core import to_json

    write_bytes(path, to_json(data))


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file + rename)."""
    replace_bytes(path, data)
