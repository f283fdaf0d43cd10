"""The ``fix:`` lines of an audit, cached per device (beside the parse cache's entries).

:func:`rocetune.api.fixes.attach_fixes` plans each device with a remediable finding (render,
replay, re-parse, re-check of the device and its link neighbours). What one device's plan
gives (its changes' texts and the fingerprints of the findings they clear) is a function of
what that plan reads, so it is stored under a key of exactly that (:meth:`Keys.device`):

- the *context*: this module's format, the cache version, the installed package's code
  fingerprint and the source checkout's ``templates/`` (a remedy may render the intended
  config);
- the *fabric digest* (:meth:`Keys.fabric`): the intent, every link, the fabric's problems
  and known devices, and every device's model as JSON (by digest), a host's without its
  unparsed items (:meth:`Keys.far`, below). The replay re-check runs the fabric-wide rules
  (RT705, RT706, RT306, ...) over the whole fabric, so a plan may depend on any device's
  model; a device's model digest is kept per parse entry key (:meth:`Keys.model_key`,
  :func:`rocetune.checkcache.model_key`), so an unchanged device is never dumped again (the
  digests the audit's check cache read or made are taken first:
  :meth:`rocetune.checkcache.CheckStore.model_digests`), and an edit that leaves every
  model as it was (a comment, whitespace) keeps the digest;
- why a host's unparsed items are left out of the fabric digest: a device's
  ``unparsed`` items are read by RT001 on that device, by the engine for the findings on that
  device and its links (RT000 "could not verify", :class:`rocetune.engine._UnparsedIndex`) and
  for the re-check's focus (which only widens what is reported, never the findings on the
  planned device and its neighbours), and by the RoCE port scope of a switch without declared
  or linked RoCE ports (:func:`rocetune.checks.scope.roce_scope`, which reads ``ports``: a
  host has none). So the findings a plan compares, those on the planned device, on its
  neighbours and fabric-level ones, read a host's unparsed items only when the host is the
  planned device or a neighbour, whose whole model is in the key (below). A host with a line
  not understood (RT001) no longer re-plans every switch. ``tests/unit/test_fixcache.py``
  fails when code elsewhere starts reading ``unparsed``;
- the device's *local key*: its parse cache entry key (its snapshot's files, path, name and
  role: what the planner edits and re-parses), platform, role, inventory ``asic`` and
  ``roce_ports``, and every link with an end on it;
- the model digests of the devices its links reach (the region the replay re-checks with
  the port, device and link rules; the premise of :mod:`rocetune.checkcache`: such a rule
  reads its device, its links and the models of the devices at their other ends). Not their
  parse entry keys: the plan never reads a neighbour's files, and a neighbour's provenance
  only places its findings (file, line), which a plan's changes and the fingerprints they
  clear never hold, so an edit that leaves a neighbour's model as it was (a comment) re-plans
  that neighbour only;
- the findings on the device or on a link with an end on it, as JSON, in report order (the
  remedies read exactly those: :func:`rocetune.render.remedy.remediation` fixes the device a
  finding names or the ends of its link).

A device read without the parse cache (no entry key), or next to one, is never cached.
Entries live in one pack per audited scope, ``<dir>/fixes/<version>/<scope>.json``, holding
what the last run used (older devices are dropped); JSON, written atomically; a damaged or
foreign pack is a miss.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from rocetune.checkcache import digest as _digest
from rocetune.checkcache import model_key
from rocetune.outputs import replace_bytes
from rocetune.parsecache import CACHE_VERSION, code_fingerprint, tree_fingerprint

if TYPE_CHECKING:
    from rocetune.model import AuditResult, Finding, Link
    from rocetune.parsecache import ParseCache

FORMAT = "2"
Fixes = dict[str, tuple[str, ...]]
DeviceFixes = list[tuple[str, list[str]]]
"""One device's plan: (finding fingerprint, the texts of the changes that clear it), in the
order the plan made them."""


def templates_fingerprint() -> str:
    """Path, size and mtime of every file of the source checkout's ``templates/`` (the
    installed copy, ``rocetune/_data``, is part of :func:`code_fingerprint`)."""
    return tree_fingerprint(Path(__file__).resolve().parents[2] / "templates")


def related(result: AuditResult) -> dict[str, list[Finding]]:
    """Device -> the findings on it or on a link with an end on it, in report order."""
    ends: dict[str, tuple[str, str]] = {}
    for link in result.fabric.links:
        ends.setdefault(link.label, (link.a.device, link.b.device))
    out: dict[str, list[Finding]] = {}
    for f in result.findings:
        names = {f.device} if f.device else set()
        if f.link and f.link in ends:
            names.update(ends[f.link])
        for name in names:
            out.setdefault(name, []).append(f)
    return out


class Keys:
    """The keys of one audit's device plans (see the module docstring). ``models``: model key
    -> model digest of the last run (looked up before any model is dumped)."""

    def __init__(self, result: AuditResult, models: dict[str, str]) -> None:
        self.result = result
        self.known_models = models
        self.models: dict[str, str] = {}
        """Model key -> digest of this run's devices (what the pack keeps)."""
        self.dumped = 0
        fabric = result.fabric
        self._links: dict[str, list[Link]] = {}
        self._link_json: dict[int, str] = {}
        for link in fabric.links:
            self._link_json[id(link)] = link.model_dump_json()
            for end in {link.a.device, link.b.device}:
                self._links.setdefault(end, []).append(link)
        self._local: dict[str, str | None] = {}
        self._digests: dict[str, str] = {}
        """Device -> its model digest (made by :meth:`fabric`)."""
        self._fabric: str | None = None
        self._context: str | None = None

    def model_key(self, name: str) -> str | None:
        """What device ``name``'s model is a function of: its parse entry key and what the
        inventory set after the parse (None: not read through the parse cache)."""
        content = self.result.content.get(name)
        if content is None:
            return None
        return model_key(self.result.fabric.devices[name], content)

    def _model_digest(self, name: str) -> str:
        key = self.model_key(name)
        got = self.known_models.get(key) if key is not None else None
        if got is None:
            dev = self.result.fabric.devices[name]
            got = _digest(("device", dev.model_dump_json()))
            self.dumped += 1
        if key is not None:
            self.models[key] = got
        return got

    def fabric(self) -> str:
        """The fabric digest: intent, links, problems, known devices, every device's model."""
        if self._fabric is None:
            fab = self.result.fabric
            parts: list[str] = [
                "fabric",
                fab.intent.model_dump_json(),
                json.dumps(list(fab.known_devices)),
                *(p.model_dump_json() for p in fab.problems),
                "links",
                *(self._link_json[id(link)] for link in fab.links),
                "devices",
            ]
            for name in fab.devices:
                self._digests[name] = self._model_digest(name)
                parts += (name, self.far(name))
            self._fabric = _digest(parts)
        return self._fabric

    def far(self, name: str) -> str:
        """What a plan of another device, not linked to ``name``, reads of it (by digest): its
        model, a host's without its unparsed items (see the module docstring); equal to the
        model's digest when that is all there is. Kept per model key, as model digests."""
        full = self._digests[name]
        dev = self.result.fabric.devices[name]
        if dev.ports or not dev.unparsed:
            return full
        key = self.model_key(name)
        far_key = None if key is None else f"far\0{key}"
        got = self.known_models.get(far_key) if far_key is not None else None
        if got is None:
            bare = dev.model_copy(update={"unparsed": ()})
            got = _digest(("device", bare.model_dump_json()))
            self.dumped += 1
        if far_key is not None:
            self.models[far_key] = got
        return got

    def context(self) -> str:
        """Format, cache version, code and templates fingerprints, fabric digest."""
        if self._context is None:
            self._context = _digest(
                (FORMAT, CACHE_VERSION, code_fingerprint(), templates_fingerprint(), self.fabric())
            )
        return self._context

    def local(self, name: str) -> str | None:
        """Device ``name``'s local key (None: not read through the parse cache); a device
        outside the model (a link's unknown end): its name and whether the inventory knows it."""
        if name in self._local:
            return self._local[name]
        fab = self.result.fabric
        got: str | None
        if name not in fab.devices:
            got = f"absent\0{name}\0{name in fab.known_devices}"
        else:
            model = self.model_key(name)
            links = self._links.get(name, ())
            got = None
            if model is not None:
                got = _digest(("local", name, model, *(self._link_json[id(x)] for x in links)))
        self._local[name] = got
        return got

    def peer(self, name: str) -> str | None:
        """What a plan of a link neighbour reads of device ``name``: its model (by digest),
        not its files (None: not read through the parse cache); a device outside the model:
        as :meth:`local`."""
        if name not in self.result.fabric.devices:
            return self.local(name)
        if self.model_key(name) is None:
            return None
        self.fabric()
        return _digest(("peer", name, self._digests[name]))

    def device(self, name: str, findings: list[Finding]) -> str | None:
        """The key of device ``name``'s plan (``findings``: :func:`related`'s for it); None
        when it or a neighbour was not read through the parse cache."""
        own = self.local(name)
        if own is None:
            return None
        peers = sorted({e.device for x in self._links.get(name, ()) for e in (x.a, x.b)} - {name})
        parts = ["plan", self.context(), name, own]
        for peer in peers:
            key = self.peer(peer)
            if key is None:
                return None
            parts += (peer, key)
        parts += (f.model_dump_json() for f in findings)
        return _digest(parts)


