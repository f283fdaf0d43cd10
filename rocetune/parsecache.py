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
cannot be read, does not validate or names another key is ignored (the snapshot is parsed
again and the entry rewritten). Nothing here decides *whether* to cache: callers pass a
:class:`ParseCache` or None (``--no-cache``).

Layout: ``<dir>/<CACHE_VERSION>/<key[:2]>/<key>.json``, plus ``<dir>/.gitignore`` (``*``)
and ``CACHEDIR.TAG`` so the directory is neither committed nor backed up. Entries of other
rocetune versions live under their own version directory and are never read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rocetune import __version__

if TYPE_CHECKING:
    from rocetune.platforms.base import ParseResult
    from rocetune.snapshot import Snapshot

DEFAULT_DIR = ".rocetune_cache"
ENV_DIR = "ROCETUNE_CACHE_DIR"
"""Environment variable naming the cache directory (like ``RUFF_CACHE_DIR``)."""
FORMAT = 2
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
    _writable: bool | None = field(default=None, repr=False)

    def key(self, how: str, snap: Snapshot, name: str, role: str | None) -> str:
        """The entry key of parsing ``snap`` as device ``name``; ``how`` names the way it is
        read (a directory or a saved file, the platform asked for)."""
        h = hashlib.blake2b(digest_size=20)
        for part in (CACHE_VERSION, code_fingerprint(), how, name, role or "\0"):
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

    def _path(self, key: str) -> Path:
        return self.directory / CACHE_VERSION / key[:2] / f"{key}.json"

    def get(self, key: str) -> ParseResult | None:
        """The cached parse of ``key``; None when absent or not usable (then ignored)."""
        try:
            raw = self._path(key).read_bytes()
        except OSError:
            self.misses += 1
            return None
        try:
            result = _decode(raw, key)
        except Exception:  # any damage to an entry only costs a parse
            result = None
        if result is None:
            self.ignored += 1
            self.misses += 1
            return None
        self.hits += 1
        return result

    def put(self, key: str, result: ParseResult) -> None:
        """Store ``result`` under ``key`` (atomically); a cache that cannot be written is
        skipped silently (counted in :attr:`write_errors`)."""
        if self._writable is False:
            return
        path = self._path(key)
        try:
            if self._writable is None:
                self._prepare()
            path.parent.mkdir(parents=True, exist_ok=True)
            _write(path, _encode(result, key))
        except OSError:
            self.write_errors += 1
            self._writable = False

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
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _encode(result: ParseResult, key: str) -> bytes:
    """The entry of ``result``: a header line (key, provenance table), then the device as
    JSON (floats such as an unlimited alpha kept as Infinity), read back in one pass."""
    from pydantic_core import to_json

    files: dict[str, int] = {}
    refs = []
    # Every recorded path: ``items()`` where the provenance keeps shared tables besides
    # ``refs`` (their entries spelled out; read back as plain refs, the same lookups).
    spelled = getattr(result.provenance, "items", None)
    pairs = spelled() if callable(spelled) else result.provenance.refs.items()
    for path, ref in pairs:
        index = files.setdefault(ref.file, len(files))
        refs.append((path, index, ref.line))
    header = {"format": FORMAT, "key": key, "files": list(files), "refs": refs}
    device = to_json(result.device.model_dump(), inf_nan_mode="constants")
    return to_json(header) + b"\n" + device


def _decode(raw: bytes, key: str) -> ParseResult | None:
    """The ParseResult of an entry, None when it is not the entry of ``key``."""
    from pydantic_core import from_json

    from rocetune.model import Device, Provenance, SourceRef
    from rocetune.platforms.base import ParseResult

    cut = raw.index(b"\n")
    header = from_json(raw[:cut])
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("key") != key:
        return None
    files = [str(f) for f in header["files"]]
    shared: dict[tuple[int, int | None], SourceRef] = {}
    refs: dict[str, SourceRef] = {}
    for path, index, line in header["refs"]:
        if not isinstance(path, str) or not (line is None or type(line) is int):
            return None
        ref = shared.get((index, line))
        if ref is None:
            ref = shared[index, line] = SourceRef(files[index], line)
        refs[path] = ref
    device = Device.model_validate_json(raw[cut + 1 :])
    return ParseResult(device, Provenance(refs=refs))
