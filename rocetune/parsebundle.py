"""One file with every parsed device of an audit, read back in one piece by its next run.

A cached re-audit of a big fleet read one parse cache entry per device (rocetune.parsecache):
10,500 files opened, their headers parsed, their MACs checked and their pickles loaded one
by one, each device holding its own copy of every map (equal maps are shared only among
the devices parsed in the run, rocetune.model.share): ~3 s of a 10 s re-audit. A bundle
holds the devices of one audit (one inventory: its own file) pickled together, so a map
shared by a thousand ports of the run that wrote it is stored, and read back, once: the
whole fleet loads in a fraction of that.

The bundle answers :meth:`rocetune.parsecache.ParseCache.get` for the keys it holds (the
entries' content keys and identities; every device is still stored as its own entry too,
which answers when the bundle does not). It holds each device's provenance tables as its
entry does, after the pickle (a finding's first lookup of a line reads them). A device
whose snapshot changed is read from its entry; the bundle is written again only when more
than a tenth of what the run loaded did not come from it (or it held that many devices the
run did not ask for), so a re-audit with a few changed devices never rewrites it.

Like the entries, it is pickled only under the user's key (rocetune.cacheauth): its index
(the devices, and the BLAKE2b sum of each device's provenance tables) under a MAC, never
unpickled unless the MAC verifies and its header names the installed rocetune code and the
running Python and pydantic (a pickle names classes: it is read back only by the code that
wrote it); tables that do not match their sum read as none (findings without lines). No
key, no bundle. A bundle that does not read back is ignored (the entries answer).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rocetune.model import Device
    from rocetune.parsecache import Checked, ParseCache
    from rocetune.platforms.base import ParseResult

FORMAT = 1
"""Layout of a bundle (its header names it)."""
_REWRITE_SHARE = 10
"""Rewrite when more than 1/_REWRITE_SHARE of the run's devices did not come from it."""

_Source = tuple[str, "int | None"] | None
_Held = tuple[str, "Device", _Source, bytes, str]
"""What the bundle holds per key: identity, device, the device's own source
(``lookup(None)``), its pickled provenance tables and their sum."""


@dataclass
class Bundle:
    """The bundle of one audit scope in a cache's version directory, as one run uses it."""

    path: Path
    held: dict[str, _Held] | None = None
    """Key -> what the bundle holds (None until read; empty when absent or unusable)."""
    existed: bool = False
    used: set[str] = field(default_factory=set)
    """Keys the bundle answered this run."""
    seen: dict[str, tuple[str, ParseResult]] = field(default_factory=dict)
    """Key -> (identity, parse) of the devices this run read from entries or parsed."""

    @classmethod
    def of(cls, versioned: Path, scope: str) -> Bundle:
        """The bundle of ``scope`` (an audit's inventory) under the version directory."""
        name = hashlib.blake2b(scope.encode("utf-8", "surrogatepass"), digest_size=16)
        return cls(versioned / "bundles" / f"{name.hexdigest()}.bin")

    def get(self, key: str, identity: str) -> tuple[Device, Checked] | None:
        """The bundled device of ``key`` stored for ``identity`` and its provenance (None:
        not in the bundle)."""
        held = self._read().get(key)
        if held is None or (identity and held[0] != identity):
            return None
        self.used.add(key)
        from rocetune.model import SourceRef
        from rocetune.parsecache import Checked

        src = held[2]
        own = SourceRef(src[0], src[1]) if src is not None else None
        return held[1], Checked(held[3], held[4], own)

    def saw(self, key: str, identity: str, result: ParseResult) -> None:
        """Record a device this run read from its entry or parsed (for :meth:`save`)."""
        self.seen[key] = (identity, result)

    def forget(self, key: str) -> None:
        """``key`` was read but is not used after all (its snapshot changed)."""
        self.used.discard(key)
        self.seen.pop(key, None)

    def stale(self) -> bool:
        """Whether the bundle should be written again (see the module docstring)."""
        held = self._read()
        fresh = [k for k in self.seen if k not in self.used]
        total = len(self.used) + len(fresh)
        if total == 0:
            return False
        if not self.existed:
            return True
        missed = len(fresh) + len(held) - len(self.used)
        return missed * _REWRITE_SHARE > total

    def save(self) -> bool:
        """Write the bundle of what this run loaded when it is stale (:meth:`stale`); True
        when written. ``OSError`` when it cannot be written."""
        from rocetune import cacheauth

        secret = cacheauth.secret()
        if secret is None or not self.stale():
            return False
        import pickle

        from rocetune.outputs import replace_bytes
        from rocetune.parsecache import checksum, pickled_provenance

        held = self._read()
        out = {k: held[k] for k in self.used}
        for key, (identity, result) in self.seen.items():
            if key not in out:
                data, own = pickled_provenance(result.provenance)
                src = (own.file, own.line) if own is not None else None
                out[key] = (identity, result.device, src, data, checksum(data))
        index: dict[str, tuple[str, Device, _Source, int, int, str]] = {}
        tables: list[bytes] = []
        offset = 0
        for key, (identity, device, src, data, total) in out.items():
            index[key] = (identity, device, src, offset, len(data), total)
            tables.append(data)
            offset += len(data)
        body = pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL)
        header = {**_header(), "size": len(body)}
        tag = cacheauth.mac(secret, _canonical(header), body)
        line = json.dumps({**header, "mac": tag}, sort_keys=True).encode()
        replace_bytes(self.path, b"".join((line, b"\n", body, *tables)))
        return True

    def _read(self) -> dict[str, _Held]:
        if self.held is None:
            self.held = {}
            try:
                raw = self.path.read_bytes()
            except OSError:
                return self.held
            self.existed = True
            try:
                got = _decoded(raw)
            except Exception:  # a damaged bundle only costs the entries' reads
                got = None
            self.held = got if got is not None else {}
        return self.held


