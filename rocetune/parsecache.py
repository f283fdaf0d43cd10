"""Content-hash cache of parsed snapshots (``.rocetune_cache/``), so a re-audit parses only
the snapshots that changed.

Key: a BLAKE2b hash of everything the parse reads and everything it depends on: the text,
name and path of every snapshot file (paths end up in the provenance), ``meta.json``, the
entries that were refused, the platform, the device name and role, the parse options, the
rocetune version and a fingerprint of the installed rocetune package (path, size and
modification time of each of its files, so a changed parser in a development checkout does
not reuse entries of the old one). Value: the parsed device as the model's own JSON
(validated again when read: never unpickled) and its provenance as a plain table.

Entries are written atomically (temporary file + rename) and never trusted: an entry that
cannot be read, does not validate, names another key or whose provenance does not match its
checksum is ignored (the snapshot is parsed again and the entry rewritten). The device is
validated when the entry is read; the provenance table (as large as the device for a SONiC
switch, and needed only to point findings at lines) is checked against the BLAKE2b sum in
the header and decoded on its first lookup. Nothing here decides *whether* to cache: callers
pass a :class:`ParseCache` or None (``--no-cache``).

Unchanged test (:mod:`rocetune.statindex`): a snapshot whose files have the stat signature
(size, mtime, ctime, inode, mode of every entry) recorded when its key was last computed is
not read or hashed again; a signature is recorded only when no file was modified within
:data:`rocetune.statindex.RACY_NS` of the read (git's racy-clean rule), else the content is
hashed again next time.

Layout: ``<dir>/<CACHE_VERSION>/<key[:2]>/<key>.json``, the stat index
``<dir>/<CACHE_VERSION>/stat-index``, plus ``<dir>/.gitignore`` (``*``) and ``CACHEDIR.TAG``
so the directory is neither committed nor backed up. Entries of other rocetune versions live
under their own version directory and are never read (``rocetune cache clean`` removes
them). Entries a run replaced (the snapshot changed) are deleted when the run saves the index.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from rocetune import __version__
from rocetune.outputs import replace_bytes
from rocetune.statindex import StatIndex

if TYPE_CHECKING:
    from rocetune.model import Device, Provenance, SourceRef
    from rocetune.platforms.base import ParseResult
    from rocetune.snapshot import Snapshot


class Bundled(Protocol):
    """What :class:`ParseCache` asks of an audit's bundle (rocetune.parsebundle.Bundle)."""

    def get(self, key: str, identity: str) -> tuple[Device, Checked] | None:
        """The bundled device of ``key`` stored for ``identity`` and its provenance."""

    def saw(self, key: str, identity: str, result: ParseResult) -> None:
        """A device this run read from its entry or parsed."""

    def forget(self, key: str) -> None:
        """``key`` was read but is not used after all (its snapshot changed)."""

    def save(self) -> bool:
        """Write the bundle when it is stale (OSError when it cannot be written)."""


DEFAULT_DIR = ".rocetune_cache"
ENV_DIR = "ROCETUNE_CACHE_DIR"
"""Environment variable naming the cache directory (like ``RUFF_CACHE_DIR``)."""
FORMAT = 4
"""Layout of an entry; part of the key and of the directory name."""
CACHE_VERSION = f"{__version__}-f{FORMAT}"
_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by rocetune.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)


def default_dir() -> Path:
    """``$ROCETUNE_CACHE_DIR``, else ``.rocetune_cache`` in the working directory."""
    return Path(os.environ.get(ENV_DIR) or DEFAULT_DIR)


def tree_fingerprint(root: Path) -> str:
    """Path, size and mtime of every file under ``root`` ("" when it does not exist)."""
    h = hashlib.blake2b(digest_size=16)
    for directory, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            with contextlib.suppress(OSError):
                st = os.stat(os.path.join(directory, name))
                rel = os.path.relpath(os.path.join(directory, name), root)
                h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