def scope(result: AuditResult) -> str:
    """Which pack an audit uses: its inventory's, else (lint) its devices'."""
    from rocetune.checkcache import scope_of

    if result.inventory is not None:
        return _digest(("audit", scope_of([result.inventory])))
    return _digest(("lint", *sorted(result.fabric.devices)))


def _pack_path(cache: ParseCache, name: str) -> Path:
    return cache.directory / "fixes" / CACHE_VERSION / f"{name}.json"


class Pack:
    """The stored plans of one scope: device -> (key, plan), and model key -> digest."""

    def __init__(self, cache: ParseCache, name: str) -> None:
        self.cache = cache
        self.path = _pack_path(cache, name)
        self.devices: dict[str, tuple[str, DeviceFixes]] = {}
        self.models: dict[str, str] = {}
        self._read()
        self.used: dict[str, tuple[str, DeviceFixes]] = {}

    def _read(self) -> None:
        try:
            got = json.loads(self.path.read_text(encoding="utf-8"))
            if got["format"] != FORMAT:
                return
            devices = {
                str(name): (str(key), [(str(fp), [str(t) for t in texts]) for fp, texts in plan])
                for name, (key, plan) in got["devices"].items()
            }
            models = {str(k): str(v) for k, v in got["models"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return
        self.devices, self.models = devices, models

    def get(self, name: str, key: str) -> DeviceFixes | None:
        """The plan stored for ``name`` under ``key`` (kept for the next run), else None."""
        got = self.devices.get(name)
        if got is None or got[0] != key:
            return None
        self.used[name] = got
        return got[1]

    def put(self, name: str, key: str, plan: DeviceFixes) -> None:
        """Keep ``plan`` for ``name`` under ``key``."""
        self.used[name] = (key, plan)

    def save(self, models: dict[str, str]) -> None:
        """Write what this run used (atomically; only in an existing cache directory, which
        the audit's parse cache made; an unwritable one is skipped)."""
        if not self.cache.directory.is_dir():
            return
        if self.used == self.devices and models == self.models:
            return
        data = {
            "format": FORMAT,
            "devices": {n: [k, [[fp, t] for fp, t in p]] for n, (k, p) in self.used.items()},
            "models": models,
        }
        with contextlib.suppress(OSError):
            replace_bytes(self.path, json.dumps(data, separators=(",", ":")).encode())
