"""Whole-run cache of ``rocetune audit``: a repeated audit of unchanged inputs prints what the
last one printed, without loading the inventory's model, reading a snapshot, running a rule
or rendering a report.

Once every snapshot comes from the parse cache and the ``fix:`` lines from theirs, most of a
lab audit is interpreter start and imports (pydantic and the model classes, the rule
catalogue, the platform packages, Jinja): this cache lets such a run import none of them.

A run's output is a function of exactly these inputs, all part of the entry's check:

- the command line: every option's value, the inventory path as given, the working
  directory (reports show paths relative to it), whether standard output is a terminal, the
  colour and text width the report uses (``NO_COLOR``, ``FORCE_COLOR``, ``COLUMNS``), the
  ``ROCETUNE_DOCS_URL`` pattern, and today's date (suppressions expire);
- the code: the rocetune version, the package's code fingerprint
  (:func:`rocetune.parsecache.code_fingerprint`), the source checkout's ``templates/``,
  ``rules/`` (rule docs, profiles) and ``docs/`` (path, size and modification time of every
  file), the Python version and where and when pydantic, pydantic_core, click and Jinja were
  installed (the stat of their package's ``__init__``);
- the configuration: the ``--config`` file's content, else the content (or absence) of
  every ``rocetune.toml`` and ``pyproject.toml`` from the working directory up to the root;
- the inventory file's content (it names the rest: devices, platforms, roles, snapshot
  paths, intent, links, suppressions);
- every device's snapshot, by its stat signature (:func:`rocetune.statindex.signature`:
  name, mode, size, mtime, ctime and inode of every entry, as the parse cache's unchanged
  test), recorded only when nothing in it was modified within
  :data:`rocetune.statindex.RACY_NS` of the start of the run (git's racy-clean rule); and
  by its content: the parse cache key of what the audit read
  (:meth:`rocetune.parsecache.ParseCache.source_key`: every file's name, path and text,
  the device's name, role and platform, rocetune's code). A snapshot whose signature
  changed but whose content did not (a fresh checkout, a restored CI cache, ``git
  checkout`` of another branch and back, a file rewritten as it was) is read and hashed,
  and the run is replayed when the key is the same; the entry then takes the new
  signatures (when they are not racy), so the next run is a stat hit again.

Only runs whose output depends on nothing else are stored: an audit of an inventory file
whose devices all have a ``snapshot:`` (no live collection, no ``--snapshots`` or
``snapshots_dir:``), no baseline read or written, no input error. The entry holds the report
text, the policy notes printed on standard error and the exit code. It is authenticated with
a MAC under the user's cache key (:mod:`rocetune.cacheauth`): without a key nothing is
stored or replayed, and an entry that does not verify is a miss. One entry per command line
and working directory, ``<cache>/runs/<CACHE_VERSION>/<slot>.json``, replaced by the next
run of that command line; entries not used for :data:`KEEP_S` are deleted when another one
is written. ``--no-cache`` neither reads nor writes it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocetune import cacheauth, inputs, statindex
from rocetune.errors import RocetuneError
from rocetune.outputs import replace_bytes
from rocetune.parsecache import CACHE_VERSION, code_fingerprint, tree_fingerprint

FORMAT = 2
KEEP_S = 30 * 24 * 3600
"""Entries not used for this long are deleted (when another entry is written)."""
CONFIG_NAMES = ("rocetune.toml", "pyproject.toml")
"""The config files :func:`rocetune.config.find_config` looks for (a test keeps them equal)."""
PACKAGES = ("pydantic", "pydantic_core", "click", "jinja2")
"""Libraries whose version can change a report (serialisation, echo, rendered fixes)."""
ENV = ("ROCETUNE_DOCS_URL",)
"""Environment variables a report reads (rocetune.rules_docs)."""
_CHECKOUT = Path(__file__).resolve().parent.parent
_CHECKOUT_DIRS = ("templates", "rules", "docs")
_DOMAIN = b"rocetune run cache"
"""First part of an entry's MAC (the parse cache's MACs have other parts: never equal)."""


@dataclass(frozen=True)
class Source:
    """A device's snapshot as the audit read it."""

    path: Path
    name: str
    platform: str | None
    role: str | None
    key: str | None
    """The parse cache key of the content the audit read (``AuditResult.content``); None:
    not read through the cache (only its stat signature can tell it unchanged)."""


@dataclass(frozen=True)
class Replay:
    """What a stored run printed: its report, the lines on standard error, its exit code."""

    body: str
    colour: bool
    notes: tuple[str, ...]
    code: int