@cache
def code_fingerprint() -> str:
    """Hash of the path, size and mtime of every file of the installed rocetune package."""
    h = hashlib.blake2b(digest_size=16)
    pending = [(Path(__file__).parent, "")]
    while pending:
        directory, prefix = pending.pop()
        with contextlib.suppress(OSError), os.scandir(directory) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        pending.append((Path(entry.path), f"{prefix}{entry.name}/"))
                    continue
                with contextlib.suppress(OSError):
                    st = entry.stat()
                    h.update(f"{prefix}{entry.name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


@cache
def runtime() -> str:
    """Python and pydantic versions: a pickled device is read only by the same ones."""
    import sys

    import pydantic
    import pydantic_core

    return f"{sys.version}|{pydantic.VERSION}|{pydantic_core.__version__}"


def _feed(h: Any, text: str) -> None:
    data = text.encode("utf-8", "surrogatepass")
    h.update(len(data).to_bytes(8, "little"))
    h.update(data)


@dataclass
class ParseCache:
    """A cache directory and what one run did with it (hits, misses, entries ignored)."""

    directory: Path
    options: Mapping[str, str] = field(default_factory=dict)
    """Parse options that change the parsed model (part of every key)."""
    hits: int = 0
    misses: int = 0
    ignored: int = 0
    """Entries that were present but unreadable (corrupt, wrong key, invalid model)."""
    write_errors: int = 0
    pruned: int = 0
    """Entries deleted when the index was saved (replaced by a changed snapshot's)."""
    keep_written: bool = field(default=False, repr=False)
    """Keep the bytes of each entry :meth:`put` encodes in :attr:`written` (a pool worker
    sends them to the parent instead of pickling the parse a second time)."""
    written: dict[str, tuple[str, bytes]] = field(default_factory=dict, repr=False)
    """Key -> (identity, entry bytes) of the entries encoded since it was last cleared."""
    bundle: Bundled | None = field(default=None, repr=False)
    """The audit's bundle (rocetune.parsebundle.use_bundle): asked before the entries, told
    what the run read from them or parsed (the parent process's only: a worker has none)."""
    _writable: bool | None = field(default=None, repr=False)
    _index: StatIndex | None = field(default=None, repr=False)
    _versioned_dir: str | None = field(default=None, repr=False)

    @property
    def index(self) -> StatIndex:
        """The stat index of this cache version (rocetune.statindex), read on first use."""
        if self._index is None:
            self._index = StatIndex(self.directory / CACHE_VERSION / "stat-index")
        return self._index

    def identity(self, source: Path, name: str, platform: str | None, role: str | None) -> str:
        """What a device's key depends on besides its files (the stat index's record id)."""
        h = hashlib.blake2b(digest_size=16)
        for part in (CACHE_VERSION, code_fingerprint(), platform or "", name, role or "\0"):
            _feed(h, part)
        _feed(h, json.dumps(dict(self.options), sort_keys=True))
        _feed(h, os.path.abspath(source))
        return h.hexdigest()

    def save_index(self) -> None:
        """Write the stat index and delete the entries no device uses any more."""
        if self._writable is False:
            return
        try:
            if self._writable is None:
                self._prepare()
            unused = self.index.save()
        except OSError:
            self.write_errors += 1
            self._writable = False
            return
        for key in unused:
            with contextlib.suppress(OSError):
                self._path(key).unlink()
                self.pruned += 1

    def key(self, how: str, snap: Snapshot, name: str, role: str | None) -> str:
        """The entry key of parsing ``snap`` as device ``name``; ``how`` names the way it is
        read (a directory or a saved file, the platform asked for)."""
        h = hashlib.blake2b(digest_size=20)
        for part in (CACHE_VERSION, code_fingerprint(), runtime(), how, name, role or "\0"):
            _feed(h, part)
        _feed(h, json.dumps(dict(self.options), sort_keys=True))
        _feed(h, snap.origin)
        _feed(h, repr(snap.meta))  # a frozen dataclass of plain values: its repr is exact
        for path, why in snap.refused:
            _feed(h, path)
            _feed(h, why)
        _feed(h, str(len(snap.files)))
        for file_name in sorted(snap.files):
            source = snap.files[file_name]
            _feed(h, file_name)
            _feed(h, source.path)
            _feed(h, source.text)
        return h.hexdigest()

    def source_key(
        self,
        identity: str,
        source: Path,
        *,
        name: str,
        platform: str | None,
        role: str | None,
        by_stat: bool = True,
    ) -> tuple[Snapshot | None, str | None]:
        """The snapshot as read and its cache key, taken before any platform is imported.

        How a snapshot is read (the platform detected or checked, the command a saved file
        stands for) depends only on its content, the platform asked for and rocetune itself,
        all of which are in the key: a hit needs no platform package at all. A snapshot whose
        stat signature is the one recorded with its key (rocetune.statindex) is not read
        (``by_stat``): (None, key). Otherwise a directory is read once (the parse uses the
        same :class:`Snapshot`); a saved file is read again by ``rocetune.load.read_file``,
        and its parse is stored only if the text did not change in between. (None, None)
        when the source is neither (its error comes from the normal path). Raises
        SnapshotError when it cannot be read.
        """
        import time

        from rocetune.snapshot import Snapshot, SourceFile, read_directory, read_text
        from rocetune.statindex import signature

        sig = signature(source)
        if by_stat and sig is not None:
            known = self.index.known(identity, sig)
            if known is not None:
                return None, known
        stamp = time.time_ns()
        if source.is_dir():
            snap = read_directory(source)
            how = "dir"
        elif source.is_file():
            text = read_text(source)
            snap = Snapshot(files={"": SourceFile(str(source), text)}, origin=str(source))
            how = "file"
        else:
            return None, None
        key = self.key(f"{how}:{platform or ''}", snap, name, role)
        self.index.note(identity, sig, stamp, key)
        return snap, key

    def _file(self, key: str) -> str:
        """Where the entry of ``key`` is (a string: built 10,000 times per re-audit, one
        join instead of three pathlib joins)."""
        versioned = self._versioned_dir
        if versioned is None:
            versioned = self._versioned_dir = os.path.join(self.directory, CACHE_VERSION)
        return os.path.join(versioned, key[:2], key + ".json")

    def _path(self, key: str) -> Path:
        return Path(self._file(key))

    def get(
        self, key: str, *, identity: str = "", probe: bool = False, counted: bool = True
    ) -> ParseResult | None:
        """The cached parse of ``key``; None when absent or not usable (then ignored).
        ``identity``: the entry must have been stored for it (:meth:`identity`; the stat
        index names keys by identity). ``probe``: a lookup whose miss the caller looks up
        again (not counted: counted then). ``counted`` False: a hit is not counted either
        (the caller may not use it)."""
        bundle = self.bundle
        if bundle is not None:
            held = bundle.get(key, identity)
            if held is not None:
                from rocetune.platforms.base import ParseResult

                self.hits += counted
                return ParseResult(held[0], lazy_provenance(held[1]))
        try:
            with open(self._file(key), "rb") as fh:
                raw = fh.read()
        except OSError:
            self.misses += not probe
            return None
        try:
            result = _decode(raw, key, identity)
        except Exception:  # any damage to an entry only costs a parse
            result = None
        if result is None:
            self.ignored += not probe
            self.misses += not probe
            return None
        self.hits += counted
        if bundle is not None:
            bundle.saw(key, identity, result)
        return result

    def decoded(self, raw: bytes, key: str, identity: str) -> ParseResult | None:
        """:func:`decode` of an entry's bytes made in this run (a pool worker's parse), told
        to the bundle."""
        result = decode(raw, key, identity)
        if result is not None and self.bundle is not None:
            self.bundle.saw(key, identity, result)
        return result

    def forget(self, key: str) -> None:
        """The parse of ``key`` read this run is not used after all (its snapshot changed)."""
        if self.bundle is not None:
            self.bundle.forget(key)

    def save_bundle(self) -> None:
        """Write the bundle when it is stale (rocetune.parsebundle), then let it go."""
        bundle, self.bundle = self.bundle, None
        if bundle is None or self._writable is False:
            return
        try:
            if self._writable is None:
                self._prepare()
            bundle.save()
        except OSError:
            self.write_errors += 1
            self._writable = False
        except Exception:  # a bundle that cannot be made only costs the next run its reads
            self.write_errors += 1

    def put(self, key: str, result: ParseResult, *, identity: str = "") -> None:
        """Store ``result`` under ``key`` (atomically); a cache that cannot be written is
        skipped silently (counted in :attr:`write_errors`)."""
        if self._writable is False and not self.keep_written:
            return
        data = _encode(result, key, identity)
        if self.keep_written:
            self.written[key] = (identity, data)
        if self.bundle is not None:
            self.bundle.saw(key, identity, result)
        if self._writable is False:
            return
        path = self._path(key)
        try:
            if self._writable is None:
                self._prepare()
            path.parent.mkdir(parents=True, exist_ok=True)
            _write(path, data)
        except OSError:
            self.write_errors += 1
            self._writable = False

    @property
    def writable(self) -> bool:
        """False once a write failed this run (nothing is written after that)."""
        return self._writable is not False

    def prepare(self) -> None:
        """Create the directory with its .gitignore and CACHEDIR.TAG (once; OSError when it
        cannot be written, and the cache is not written again this run)."""
        if self._writable is False:
            raise OSError("cache directory not writable")
        if self._writable is None:
            try:
                self._prepare()
            except OSError:
                self._writable = False
                raise

    def _prepare(self) -> None:
        """Create the directory with its .gitignore and CACHEDIR.TAG."""
        self.directory.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", "# Created by rocetune.\n*\n"), ("CACHEDIR.TAG", _TAG)):
            target = self.directory / name
            if not target.exists():
                _write(target, text.encode())
        self._writable = True


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over ``path``."""
    replace_bytes(path, data)


def _encode(result: ParseResult, key: str, identity: str = "") -> bytes:
    """The entry of ``result``: a header line (key, identity, checksum of the provenance
    part, how the device is stored), the provenance, then the device. Under the user's key
    (rocetune.cacheauth) the provenance is its pickled tables (``plen`` bytes; the header
    holds the device's own source, ``lookup(None)``) and the device pickled, all under a
    MAC; without a key, the provenance is a plain JSON table (a line) and the device JSON
    (floats such as an unlimited alpha kept as Infinity)."""
    from pydantic_core import to_json

    from rocetune import cacheauth

    header: dict[str, object] = {"format": FORMAT, "key": key, "id": identity}
    secret = cacheauth.secret()
    if secret is not None:
        import pickle

        prov, own = pickled_provenance(result.provenance)
        device = pickle.dumps(result.device, protocol=pickle.HIGHEST_PROTOCOL)
        header["prov"] = checksum(prov)
        header["plen"] = len(prov)
        header["src"] = [own.file, own.line] if own is not None else None
        header["body"] = "pickle"
        header["mac"] = cacheauth.mac(secret, key.encode(), identity.encode(), prov, device)
        return to_json(header) + b"\n" + prov + device
    files: dict[str, int] = {}
    refs = []
    # Every recorded path: ``items()`` where the provenance keeps shared tables besides
    # ``refs`` (their entries spelled out; read back as plain refs, the same lookups).
    spelled = getattr(result.provenance, "items", None)
    pairs = spelled() if callable(spelled) else result.provenance.refs.items()
    for path, ref in pairs:
        index = files.setdefault(ref.file, len(files))
        refs.append((path, index, ref.line))
    prov = to_json({"files": list(files), "refs": refs})
    header["prov"] = checksum(prov)
    body = to_json(result.device.model_dump(exclude_unset=True), inf_nan_mode="constants")
    header["body"] = "json"
    return to_json(header) + b"\n" + prov + b"\n" + body


def pickled_provenance(prov: Provenance) -> tuple[bytes, SourceRef | None]:
    """A parse's provenance as an entry holds it under the user's key (its tables pickled)
    and the device's own source (``lookup(None)``); a provenance still as an entry held it
    is not decoded."""
    raw = getattr(prov, "_raw", None)
    if isinstance(raw, Pickled):
        return raw.data, raw.source
    import pickle

    data = pickle.dumps(_plain_state(prov), protocol=pickle.HIGHEST_PROTOCOL)
    return data, prov.lookup(None)


def _plain_state(prov: Provenance) -> dict[str, Any]:
    """The pickled state of a provenance (:meth:`Provenance.__getstate__`; a lazy one is
    decoded first)."""
    from rocetune.model import Provenance

    _materialise(prov)
    return Provenance.__getstate__(prov)


def pickled(raw: bytes) -> bool:
    """The entry bytes hold a pickled device and provenance (read back cheaply), not JSON."""
    end = raw.find(b"\n")
    return end > 0 and b'"body":"pickle"' in raw[:end]


def decode(raw: bytes, key: str, identity: str = "") -> ParseResult | None:
    """The ParseResult of the entry bytes ``raw`` (as :meth:`ParseCache.get` reads them),
    None when they are not a usable entry of ``key`` stored for ``identity``."""
    try:
        return _decode(raw, key, identity)
    except Exception:  # any damage to an entry only costs a parse
        return None


def checksum(data: bytes) -> str:
    """The BLAKE2b sum an entry's header (or a bundle) holds of provenance bytes."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _decode(raw: bytes, key: str, identity: str = "") -> ParseResult | None:
    """The ParseResult of an entry, None when it is not the entry of ``key`` (stored for
    ``identity``, when given)."""
    from pydantic_core import from_json

    from rocetune.model import Device, SourceRef
    from rocetune.platforms.base import ParseResult

    cut = raw.index(b"\n")
    header = from_json(raw[:cut])
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("key") != key:
        return None
    if identity and header.get("id") != identity:
        return None
    if header.get("body") == "pickle":
        size = header.get("plen")
        if type(size) is not int or not 0 <= size <= len(raw) - cut - 1:
            return None
        prov = raw[cut + 1 : cut + 1 + size]
        body = raw[cut + 1 + size :]
    else:
        cut2 = raw.index(b"\n", cut + 1)
        prov = raw[cut + 1 : cut2]
        body = raw[cut2 + 1 :]
    if header.get("prov") != checksum(prov):
        return None
    device: Device | None = None
    if header.get("body") == "json":
        device = Device.model_validate_json(body)
        return ParseResult(device, lazy_provenance(prov)) if device is not None else None
    if header.get("body") == "pickle":
        device = _unpickle(header, key, prov, body)
        if device is None:
            return None
        src = header.get("src")
        own = SourceRef(str(src[0]), src[1]) if isinstance(src, list) and len(src) == 2 else None
        return ParseResult(device, lazy_provenance(Pickled(prov, own)))
    return None


class Pickled(NamedTuple):
    """An entry's pickled provenance tables (authenticated with its device) and the
    device's own source (``lookup(None)``), until the provenance is first used."""

    data: bytes
    source: SourceRef | None


class Checked(NamedTuple):
    """A bundled device's pickled provenance tables (rocetune.parsebundle), trusted once
    they match ``sum``, which the bundle's authenticated part holds; its own source."""

    data: bytes
    sum: str
    source: SourceRef | None


def _unpickle(header: dict[str, Any], key: str, prov: bytes, body: bytes) -> Device | None:
    """The pickled device of an entry whose MAC verifies under this user's key; None for any
    other (never unpickled)."""
    from rocetune import cacheauth
    from rocetune.model import Device

    secret = cacheauth.secret()
    identity = header.get("id")
    if secret is None or not isinstance(identity, str):
        return None
    if not cacheauth.verify(secret, header.get("mac"), key.encode(), identity.encode(), prov, body):
        return None
    import pickle

    device = pickle.loads(body)  # authenticated: written by this user
    return device if isinstance(device, Device) else None


def _provenance_table(raw: bytes) -> list[tuple[str, str, int | None]]:
    """The (path, file, line) entries of an entry's provenance line (ValueError when it is
    not one)."""
    from pydantic_core import from_json

    data = from_json(raw)
    if not isinstance(data, dict):
        raise ValueError("provenance: not an object")
    files = [str(f) for f in data["files"]]
    out: list[tuple[str, str, int | None]] = []
    for path, index, line in data["refs"]:
        if not isinstance(path, str) or not (line is None or type(line) is int):
            raise ValueError("provenance: bad entry")
        out.append((path, files[index], line))
    return out


def lazy_provenance(raw: bytes | Pickled | Checked) -> Provenance:
    """A Provenance filled from ``raw`` (an entry's provenance line, its checksum verified;
    its pickled tables, authenticated; or a bundled device's, checked against their sum)
    on first use: the first call of any of its methods
    (or read of a property) decodes the table and records every entry with
    :meth:`Provenance.set` (or restores the tables). A table that still does not decode
    reads as empty (findings without lines, never a crash)."""
    prov = _lazy_class()()
    prov._raw = raw  # type: ignore[attr-defined]
    return prov


def _materialise(prov: Provenance) -> None:
    from rocetune.model import Provenance

    raw = getattr(prov, "_raw", None)
    if raw is None:
        return
    prov._raw = None  # type: ignore[attr-defined]
    if isinstance(raw, Checked):  # a bundled device's
        if checksum(raw.data) != raw.sum:  # a damaged bundle: no lines, never a crash
            Provenance.__init__(prov)
            return
        raw = Pickled(raw.data, raw.source)
    if isinstance(raw, Pickled):
        import pickle

        try:
            Provenance.__setstate__(prov, pickle.loads(raw.data))  # authenticated: ours
        except Exception:  # an entry of another layout: no lines, never a crash
            Provenance.__init__(prov)
        return
    try:
        table = _provenance_table(raw)
    except (ValueError, KeyError, IndexError, TypeError):
        table = []
    record = Provenance.set
    for path, file, line in table:
        record(prov, path, file, line)


def _restored(state: dict[str, Any]) -> Provenance:
    """A plain Provenance of pickled tables (how a lazy one is unpickled)."""
    from rocetune.model import Provenance

    prov = Provenance.__new__(Provenance)
    prov.__setstate__(state)
    return prov


def plain_provenance(entries: list[tuple[str, str, int | None]]) -> Provenance:
    """A Provenance of ``(path, file, line)`` entries (how a lazy one is unpickled)."""
    from rocetune.model import Provenance

    prov = Provenance()
    for path, file, line in entries:
        prov.set(path, file, line)
    return prov


_NOT_WRAPPED = frozenset(
    {"__init__", "__new__", "__init_subclass__", "__subclasshook__", "__class_getitem__"}
)


@cache
def _lazy_class() -> type[Provenance]:
    """A subclass of Provenance whose every method and property first decodes the table
    (built from Provenance's own methods, whatever its internal layout)."""
    import inspect

    from rocetune.model import Provenance, SourceRef

    def wrap(func: Any) -> Any:
        def call(self: Provenance, *args: Any, **kwargs: Any) -> Any:
            _materialise(self)
            return func(self, *args, **kwargs)

        call.__name__ = getattr(func, "__name__", "call")
        call.__doc__ = getattr(func, "__doc__", None)
        return call

    namespace: dict[str, Any] = {"__slots__": ("_raw",) if hasattr(Provenance, "__slots__") else ()}
    for klass in reversed(Provenance.__mro__[:-1]):
        for name, value in vars(klass).items():
            if name in _NOT_WRAPPED or isinstance(value, staticmethod | classmethod):
                continue
            if isinstance(value, property):
                namespace[name] = property(wrap(value.fget), value.fset, value.fdel, value.__doc__)
            elif inspect.isfunction(value):
                namespace[name] = wrap(value)

    def reduce(self: Provenance, protocol: int = 2) -> Any:
        """Pickled as the plain Provenance it stands for (its tables as they are)."""
        return (_restored, (_plain_state(self),))

    namespace["__reduce_ex__"] = reduce
    namespace["__reduce__"] = reduce
    whole_lookup = namespace["lookup"]

    def lookup(self: Provenance, path: str | None) -> SourceRef | None:
        """``lookup(None)`` (the device's own source: what a report or the fix planner asks
        of every device) answered from the raw table without recording all of it."""
        raw = getattr(self, "_raw", None)
        if isinstance(raw, Pickled | Checked) and not path:
            return raw.source
        if raw is not None and not path:
            try:
                table = _provenance_table(raw)
            except (ValueError, KeyError, IndexError, TypeError):
                table = None
            if table is not None:
                return next((SourceRef(f, line) for p, f, line in table if p == ""), None)
        return whole_lookup(self, path)  # type: ignore[no-any-return]

    lookup.__doc__ = whole_lookup.__doc__
    namespace["lookup"] = lookup
    return type("LazyProvenance", (Provenance,), namespace)


def _is_cache(directory: Path) -> bool:
    """A directory rocetune made its cache (its CACHEDIR.TAG), never anything else."""
    try:
        return (directory / "CACHEDIR.TAG").read_text(encoding="utf-8") == _TAG
    except (OSError, UnicodeDecodeError):
        return False


def remove(directory: Path) -> str:
    """Delete a cache directory (``rocetune cache clean``); what was done, in one line.
    A directory without rocetune's CACHEDIR.TAG is refused (RocetuneError, exit 2)."""
    import shutil

    from rocetune.errors import RocetuneError

    if not directory.exists():
        return f"{directory}: no cache"
    if not directory.is_dir() or directory.is_symlink() or not _is_cache(directory):
        msg = (
            f"{directory} is not a rocetune cache directory (no rocetune CACHEDIR.TAG): not removed"
        )
        raise RocetuneError(msg)
    files, size = _count(directory)
    shutil.rmtree(directory)
    return f"{directory}: removed {files} files, {size / 2**20:.1f} MiB"


def summary(directory: Path) -> str:
    """Entries and size of each version directory of a cache (``rocetune cache info``)."""
    if not directory.is_dir() or not _is_cache(directory):
        return f"{directory}: no cache"
    lines = [str(directory)]
    for sub in sorted(p for p in directory.iterdir() if p.is_dir() and not p.is_symlink()):
        entries = sum(1 for _ in sub.glob("??/*.json"))
        files, size = _count(sub)
        current = " (this version)" if sub.name == CACHE_VERSION else ""
        lines.append(
            f"  {sub.name}{current}: {entries} parsed snapshots, {files} files,"
            f" {size / 2**20:.1f} MiB"
        )
    return "\n".join(lines)


def _count(directory: Path) -> tuple[int, int]:
    files = size = 0
    for root, _, names in os.walk(directory):
        for name in names:
            with contextlib.suppress(OSError):
                size += os.lstat(os.path.join(root, name)).st_size
                files += 1
    return files, size
