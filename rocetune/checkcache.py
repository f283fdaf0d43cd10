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
- for a device: the *peer keys* of the devices its links reach: their models (by digest,
  :func:`model_key`), not their files, and their links; for a link: its own fields and the
  local keys of its two ends (a device outside the model: its name and whether the
  inventory knows it).

A rule reads a neighbour's model, not its files; but a record it makes on a device can name
a neighbour (a missing-data note or a finding there), and such a record holds that device's
source references (file, line), a function of its files. So a subject's entry lists the
other devices its records name with their local keys (its *guard*), and is used only while
they are the same: an edit that leaves a neighbour's model as it was (a comment, a counter
in a re-collected snapshot) re-checks that neighbour only. A device's model digest is kept
in the pack per model key, so an unchanged device is never dumped again; the ``fix:`` lines'
cache reads the same digests (:meth:`CheckStore.model_digests`).

The engine (:func:`rocetune.engine.run_checks`, ``store=``) asks :class:`CheckStore` per rule
and subject; a hit replays the stored records (findings, missing-data notes, absence findings
withheld by unparsed items), a miss runs the rule on that subject and stores its records.
Fabric-wide rules and rules with their own ``run`` always run. A device parsed without the
cache (no entry key) makes its subjects and its neighbours' uncacheable: they always run.