@dataclass(frozen=True)
class Run:
    """One run's entry: where it lives, the digest of its inputs but the snapshots, the
    user's key and when the run started (for the racy rule)."""

    cache_dir: Path
    path: Path
    inputs: str
    secret: bytes
    started_ns: int

    def lookup(self) -> Replay | None:
        """The stored run when every input is unchanged; None otherwise (a miss)."""
        try:
            raw = self.path.read_bytes()
            head, _, payload = raw.partition(b"\n")
            if not cacheauth.verify(self.secret, head.decode("ascii"), _DOMAIN, payload):
                return None
            data = json.loads(payload)
            if data["format"] != FORMAT or data["inputs"] != self.inputs:
                return None
            moved = False
            for row in data["sources"]:
                sig = statindex.signature(Path(row[0]))
                if sig is not None and sig.digest == row[1]:
                    continue
                if sig is None or not self._same_content(row):
                    return None
                if sig.newest_ns < self.started_ns - statindex.RACY_NS:  # settled: keep it
                    row[1] = sig.digest
                    moved = True
            replay = Replay(
                str(data["body"]), data["colour"] is True, tuple(data["notes"]), int(data["code"])
            )
        except (OSError, ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError):
            return None
        except RocetuneError:  # a snapshot that cannot be read now: the audit says why
            return None
        if moved:  # the same content under new signatures: the next run is a stat hit
            self._write(data)
        else:
            _touch(self.path)
        return replay

    def _same_content(self, row: list[Any]) -> bool:
        """Whether a snapshot whose stat signature changed holds what the stored run read:
        its parse cache key now (read and hashed, with the audit's cache options) is the
        stored one. Raises RocetuneError when it cannot be read."""
        from rocetune.parsecache import ParseCache

        source, _, key, name, platform, role = row
        if not isinstance(key, str):
            return False
        cache = ParseCache(self.cache_dir)
        path = Path(source)
        identity = cache.identity(path, name, platform, role)
        _, now = cache.source_key(
            identity, path, name=name, platform=platform, role=role, by_stat=False
        )
        return now == key

    def store(self, sources: Iterable[Source], replay: Replay) -> bool:
        """Store ``replay`` as this run's output of ``sources`` (the devices' snapshots);
        False when it cannot be (a snapshot changed during the run or cannot be listed, or
        the cache cannot be written; the cache directory is made by the parse cache only)."""
        if not self.cache_dir.is_dir():
            return False
        signed = []
        for source in sources:  # as the audit's reads found them (each read after its own)
            sig = statindex.signature(source.path, since_ns=self.started_ns)
            if sig is None or sig.newest_ns >= self.started_ns - statindex.RACY_NS:
                return False
            signed.append(
                [
                    str(source.path),
                    sig.digest,
                    source.key,
                    source.name,
                    source.platform,
                    source.role,
                ]
            )
        data = {
            "format": FORMAT,
            "inputs": self.inputs,
            "sources": signed,
            "body": replay.body,
            "colour": replay.colour,
            "notes": list(replay.notes),
            "code": replay.code,
        }
        if not self._write(data):
            return False
        _prune(self.path.parent)
        return True

    def _write(self, data: dict[str, Any]) -> bool:
        """Write the entry ``data`` under its MAC (False: it cannot be written)."""
        payload = json.dumps(data).encode()
        head = cacheauth.mac(self.secret, _DOMAIN, payload).encode("ascii")
        try:
            replace_bytes(self.path, head + b"\n" + payload)
        except OSError:
            return False
        return True


def open_run(
    cache_dir: Path,
    command: str,
    inventory: Path,
    opts: Mapping[str, Any],
    shown: Mapping[str, object],
) -> Run | None:
    """The entry of this run of ``command`` (``opts``: every option's value; ``shown``: how the
    report is shown, e.g. colour and width); None when the run cannot use the cache (no key,
    an input that is not a regular file)."""
    started = time.time_ns()
    secret = cacheauth.secret()
    if secret is None:
        return None
    slot = hashlib.blake2b(digest_size=20)
    for part in (
        str(FORMAT),
        command,
        repr(sorted(opts.items())),
        str(inventory),
        os.getcwd(),
        repr(sorted(shown.items())),
        repr([os.environ.get(name) for name in ENV]),
        time.strftime("%Y-%m-%d"),  # the local date, as suppressions' date.today()
    ):
        _feed(slot, part)
    digest = hashlib.blake2b(slot.digest(), digest_size=20)
    parts = [CACHE_VERSION, code_fingerprint(), sys.version]
    parts += [tree_fingerprint(_CHECKOUT / name) for name in _CHECKOUT_DIRS]
    parts += [_package_stamp(name) for name in PACKAGES]
    for part in parts:
        _feed(digest, part)
    config = opts.get("config_file")
    files = [Path(config)] if config is not None else list(_config_candidates())
    files.append(inventory)
    for path in files:
        content = _content(path, absent_ok=config is None and path != inventory)
        if content is None:
            return None
        _feed(digest, str(path))
        _feed(digest, content)
    where = cache_dir / "runs" / CACHE_VERSION / f"{slot.hexdigest()}.json"
    return Run(cache_dir, where, digest.hexdigest(), secret, started)


def _package_stamp(name: str) -> str:
    """Where the package ``name`` is installed and its ``__init__``'s stat, which an install
    or upgrade rewrites (found without importing the package)."""
    from importlib.util import find_spec

    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        spec = None
    origin = spec.origin if spec is not None else None
    try:
        st = os.stat(origin) if origin is not None else None
    except OSError:
        st = None
    if st is None:
        return f"{name}:-"
    return f"{name}:{origin}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"


def _config_candidates() -> Iterable[Path]:
    """Every path :func:`rocetune.config.find_config` may read, from the working directory up."""
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        for name in CONFIG_NAMES:
            yield folder / name


def _content(path: Path, *, absent_ok: bool) -> str | None:
    """A digest of a regular file's bytes; ``"-"`` for a file that does not exist (when
    ``absent_ok``); None for anything else (the run does not use the cache)."""
    try:
        data = inputs.read_bytes(path)
    except (FileNotFoundError, NotADirectoryError):
        return "-" if absent_ok else None
    except (OSError, inputs.InputRefused):
        return None
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def _feed(h: Any, text: str) -> None:
    data = text.encode("utf-8", "surrogateescape")
    h.update(len(data).to_bytes(8, "little"))
    h.update(data)


def _touch(path: Path) -> None:
    """Mark an entry used (its mtime, at most once a day)."""
    with contextlib.suppress(OSError):
        if time.time() - path.stat().st_mtime > 86400:
            os.utime(path)


def _prune(directory: Path) -> None:
    """Delete the entries of ``directory`` not used for :data:`KEEP_S`."""
    cutoff = time.time() - KEEP_S
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.name.endswith(".json") and entry.stat().st_mtime < cutoff:
                    os.unlink(entry.path)
