"""The ``fix:`` lines of an audit, cached by content (beside the parse cache's entries).

:func:`rocetune.api.changes.attach_fixes` plans the remediation of every audit (render, replay,
re-parse, re-check: most of a cached lab audit's time). Its result, finding fingerprint -> the
text of each change, is a function of what it reads, so it is stored under a hash of exactly
that: the audited fabric (every device, the intent, the links, as JSON), the findings (as
JSON, in report order), and per planned device its name, platform, source path and the
content of the snapshot the plan edits (:meth:`rocetune.parsecache.ParseCache.key`: every
file's name, path and text, meta.json, refused entries), plus the rocetune version, the
installed package's code fingerprint and the config templates' (a remedy may render the
intended config). A repeated audit of unchanged inputs plans nothing; any change in one of
them is another key. Entries are JSON, written atomically; an unreadable entry is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rocetune.outputs import replace_bytes
from rocetune.parsecache import CACHE_VERSION, code_fingerprint

if TYPE_CHECKING:
    from rocetune.model import AuditResult
    from rocetune.parsecache import ParseCache
    from rocetune.snapshot import Snapshot

FORMAT = "1"
Fixes = dict[str, tuple[str, ...]]


def _feed(h: Any, data: bytes) -> None:
    h.update(len(data).to_bytes(8, "little"))
    h.update(data)


def templates_fingerprint() -> str:
    """Path, size and mtime of every file of the source checkout's ``templates/`` (the
    installed copy, ``rocetune/_data``, is part of :func:`code_fingerprint`)."""
    h = hashlib.blake2b(digest_size=16)
    root = Path(__file__).resolve().parents[2] / "templates"
    for directory, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            with contextlib.suppress(OSError):
                st = os.stat(os.path.join(directory, name))
                rel = os.path.relpath(os.path.join(directory, name), root)
                h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def raw_snapshot(path: Path) -> Snapshot | None:
    """What a source holds, as stored: a directory's files, or a saved file's text (None when
    it is neither or cannot be read)."""
    from rocetune.errors import RocetuneError
    from rocetune.snapshot import Snapshot, SourceFile, read_directory, read_text

    try:
        if path.is_dir():
            return read_directory(path)
        if path.is_file():
            text = read_text(path)
            return Snapshot(files={"": SourceFile(str(path), text)}, origin=str(path))
    except (OSError, ValueError, RocetuneError):
        return None
    return None


def fixes_key(
    result: AuditResult,
    planned: list[tuple[str, str, Path, Snapshot]],
    cache: ParseCache,
) -> str:
    """The key of ``result``'s fixes: the inputs of the plan (see the module docstring).
    ``planned``: (name, platform, source path, snapshot read) of each planned device."""
    from pydantic_core import to_json

    h = hashlib.blake2b(digest_size=20)
    for part in (FORMAT, CACHE_VERSION, code_fingerprint(), templates_fingerprint()):
        _feed(h, part.encode())
    _feed(h, to_json(result.fabric.model_dump(), inf_nan_mode="constants"))
    _feed(h, to_json([f.model_dump() for f in result.findings], inf_nan_mode="constants"))
    for name, platform, path, snap in planned:
        device = result.fabric.devices[name]
        _feed(h, f"{name}\0{platform}\0{path}".encode("utf-8", "surrogatepass"))
        _feed(h, cache.key("fixes", snap, name, device.role).encode())
    return h.hexdigest()


def _path(cache: ParseCache, key: str) -> Path:
    return cache.directory / "fixes" / CACHE_VERSION / key[:2] / f"{key}.json"


def load(cache: ParseCache, key: str) -> Fixes | None:
    """The fixes stored under ``key``; None when absent or unreadable."""
    try:
        got = json.loads(_path(cache, key).read_text(encoding="utf-8"))
        if got["key"] != key:
            return None
        return {str(fp): tuple(str(t) for t in texts) for fp, texts in got["fixes"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(cache: ParseCache, key: str, fixes: Fixes) -> None:
    """Store ``fixes`` under ``key`` (atomically; only in an existing cache directory, which
    the audit's parse cache made; an unwritable one is skipped)."""
    if not cache.directory.is_dir():
        return
    path = _path(cache, key)
    data = json.dumps({"key": key, "fixes": [[fp, list(t)] for fp, t in fixes.items()]})
    with contextlib.suppress(OSError):
        replace_bytes(path, data.encode())