def _header() -> dict[str, Any]:
    from rocetune.parsecache import CACHE_VERSION, code_fingerprint, runtime

    return {
        "format": FORMAT,
        "version": CACHE_VERSION,
        "code": code_fingerprint(),
        "runtime": runtime(),
    }


def _canonical(header: dict[str, Any]) -> bytes:
    return json.dumps(header, sort_keys=True).encode()


def _decoded(raw: bytes) -> dict[str, _Held] | None:
    """The bundle's contents; None unless its header is this code's and its MAC verifies.
    The index (devices, and the sum of each device's provenance tables) is authenticated;
    the tables after it are checked against their sums when first used."""
    from rocetune import cacheauth

    secret = cacheauth.secret()
    cut = raw.index(b"\n")
    header = json.loads(raw[:cut])
    if not isinstance(header, dict):
        return None
    tag = header.pop("mac", None)
    size = header.pop("size", None)
    if header != _header() or type(size) is not int or not 0 <= size <= len(raw) - cut - 1:
        return None
    body = raw[cut + 1 : cut + 1 + size]
    head = _canonical({**header, "size": size})
    if secret is None or not cacheauth.verify(secret, tag, head, body):
        return None
    import pickle

    index = pickle.loads(body)  # authenticated: written by this user with this code
    tables = raw[cut + 1 + size :]
    return _held(index, tables)


def _held(index: object, tables: bytes) -> dict[str, _Held] | None:
    """What an authenticated index and the tables after it hold (None: not a bundle's)."""
    from rocetune.model import Device

    if not isinstance(index, dict):
        return None
    out: dict[str, _Held] = {}
    for key, item in index.items():
        if not (isinstance(key, str) and isinstance(item, tuple) and len(item) == 6):
            return None
        identity, device, src, offset, length, total = item
        if not (
            isinstance(identity, str)
            and isinstance(device, Device)
            and _source_ok(src)
            and type(offset) is int
            and type(length) is int
            and 0 <= offset <= offset + length <= len(tables)
            and isinstance(total, str)
        ):
            return None
        out[key] = (identity, device, src, tables[offset : offset + length], total)
    return out


def _source_ok(src: object) -> bool:
    """A bundled device's own source: None or (file, line or None)."""
    if src is None:
        return True
    if not isinstance(src, tuple) or len(src) != 2:
        return False
    return type(src[0]) is str and (src[1] is None or type(src[1]) is int)


def use_bundle(cache: ParseCache, scope: str) -> None:
    """Read and write the bundle of ``scope`` (an audit's inventory) through ``cache`` this
    run; none without the user's key (rocetune.cacheauth: a bundle is pickled)."""
    from rocetune import cacheauth
    from rocetune.parsecache import CACHE_VERSION

    if cacheauth.secret() is not None:
        cache.bundle = Bundle.of(cache.directory / CACHE_VERSION, scope)
