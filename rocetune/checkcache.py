"""Check results cached per device and per link (with the parse cache, ``.rocetune_cache/``).

A port or device rule that keeps the base ``run`` checks one device at a time, and reads
that device, its links and the devices at their other ends, nothing further (the same
premise as ``rocetune plan``'s region re-check, :attr:`rocetune.checks.base.CheckContext.only`);
a link rule reads the link and its two end devices. So what such a rule gives for a device
(or link) is a function of:

- the *context*: rocetune's version and code fingerprint, the intent, the selected rules and
  every rule's options;
- the device's *local key*: its parse cache entry key (the content of its snapshot), its name,
  its inventory ``asic``/``roce_ports``, and every link with an end on it;
- for a device: the local keys of the devices its links reach; for a link: its own fields
  and the local keys of its two ends (a device outside the model: its name and whether the
  inventory knows it).

The engine (:func:`rocetune.engine.run_checks`, ``store=``) asks :class:`CheckStore` per rule
and subject; a hit replays the stored records (findings, missing-data notes, absence findings
withheld by unparsed items), a miss runs the rule on that subject and stores its records.
Fabric-wide rules and rules with their own ``run`` always run. A device parsed without the
cache (no entry key) makes its subjects and its neighbours' uncacheable: they always run.

Records are stored in one pack per audited scope (the inventory, or the linted paths):
``<dir>/<CACHE_VERSION>/checks/<scope hash>.json``, holding only what the last run used
(older subjects are dropped, like ruff's per-package cache), validated when read (pydantic;
never unpickled). A damaged pack is ignored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import TypeAdapter

from rocetune.engine import Record, Subject
from rocetune.model import Device, Fabric, Intent, Link, Model

if TYPE_CHECKING:
    from rocetune.checks.base import Rule, RuleOptions
    from rocetune.parsecache import ParseCache

PACK_FORMAT = 1


class _Pack(Model):
    format: int
    context: str
    subjects: dict[str, dict[str, list[Record]]]
    """Subject key -> rule code -> the rule's records on that subject."""


_PACK = TypeAdapter(_Pack)


def context_key(
    intent: Intent,
    rules: Sequence[type[Rule]],
    options: Mapping[str, RuleOptions] | None,
    *,
    report_missing: bool,
) -> str:
    """What every stored record depends on besides its subject."""
    from rocetune.parsecache import CACHE_VERSION, code_fingerprint

    h = hashlib.blake2b(digest_size=20)
    opts = options or {}
    parts = [
        CACHE_VERSION,
        code_fingerprint(),
        intent.model_dump_json(),
        str(report_missing),
        *(
            f"{r.meta.code}={opts[r.meta.code].model_dump_json() if r.meta.code in opts else ''}"
            for r in rules
        ),
    ]
    for part in parts:
        data = part.encode()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