Records are stored in one pack per audited scope (the inventory, or the linted paths):
``<dir>/<CACHE_VERSION>/checks/<scope hash>.json``, holding only what the last run used
(older subjects are dropped, like ruff's per-package cache): JSON with one string table
(a host's items and paths are every host's), a subject's records as arrays of numbers and
its guard, and the model digests, read and checked whole before any is used (never
unpickled; findings validated as models). A damaged pack is ignored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from weakref import ref

from rocetune.checks.base import Missing
from rocetune.engine import Record, Subject, named_devices
from rocetune.model import Device, Fabric, Finding, Intent, Link, SourceRef

if TYPE_CHECKING:
    from rocetune.checks.base import Rule, RuleOptions
    from rocetune.parsecache import ParseCache

PACK_FORMAT = 3

_Raw = list[object]
"""A record as stored: ``[0, device, item, path, file, line, looked]`` (a missing-data note;
strings as indexes into the pack's table, path/file/line may be null), ``[1, finding]`` (a
finding's JSON fields, validated as a Finding) or ``[2, [[device, index], ...], link, port]``
(an absence finding withheld by unparsed items)."""
_Entry = tuple[frozenset[str], dict[str, list[Record]], dict[str, str]]
"""A subject's records as read: the codes stored for it, those with records, and its guard
(another device its records name -> that device's local key when they were made)."""


def digest(parts: Iterable[str | bytes]) -> str:
    """One key of ``parts`` (each length-prefixed: no two sequences share a key)."""
    h = hashlib.blake2b(digest_size=20)
    for part in parts:
        data = part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def model_key(device: Device, content: str) -> str:
    """What ``device``'s model is a function of: its parse entry key ``content`` and what the
    inventory set after the parse (platform, role, ``asic``, ``roce_ports``)."""
    roce = json.dumps(list(device.roce_ports) if device.roce_ports is not None else None)
    return digest(("model", content, device.platform, str(device.role), str(device.asic), roce))


class _Damaged(ValueError):
    """The pack is not what :meth:`CheckStore.save` writes."""


class _Strings:
    """The pack's string table: strings by index, and the index of each (made on demand)."""

    def __init__(self, table: list[str]) -> None:
        self.table = table
        self._index: dict[str, int] | None = None

    def code(self, text: str | None) -> int | None:
        if text is None:
            return None
        index = self._index
        if index is None:
            index = self._index = {s: i for i, s in enumerate(self.table)}
        got = index.get(text)
        if got is None:
            got = index[text] = len(self.table)
            self.table.append(text)
        return got


def _encode(records: list[Record], strings: _Strings) -> list[_Raw]:
    out: list[_Raw] = []
    code = strings.code
    for rec in records:
        if rec.missing is not None:
            note, ref = rec.missing, rec.ref
            out.append(
                [
                    0,
                    code(note.device),
                    code(note.item),
                    code(note.path),
                    code(ref.file) if ref is not None else None,
                    ref.line if ref is not None else None,
                    1 if rec.looked else 0,
                ]
            )
        elif rec.finding is not None:
            out.append([1, rec.finding.model_dump(mode="json")])
        else:
            where = [[code(device), index] for device, index in rec.unverified]
            out.append([2, where, code(rec.link), code(rec.port)])
    return out


def _decode(
    raw: list[Any], table: list[str], refs: dict[tuple[int, int | None], SourceRef]
) -> list[Record]:
    """The records of one rule on one subject; raises on anything :func:`_encode` does not
    write (types are checked where a wrong one would not fail by itself). ``refs``: the
    pack's source references made so far (equal ones held once)."""
    out = []
    for item in raw:
        kind = item[0]
        if kind == 0:
            _, device, text, path, file, line, looked = item
            if not (line is None or type(line) is int) or looked not in (0, 1):
                raise _Damaged(item)
            note = Missing(
                table[device],
                table[text],
                None if path is None else table[path],
            )
            ref = None
            if file is not None:
                ref = refs.get((file, line))
                if ref is None:
                    ref = refs[file, line] = SourceRef(table[file], line)
            out.append(Record(None, note, ref, looked == 1))
        elif kind == 1:
            _, fields = item
            out.append(Record(finding=Finding.model_validate(fields)))
        elif kind == 2:
            _, where, link, port = item
            unverified = []
            for device, index in where:
                if type(index) is not int:
                    raise _Damaged(item)
                unverified.append((table[device], index))
            out.append(
                Record(
                    unverified=tuple(unverified),
                    link=None if link is None else table[link],
                    port=None if port is None else table[port],
                )
            )
        else:
            raise _Damaged(item)
    return out


def context_key(
    intent: Intent,
    rules: Sequence[type[Rule]],
    options: Mapping[str, RuleOptions] | None,
    *,
    report_missing: bool,
) -> str:
    """What every stored record depends on besides its subject."""
    from rocetune.parsecache import CACHE_VERSION, code_fingerprint

    opts = options or {}
    chosen = (
        f"{r.meta.code}={opts[r.meta.code].model_dump_json() if r.meta.code in opts else ''}"
        for r in rules
    )
    head = (CACHE_VERSION, code_fingerprint(), intent.model_dump_json(), str(report_missing))
    return digest((*head, *chosen))


class CheckStore:
    """The records of one run: read from the scope's pack, written back by :meth:`save`."""

    keeps = True

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
        self.devices = fabric.devices
        self.known_devices = frozenset(fabric.known_devices)
        """The fabric's devices (not the fabric: a store :func:`keep` keeps lets it go)."""
        self.content = content
        """Device name -> its parse entry key (only devices read through the cache)."""
        self.context = context
        self.hits = 0
        self.misses = 0
        self._old: dict[str, _Entry] | None = None
        self._raw: dict[str, list[Any]] = {}  # the pack's subjects as read (for save)
        self._strings = _Strings([])
        self._base = 0  # the table's length when it was last written whole
        self._sets: list[frozenset[str]] = []  # the pack's code sets (subjects name one)
        self._used: dict[str, None] = {}  # subjects whose stored records this run used
        self._put: dict[str, dict[str, list[Record]]] = {}
        self._links: dict[str, list[Link]] = {}
        for link in fabric.links:
            self._links.setdefault(link.a.device, []).append(link)
            if link.b.device != link.a.device:
                self._links.setdefault(link.b.device, []).append(link)
        self._local: dict[str, str | None] = {}
        self._peer: dict[str, str | None] = {}
        self._json: dict[int, tuple[Link, str]] = {}
        self._keys: dict[int, tuple[object, str | None, _Entry | None]] = {}
        self._guards: dict[str, dict[str, str]] = {}  # the guards of this run's records
        self._stale: set[str] = set()  # subjects whose stored guard did not hold
        self._models: dict[str, str] = {}  # model key -> digest, as the pack held them
        self._digests: dict[str, str] = {}  # device -> its model digest, this run
        self._model_keys: dict[str, str] = {}  # model key -> digest, this run's devices
        self.dumped = 0
        """Devices whose model was dumped for its digest (not known by its model key)."""

    # --- keys ---------------------------------------------------------------------------

    def _local_key(self, device: str) -> str | None:
        if device in self._local:
            return self._local[device]
        dev = self.devices.get(device)
        key: str | None
        if dev is None:
            known = device in self.known_devices
            key = f"absent\0{device}\0{known}"
        elif device not in self.content:
            key = None
        else:
            key = digest(
                (
                    self.content[device],
                    dev.name,
                    str(dev.asic),
                    json.dumps(sorted(dev.roce_ports) if dev.roce_ports is not None else None),
                    *self._links_json(device),
                )
            )
        self._local[device] = key
        return key

    def _link_json(self, link: Link) -> str:
        """``link`` as JSON, dumped once per run (its device's local and peer keys and its
        own subject key read it)."""
        got = self._json.get(id(link))
        if got is None or got[0] is not link:
            got = self._json[id(link)] = (link, link.model_dump_json())
        return got[1]

    def _links_json(self, device: str) -> list[str]:
        return [self._link_json(link) for link in self._links.get(device, ())]

    def model_digest(self, device: str) -> str | None:
        """The digest of ``device``'s model (None: not read through the parse cache): the
        pack's for its model key, else dumped."""
        got = self._digests.get(device)
        if got is not None:
            return got
        dev = self.devices.get(device)
        content = self.content.get(device)
        if dev is None or content is None:
            return None
        key = model_key(dev, content)
        self._load()  # the pack's model digests (read once)
        got = self._models.get(key)
        if got is None:
            got = digest(("device", dev.model_dump_json()))
            self.dumped += 1
        self._model_keys[key] = self._digests[device] = got
        return got

    def model_digests(self) -> dict[str, str]:
        """Model key -> digest of the devices whose digest this run made or read (the
        ``fix:`` lines' cache keys plans by the same digests: rocetune.api.fixcache)."""
        return dict(self._model_keys)

    def _peer_key(self, device: str) -> str | None:
        """What a rule on a neighbour reads of ``device``: its model (by digest) and its
        links; a device outside the model: as :meth:`_local_key`."""
        if device in self._peer:
            return self._peer[device]
        key: str | None
        if device not in self.devices:
            key = self._local_key(device)
        else:
            model = self.model_digest(device)
            key = None
            if model is not None:
                key = digest(("peer", device, model, *self._links_json(device)))
        self._peer[device] = key
        return key

    def _subject_key(self, subject: Device | Link) -> str | None:
        parts: list[str | None]
        if isinstance(subject, Link):
            parts = [
                "link",
                self._link_json(subject),
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
                    f"{p}\0{self._peer_key(p)}" if self._peer_key(p) else None
                    for p in sorted(peers)
                ),
            ]
        if any(p is None for p in parts):
            return None
        return digest(cast(list[str], parts))

    def _subject(self, subject: Device | Link) -> tuple[object, str | None, _Entry | None]:
        """The subject's key and stored records, found once per subject (every rule asks);
        stored records whose guard no longer holds are not used (nor kept)."""
        held = self._keys.get(id(subject))
        if held is None or held[0] is not subject:
            key = self._subject_key(subject)
            entry = None
            if key is not None:
                entry = self._load().get(key)
                if entry is not None and any(self._local_key(d) != k for d, k in entry[2].items()):
                    entry = None
                    self._stale.add(key)
                if entry is not None:
                    self._used[key] = None
            held = self._keys[id(subject)] = (subject, key, entry)
        return held

    def _guard(self, subject: Device | Link, records: list[Record]) -> dict[str, str]:
        """The other devices ``records`` name, with their local keys ("" for a device read
        without the cache: never the same)."""
        mine = {subject.a.device, subject.b.device} if isinstance(subject, Link) else {subject.name}
        return {d: self._local_key(d) or "" for d in sorted(named_devices(records) - mine)}

    # --- SubjectStore -----------------------------------------------------------------

    def get(self, kind: Subject, subject: Device | Link, code: str) -> list[Record] | None:
        """The stored records of rule ``code`` on ``subject`` (kept for the next run)."""
        _, key, entry = self._subject(subject)
        if key is None:
            return None
        got = _in_entry(entry, code)
        if got is not None:
            self.hits += 1
            return got
        self.misses += 1
        return None

    def put(self, kind: Subject, subject: Device | Link, code: str, records: list[Record]) -> None:
        """Keep the records of rule ``code`` on ``subject`` for the next run."""
        _, key, _ = self._subject(subject)
        if key is not None:
            self._put.setdefault(key, {})[code] = records
            guard = self._guard(subject, records)
            if guard:
                self._guards.setdefault(key, {}).update(guard)

    def peek(self, subject: Device | Link, code: str) -> list[Record] | None:
        """The records of rule ``code`` on ``subject`` of this run's fabric that this run
        used or made (None: none), neither counted nor kept: a later check of the same
        subjects (the plan's re-checks, :class:`Replayed`) reads them."""
        _, key, entry = self._subject(subject)
        if key is None:
            return None
        made = self._put.get(key)
        if made is not None and code in made:
            return made[code]
        return _in_entry(entry, code)

    # --- the pack ---------------------------------------------------------------------

    def _load(self) -> dict[str, _Entry]:
        if self._old is None:
            self._old = {}
            try:
                pack = json.loads(self.path.read_bytes())
                if pack["format"] == PACK_FORMAT and pack["context"] == self.context:
                    self._old, self._raw, self._models = self._read(pack)
            except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
                self._old, self._raw, self._models = {}, {}, {}
        return self._old

    def _read(
        self, pack: dict[str, Any]
    ) -> tuple[dict[str, _Entry], dict[str, list[Any]], dict[str, str]]:
        """Every subject of the pack, decoded, and its model digests (a damaged pack raises
        here, before any of it is used)."""
        table = pack["strings"]
        codesets = pack["codesets"]
        raw = pack["subjects"]
        base = pack["base"]
        models = pack["models"]
        if not isinstance(table, list) or not all(type(t) is str for t in table):
            raise _Damaged("strings")
        if not isinstance(codesets, list) or not isinstance(raw, dict) or type(base) is not int:
            raise _Damaged("pack")
        if not _strings_map(models):
            raise _Damaged("models")
        sets = [frozenset(codes) for codes in codesets]
        if not all(type(c) is str for codes in sets for c in codes):
            raise _Damaged("codesets")
        old: dict[str, _Entry] = {}
        refs: dict[tuple[int, int | None], SourceRef] = {}
        for key, stored in raw.items():
            which, by_code, *rest = stored
            guard = rest[0] if rest else {}
            if type(which) is not int or which < 0 or len(rest) > 1 or not _strings_map(guard):
                raise _Damaged(key)
            codes = sets[which]
            records = {c: _decode(recs, table, refs) for c, recs in by_code.items()}
            old[key] = (codes, records, guard)
            if not codes.issuperset(records):
                raise _Damaged(key)
        self._strings = _Strings(table)
        self._sets = sets
        self._base = base
        return old, raw, models

    def save(self) -> None:
        """Write the records this run used (atomically); a cache that cannot be written is
        skipped (as the parse cache's). The subjects read and used again are written as they
        were read; the string table grows with new strings until it is twice what it was
        when last written whole, then it is written whole again (only what is used)."""
        from rocetune.statindex import write_bytes

        if not self.cache.writable:
            return
        old = self._load()
        if (
            not self._put
            and len(self._used) == len(old)
            and self._model_keys.items() <= self._models.items()
        ):
            return  # every record came from the pack, none was dropped: it is up to date
        strings, sets = self._strings, self._sets
        whole = len(strings.table) > 2 * max(self._base, 1024)
        if whole:
            strings, sets = _Strings([]), []
        whole = whole or not strings.table  # no pack read: its table is written whole now
        numbers = {codes: i for i, codes in enumerate(sets)}
        subjects: dict[str, list[Any]] = {}
        for key in (*self._used, *self._put):
            if key in subjects:
                continue
            put = self._put.get(key)
            if put is None and not whole:
                subjects[key] = self._raw[key]
                continue
            codes, records, guard = old.get(key, _NO_ENTRY) if key not in self._stale else _NO_ENTRY
            merged = {**{c: records.get(c, []) for c in codes}, **(put or {})}
            which = numbers.get(frozenset(merged))
            if which is None:
                which = numbers[frozenset(merged)] = len(sets)
                sets.append(frozenset(merged))
            stored = {c: _encode(recs, strings) for c, recs in merged.items() if recs}
            guard = {**guard, **self._guards.get(key, {})}
            subjects[key] = [which, stored, guard] if guard else [which, stored]
        pack = {
            "format": PACK_FORMAT,
            "context": self.context,
            "base": len(strings.table) if whole else self._base,
            "strings": strings.table,
            "codesets": [sorted(codes) for codes in sets],
            "subjects": subjects,
            "models": self._model_keys,
        }
        try:
            self.cache.prepare()
            write_bytes(self.path, json.dumps(pack, separators=(",", ":")).encode())
        except OSError:
            self.cache.write_errors += 1