class CheckStore:
    """The records of one run: read from the scope's pack, written back by :meth:`save`."""

    def __init__(
        self,
        cache: ParseCache,
        scope: str,
        fabric: Fabric,
        content: Mapping[str, str],
        context: str,
    ) -> None:
        from rocetune.parsecache import CACHE_VERSION

        name = hashlib.blake2b(scope.encode(), digest_size=16).hexdigest()
        self.cache = cache
        self.path = cache.directory / CACHE_VERSION / "checks" / f"{name}.json"
        self.fabric = fabric
        self.content = content
        """Device name -> its parse entry key (only devices read through the cache)."""
        self.context = context
        self.hits = 0
        self.misses = 0
        self._old: dict[str, dict[str, list[Record]]] | None = None
        self._new: dict[str, dict[str, list[Record]]] = {}
        self._dirty = False
        self._links: dict[str, list[Link]] = {}
        for link in fabric.links:
            self._links.setdefault(link.a.device, []).append(link)
            if link.b.device != link.a.device:
                self._links.setdefault(link.b.device, []).append(link)
        self._local: dict[str, str | None] = {}
        self._keys: dict[int, tuple[object, str | None]] = {}

    # --- keys ---------------------------------------------------------------------------

    def _local_key(self, device: str) -> str | None:
        if device in self._local:
            return self._local[device]
        dev = self.fabric.devices.get(device)
        key: str | None
        if dev is None:
            known = device in self.fabric.known_devices
            key = f"absent\0{device}\0{known}"
        elif device not in self.content:
            key = None
        else:
            h = hashlib.blake2b(digest_size=20)
            parts = [
                self.content[device],
                dev.name,
                str(dev.asic),
                json.dumps(sorted(dev.roce_ports) if dev.roce_ports is not None else None),
                *(link.model_dump_json() for link in self._links.get(device, ())),
            ]
            for part in parts:
                data = part.encode()
                h.update(len(data).to_bytes(8, "little"))
                h.update(data)
            key = h.hexdigest()
        self._local[device] = key
        return key

    def _subject_key(self, kind: Subject, subject: Device | Link) -> str | None:
        held = self._keys.get(id(subject))
        if held is not None and held[0] is subject:
            return held[1]
        parts: list[str | None]
        if isinstance(subject, Link):
            parts = [
                "link",
                subject.model_dump_json(),
                self._local_key(subject.a.device),
                self._local_key(subject.b.device),
            ]
        else:
            peers = {
                end.device
                for link in self._links.get(subject.name, ())
                for end in (link.a, link.b)
                if end.device != subject.name
            }
            parts = [
                "device",
                self._local_key(subject.name),
                *(
                    f"{p}\0{self._local_key(p)}" if self._local_key(p) else None
                    for p in sorted(peers)
                ),
            ]
        key: str | None = None
        if all(p is not None for p in parts):
            h = hashlib.blake2b(digest_size=20)
            for part in parts:
                data = str(part).encode()
                h.update(len(data).to_bytes(8, "little"))
                h.update(data)
            key = h.hexdigest()
        self._keys[id(subject)] = (subject, key)
        return key

    # --- SubjectStore -----------------------------------------------------------------

    def get(self, kind: Subject, subject: Device | Link, code: str) -> list[Record] | None:
        """The stored records of rule ``code`` on ``subject`` (kept for the next run)."""
        key = self._subject_key(kind, subject)
        if key is None:
            return None
        got = self._load().get(key, {}).get(code)
        if got is None:
            self.misses += 1
            return None
        self.hits += 1
        self._new.setdefault(key, {})[code] = got
        return got

    def put(self, kind: Subject, subject: Device | Link, code: str, records: list[Record]) -> None:
        """Keep the records of rule ``code`` on ``subject`` for the next run."""
        key = self._subject_key(kind, subject)
        if key is not None:
            self._new.setdefault(key, {})[code] = records
            self._dirty = True

    # --- the pack ---------------------------------------------------------------------

    def _load(self) -> dict[str, dict[str, list[Record]]]:
        if self._old is None:
            self._old = {}
            try:
                pack = _PACK.validate_json(self.path.read_bytes())
            except (OSError, ValueError):
                return self._old
            if pack.format == PACK_FORMAT and pack.context == self.context:
                self._old = pack.subjects
        return self._old

    def save(self) -> None:
        """Write the records this run used (atomically); a cache that cannot be written is
        skipped (as the parse cache's)."""
        from rocetune.statindex import write_bytes

        if not self.cache.writable:
            return
        if not self._dirty and len(self._new) == len(self._load()):
            return  # every record came from the pack, none was dropped: it is up to date
        pack = _Pack(format=PACK_FORMAT, context=self.context, subjects=self._new)
        try:
            self.cache.prepare()
            write_bytes(self.path, _PACK.dump_json(pack))
        except OSError:
            self.cache.write_errors += 1


def scope_of(paths: Sequence[Path | str]) -> str:
    """The pack name of an audit (the inventory) or a lint (its paths)."""
    import os

    return "\0".join(os.path.abspath(p) for p in paths)