_NO_ENTRY: _Entry = (frozenset(), {}, {})


def _strings_map(value: object) -> bool:
    """Whether ``value`` is a dict of strings to strings (as the pack writes guards and
    model digests)."""
    return isinstance(value, dict) and all(
        type(k) is str and type(v) is str for k, v in value.items()
    )


def _in_entry(entry: _Entry | None, code: str) -> list[Record] | None:
    """The records of rule ``code`` in a subject's stored entry ([]: it ran and gave none;
    None: not stored)."""
    if entry is None:
        return None
    got = entry[1].get(code)
    if got is None and code in entry[0]:
        return []
    return got


class Replayed:
    """A :class:`rocetune.engine.SubjectStore` over the records a finished run of
    :class:`CheckStore` used or made (:meth:`CheckStore.peek`), for checks of the same
    fabric (or of one that differs only in the devices ``changed``, whose subjects and
    whose neighbours' are never taken from it): nothing is stored, a subject without
    records runs the rule. With the rules' default options only (the store's context is
    the audit's selection and options; the caller checks they are the defaults)."""

    keeps = False  # a re-check's records are not stored: no provenance looked up early

    def __init__(self, store: CheckStore, changed: frozenset[str] = frozenset()) -> None:
        self.store = store
        self.changed = changed

    def get(self, kind: Subject, subject: Device | Link, code: str) -> list[Record] | None:
        """The run's records of ``code`` on ``subject`` when it is unchanged."""
        if self.changed:
            if isinstance(subject, Link):
                if subject.a.device in self.changed or subject.b.device in self.changed:
                    return None
            else:
                return None  # a device rule reads the device and its neighbours: changed ones
        return self.store.peek(subject, code)

    def put(self, kind: Subject, subject: Device | Link, code: str, records: list[Record]) -> None:
        """Nothing is stored (the run's store is saved already)."""


_KEPT: list[tuple[ref[Fabric], CheckStore]] = []
"""The store of the last audit run kept for its plan (:func:`keep`), while its fabric lives."""


def keep(store: CheckStore, fabric: Fabric) -> None:
    """Keep ``store`` (a finished run's, of ``fabric``) for the plan of the ``fix:`` lines
    that follows it (:func:`kept`), for as long as ``fabric`` lives."""

    def forget(gone: ref[Fabric]) -> None:
        if _KEPT and _KEPT[0][0] is gone:
            _KEPT.clear()

    _KEPT[:] = [(ref(fabric, forget), store)]


def kept(fabric: Fabric) -> CheckStore | None:
    """The store :func:`keep` kept for ``fabric`` (None: none)."""
    last = _KEPT[0] if _KEPT else None  # one read: another thread may replace it
    return last[1] if last is not None and last[0]() is fabric else None


def scope_of(paths: Sequence[Path | str]) -> str:
    """The pack name of an audit (the inventory) or a lint (its paths)."""
    import os

    return "\0".join(os.path.abspath(p) for p in paths)
