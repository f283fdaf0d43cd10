"""Run the selected rules over a fabric and turn their results into findings.

Unread is not absent: a finding that asserts absence or a default (``asserts_absence``) on a
port or device where an unparsed item touches one of the rule's ``features`` is not
reported; one RT000 "could not verify: <file>:<line> not understood" per unparsed item says
which rules and ports it left unverified instead.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple, Protocol, cast

from rocetune.checks.base import (
    CheckContext,
    DeviceRule,
    Issue,
    LinkRule,
    Missing,
    PortRule,
    Rule,
    RuleOptions,
)
from rocetune.checks.scope import RoceScope
from rocetune.errors import ConfigError
from rocetune.model import (
    Device,
    Fabric,
    Feature,
    Finding,
    Link,
    Provenance,
    Severity,
    SourceRef,
    Unparsed,
)

MISSING_CODE = "RT000"
_Prov = Mapping[str, Provenance]
_Options = Mapping[str, "RuleOptions"]
_MAX_LISTED = 5
_MAX_ITEM = 60


@dataclass(frozen=True)
class Selection:
    """Which rules run: ruff-style select/ignore by code, code prefix, name or ``ALL``."""

    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()


def _matches(rule: type[Rule], selector: str) -> bool:
    sel = selector.strip()
    if sel.upper() == "ALL":
        return True
    meta = rule.meta
    return meta.code.upper().startswith(sel.upper()) or meta.name == sel.lower()


def select_rules(rules: Sequence[type[Rule]], selection: Selection) -> list[type[Rule]]:
    """Return the rules selected and not ignored; unknown selectors are a ConfigError."""
    for sel in (*selection.select, *selection.ignore):
        if not any(_matches(r, sel) for r in rules):
            known = ", ".join(r.meta.code for r in rules[:3])
            msg = f"unknown rule selector {sel!r} (use a code like {known}..., a prefix, or a name)"
            raise ConfigError(msg)
    chosen = [r for r in rules if any(_matches(r, s) for s in selection.select)]
    return [r for r in chosen if not any(_matches(r, s) for s in selection.ignore)]


def format_value(value: object) -> str | None:
    """Render an observed/expected value for humans and JSON (stable, compact)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, frozenset | set | tuple | list):
        items = sorted(value) if all(isinstance(v, int) for v in value) else list(value)
        return "{" + ",".join(str(v) for v in items) + "}"
    if isinstance(value, dict):
        return ", ".join(f"{k}->{v}" for k, v in sorted(value.items()))
    return str(value)


def _finding(rule: type[Rule], issue: Issue, prov: Mapping[str, Provenance]) -> Finding:
    ref = None
    if issue.device is not None and issue.device in prov:
        ref = prov[issue.device].lookup(issue.path)
    return Finding(
        code=rule.meta.code,
        name=rule.meta.name,
        severity=issue.severity or rule.meta.severity,
        device=issue.device,
        port=issue.port,
        link=issue.link,
        message=issue.message,
        observed=format_value(issue.observed),
        expected=format_value(issue.expected),
        file=ref.file if ref else None,
        line=ref.line if ref else None,
        path=issue.path,
    )


_NO_PORT = object()


class _Texts:
    """Strings numbered once per run: the two halves of Missing notes' items."""

    __slots__ = ("codes", "texts")

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}
        self.texts: list[str] = []

    def code(self, text: str) -> int:
        code = self.codes.get(text)
        if code is None:
            code = self.codes[text] = len(self.texts)
            self.texts.append(text)
        return code


class _Missed:
    """The Missing notes of one rule on one device, folded as they come (a note per port and
    field is thousands on a big switch: only what the RT000 finding says is kept). An item
    is kept as two numbers, of its text up to the first ``:`` (the port, shared by every
    rule) and of the rest (the same for every port): its string is put together again only
    for the first few listed."""

    __slots__ = ("codes", "many", "path", "port")

    def __init__(self, path: str | None) -> None:
        self.codes = array("Q")  # item codes in the order they came (repeats: see unique)
        self.path = path
        self.port: object = _NO_PORT  # the first note's port; many: another one came
        self.many = False

    def add(self, note: Missing, texts: _Texts) -> None:
        head, colon, tail = note.item.partition(":")
        known = texts.codes  # texts.code inlined: a big audit folds ~200,000 notes
        first = known.get(head)
        if first is None:
            first = texts.code(head)
        rest = colon + tail
        second = known.get(rest)
        if second is None:
            second = texts.code(rest)
        self.codes.append(first << 32 | second)
        port = _head_port(note.path, head)
        if self.port is _NO_PORT:
            self.port = port
        elif port != self.port:
            self.many = True

    def unique(self) -> None:
        """Each item once, in the order they first came: done once all notes are folded (a
        set of the codes while folding held ~60 bytes per note, a third of the checks'
        peak on a 256-port EOS switch; repeats are rare and cost 8 bytes each)."""
        codes = self.codes
        if len(codes) > 1:
            once = dict.fromkeys(codes)
            if len(once) != len(codes):
                self.codes = array("Q", once)

    def items(self, texts: _Texts, count: int) -> list[str]:
        """The first ``count`` items, as they were."""
        names = texts.texts
        return [names[c >> 32] + names[c & 0xFFFFFFFF] for c in self.codes[:count]]


def _fold_missing(
    missing: dict[type[Rule], dict[str, _Missed]], rule: type[Rule], note: Missing, texts: _Texts
) -> bool:
    """Fold ``note`` into ``missing``; whether it is the rule's first note on its device."""
    by_device = missing.get(rule)
    if by_device is None:
        by_device = missing[rule] = {}
    missed = by_device.get(note.device)
    first = missed is None
    if missed is None:
        missed = by_device[note.device] = _Missed(note.path)
    missed.add(note, texts)
    return first


def _missing_findings(
    missing: Mapping[type[Rule], Mapping[str, _Missed]], prov: Mapping[str, _Lookup], texts: _Texts
) -> list[Finding]:
    """One RT000 per device and set of missing items; rules missing the same items share it.

    Devices missing the same items for the same rules (every host of a fleet without the
    same outputs) share its words, put together once; the findings are built without
    validation (:func:`rocetune.model.construct.unvalidated`: their values are typed here),
    a big fleet has tens of thousands of them."""
    from rocetune.model.construct import unvalidated

    groups: dict[tuple[str, bytes], list[type[Rule]]] = {}
    first: dict[tuple[str, bytes], _Missed] = {}
    one_port: dict[tuple[str, bytes], bool] = {}  # the notes of the group name one port
    for rule, by_device in missing.items():
        for device, missed in by_device.items():
            missed.unique()
            key = (device, missed.codes.tobytes())
            groups.setdefault(key, []).append(rule)
            head = first.setdefault(key, missed)
            one_port[key] = one_port.get(key, True) and not missed.many and missed.port == head.port
    said: dict[tuple[bytes, tuple[type[Rule], ...]], tuple[str, str]] = {}
    out = []
    for key, rules in groups.items():
        device, missed = key[0], first[key]
        words = said.get((key[1], tuple(rules)))
        if words is None:
            words = said[key[1], tuple(rules)] = _missing_words(missed, rules, texts)
        path = missed.path
        ref = prov[device].lookup(path) if device in prov else None
        port = cast("str | None", missed.port) if one_port[key] else None
        values = {
            "code": MISSING_CODE,
            "name": "missing-data",
            "severity": Severity.INFO,
            "device": device,
            "port": port,
            "message": words[0],
            "observed": "not in snapshot",
            "expected": words[1],
            "file": ref.file if ref else None,
            "line": ref.line if ref else None,
            "path": path,
        }
        out.append(unvalidated(Finding, values))
    return out


def _missing_words(missed: _Missed, rules: list[type[Rule]], texts: _Texts) -> tuple[str, str]:
    """The message and the expected text of the RT000 of ``rules`` missing ``missed``."""
    listed = "; ".join(missed.items(texts, _MAX_LISTED))
    if len(missed.codes) > _MAX_LISTED:
        listed += f"; and {len(missed.codes) - _MAX_LISTED} more"
    who = ", ".join(f"{r.meta.code} {r.meta.name}" for r in rules)
    expected = "data for " + ", ".join(r.meta.code for r in rules)
    return f"{who} could not run: {listed}", expected


class _Lookup(Protocol):
    def lookup(self, path: str | None) -> SourceRef | None: ...


class _Looked(Mapping[str, _Lookup]):
    """``prov`` whose lookups of missing-data notes' paths were made with the records (a
    stored record needs no provenance table decoded)."""

    def __init__(self, refs: dict[tuple[str, str | None], SourceRef | None], prov: _Prov) -> None:
        self._refs = refs
        self._prov = prov

    def __getitem__(self, device: str) -> _Lookup:
        return _LookedDevice(self._refs, device, self._prov[device])

    def __contains__(self, device: object) -> bool:
        return device in self._prov

    def __iter__(self) -> Iterator[str]:
        return iter(self._prov)

    def __len__(self) -> int:
        return len(self._prov)


@dataclass(frozen=True)
class _LookedDevice:
    refs: dict[tuple[str, str | None], SourceRef | None]
    device: str
    prov: Provenance

    def lookup(self, path: str | None) -> SourceRef | None:
        key = (self.device, path)
        if key in self.refs:
            return self.refs[key]
        return self.prov.lookup(path)


def _head_port(path: str | None, head: str) -> str | None:
    """The port a Missing note is about: its path names it (``ports.<head>`` or
    ``nics.<head>``, alone or followed by ``.``) and ``head``, its item's text before the
    first ``:``, is it. Found without building strings: it runs on every note."""
    if not path:
        return None
    if path.startswith("ports."):
        start = 6
    elif path.startswith("nics."):
        start = 5
    else:
        return None
    if not path.startswith(head, start):
        return None
    end = start + len(head)
    return head if len(path) == end or path[end] == "." else None


class _UnparsedIndex:
    """Per device: which unparsed items touch which feature (built once per run)."""

    def __init__(self, fabric: Fabric) -> None:
        self.fabric = fabric
        self._by_device: dict[str, dict[str, list[tuple[int, Unparsed]]]] = {}
        self._links: dict[str, Link] | None = None
        """Label -> link, made at the first issue on a link (a plan's re-check often has
        none: made every time, it cost a pass over every link of the fabric)."""

    def _features(self, device: str) -> dict[str, list[tuple[int, Unparsed]]]:
        found = self._by_device.get(device)
        if found is None:
            found = {}
            dev = self.fabric.devices.get(device)
            for i, item in enumerate(dev.unparsed if dev is not None else ()):
                for feature in item.features:
                    found.setdefault(feature, []).append((i, item))
            self._by_device[device] = found
        return found

    def touching(self, issue: Issue, features: tuple[Feature, ...]) -> list[tuple[str, int]]:
        """(device, unparsed index) of the items that may change the issue's verdict."""
        ends: list[tuple[str, str | None]] = []
        link = None
        if issue.link:
            if self._links is None:
                self._links = {lk.label: lk for lk in self.fabric.links}
            link = self._links.get(issue.link)
        if link is not None:
            ends = [(link.a.device, link.a.port), (link.b.device, link.b.port)]
        elif issue.device is not None:
            ends = [(issue.device, issue.port)]
        out: dict[tuple[str, int], None] = {}
        for device, port in ends:
            table = self._features(device)
            for feature in features:
                for i, item in table.get(feature, ()):
                    if item.ports is None or port is None or port in item.ports:
                        out[(device, i)] = None
        return list(out)


@dataclass
class _Unverified:
    """What one unparsed item left unverified: rules and the ports/links they were on."""

    rules: dict[type[Rule], None]
    where: dict[str, bool]
    """The first ``_MAX_LISTED + 1`` places, in the order first seen: port name or link
    label -> True for a link (the finding lists no more; see ``count``)."""
    count: int = 0
    """Distinct places: every port/link this item left unverified (counted through
    ``_Collected.marks``, so no item holds a dict of every port of its device)."""


def _asserts_absence(rule: type[Rule], issue: Issue) -> bool:
    if issue.asserts_absence is not None:
        return issue.asserts_absence
    return rule.meta.asserts_absence


def _unverified_findings(
    unverified: Mapping[tuple[str, int], _Unverified],
    fabric: Fabric,
    prov: Mapping[str, Provenance],
) -> list[Finding]:
    out = []
    for (device, index), what in unverified.items():
        item = fabric.devices[device].unparsed[index]
        text = item.item if len(item.item) <= _MAX_ITEM else item.item[: _MAX_ITEM - 3] + "..."
        path = f"unparsed.{index}"
        file, line = item.file, item.line
        if file is None and device in prov:
            ref = prov[device].lookup(path)
            file, line = (ref.file, ref.line) if ref else (None, None)
        loc = f"{file}:{line}" if file and line else (file or "a line")
        where = list(what.where)
        listed = ", ".join(where[:_MAX_LISTED])
        if what.count > _MAX_LISTED:
            listed += f" and {what.count - _MAX_LISTED} more"
        who = ", ".join(f"{r.meta.code} {r.meta.name}" for r in what.rules)
        on = f" on {listed}" if listed else ""
        out.append(
            Finding(
                code=MISSING_CODE,
                name="missing-data",
                severity=Severity.INFO,
                device=device,
                port=where[0] if what.count == 1 and not what.where[where[0]] else None,
                message=f"could not verify: {loc} not understood ({text!r}); {who}{on}"
                " not reported",
                observed="not understood",
                expected="a construct rocetune can read ("
                + ", ".join(r.meta.code for r in what.rules)
                + ")",
                file=file,
                line=line,
                path=path,
            )
        )
    return out


class Record(NamedTuple):
    """What one rule result became (:func:`run_checks`), in a form that can be stored and
    replayed: a finding, a missing-data note (aggregated into RT000 at the end), or an
    absence finding withheld because unparsed items (device, index) touch it.

    A named tuple: a re-audit from the check cache makes one per stored record (~200,000
    for 10,000 hosts), and a frozen dataclass cost six times as much to make."""

    finding: Finding | None = None
    missing: Missing | None = None
    ref: SourceRef | None = None
    """Where the missing note's path was defined (when :attr:`looked`)."""
    looked: bool = False
    """:attr:`ref` was looked up when the record was made (records to be stored); else the
    RT000 finding looks the path up as it is made."""
    unverified: tuple[tuple[str, int], ...] = ()
    link: str | None = None
    port: str | None = None


Subject = Literal["device", "link"]


class SubjectStore(Protocol):
    """Records of a rule on one device or link from an earlier run (rocetune.checkcache).

    Used only for rules whose results depend on that device (or link) and the devices
    linked to it: port and device rules, link rules, that keep the base ``run``."""

    keeps: bool
    """Whether :meth:`put` keeps records for another run (their provenance lookups are
    then made with them: :func:`_record` ``stored``)."""

    def get(self, kind: Subject, subject: Device | Link, code: str) -> list[Record] | None:
        """The records stored for ``subject`` and the rule ``code``; None: run the rule."""

    def put(self, kind: Subject, subject: Device | Link, code: str, records: list[Record]) -> None:
        """Store the records the rule gave for ``subject``."""


def subject_kind(rule_cls: type[Rule]) -> Subject | None:
    """ "device" for port and device rules that check one device at a time (the base
    ``run``), "link" for link rules that check one link at a time; None for the others
    (fabric-wide rules, rules with their own ``run``), which always run."""
    run = rule_cls.run
    if issubclass(rule_cls, PortRule) and run is PortRule.run:
        return "device"
    if issubclass(rule_cls, DeviceRule) and run is DeviceRule.run:
        return "device"
    if issubclass(rule_cls, LinkRule) and run is LinkRule.run:
        return "link"
    return None


def run_checks(
    fabric: Fabric,
    rules: Sequence[type[Rule]],
    options: Mapping[str, RuleOptions] | None = None,
    provenance: Mapping[str, Provenance] | None = None,
    *,
    report_missing: bool = True,
    only: frozenset[str] | None = None,
    store: SubjectStore | None = None,
) -> list[Finding]:
    """Run ``rules`` over ``fabric``; return findings sorted by device, port, code.

    ``only``: port, device and link rules check only these devices and their links
    (:attr:`rocetune.checks.base.CheckContext.only`). ``store``: records of port, device
    and link rules per device and per link are taken from it and put into it
    (:class:`SubjectStore`); the findings are the same."""
    options = options or {}
    prov = provenance or {}
    index = _UnparsedIndex(fabric)
    scopes: dict[str, RoceScope] = {}  # RoCE ports of a device: found once for every rule
    memo: dict[tuple[object, ...], tuple[tuple[object, ...], object]] = {}  # CheckContext.memo
    out = _Collected()
    for rule_cls in rules:
        if rule_cls.meta.code == MISSING_CODE:
            continue
        opts = options.get(rule_cls.meta.code) or rule_cls.options_model()
        ctx = CheckContext(fabric=fabric, options=opts, only=only, _scopes=scopes, _memo=memo)
        rule = rule_cls()
        kind = subject_kind(rule_cls) if store is not None else None
        if store is None or kind is None:
            for result in rule.run(ctx):
                if isinstance(result, Missing):  # _record's Record(missing=result), folded
                    out.note(rule_cls, result, looked=False)
                else:
                    out.add(rule_cls, _record(rule_cls, result, index, prov))
            continue
        for rec in _stored(store, kind, rule, ctx, index=index, prov=prov):
            out.add(rule_cls, rec)
    return out.findings(fabric, prov, report_missing=report_missing)


class _Collected:
    """The records of a run, folded as they come: findings, missing-data notes per rule and
    device, and what each unparsed item left unverified (:func:`run_checks`)."""

    def __init__(self, keep: frozenset[str] | None = None) -> None:
        self.keep = keep
        """Only findings on these devices (and fabric-level ones) are wanted (None: all)."""
        self.found: list[Finding] = []
        self.missing: dict[type[Rule], dict[str, _Missed]] = {}
        self.refs: dict[tuple[str, str | None], SourceRef | None] = {}
        self.unverified: dict[tuple[str, int], _Unverified] = {}
        self.marks: dict[str, dict[str, int]] = {}
        """Device -> place -> bit set of the device's unparsed items (by index) that left
        the place unverified: one number per place, not one dict of places per item."""
        self.texts: dict[str, str] = {}  # equal texts of findings held once (share_texts)
        self.missed_texts = _Texts()  # the halves of Missing notes' items, numbered

    def add(self, rule_cls: type[Rule], rec: Record) -> None:
        keep = self.keep
        if rec.finding is not None:
            self.found.append(share_texts(rec.finding, self.texts))
        elif rec.missing is not None:
            self.note(rule_cls, rec.missing, rec.ref, looked=rec.looked)
        for key in rec.unverified:
            if keep is not None and key[0] not in keep:
                continue
            what = self.unverified.setdefault(key, _Unverified({}, {}))
            what.rules[rule_cls] = None
            if rec.link is not None:
                self._place(what, key, rec.link, True)
            elif rec.port is not None:
                self._place(what, key, rec.port, False)

    def note(
        self, rule_cls: type[Rule], note: Missing, ref: SourceRef | None = None, *, looked: bool
    ) -> None:
        """:meth:`add` of ``Record(missing=note, ref=ref, looked=looked)``, without making
        the record: most results of a big audit are such notes (~200,000 at 1,000
        switches), and a run that stores nothing folds them as they come."""
        if self.keep is None or note.device in self.keep:
            first = _fold_missing(self.missing, rule_cls, note, self.missed_texts)
            if first and looked:  # the RT000's path: looked up with the record
                self.refs.setdefault((note.device, note.path), ref)

    def _place(self, what: _Unverified, key: tuple[str, int], place: str, link: bool) -> None:
        marks = self.marks.get(key[0])
        if marks is None:
            marks = self.marks[key[0]] = {}
        bits = marks.get(place, 0)
        bit = 1 << key[1]
        if not bits & bit:  # first time for this item: counted, listed while few
            marks[place] = bits | bit
            what.count += 1
            if len(what.where) <= _MAX_LISTED:
                what.where[place] = link
        elif place in what.where:
            what.where[place] = link  # as a dict of every place: the last kind written

    def findings(self, fabric: Fabric, prov: _Prov, *, report_missing: bool) -> list[Finding]:
        found = self.found
        if self.keep is not None:
            keep = self.keep
            found = [f for f in found if f.device is None or f.device in keep]
        if report_missing:
            found.extend(
                _missing_findings(self.missing, _Looked(self.refs, prov), self.missed_texts)
            )
            found.extend(_unverified_findings(self.unverified, fabric, prov))
        return sort_findings(found)


_TEXTS = ("message", "observed", "expected")
_TEXTS_MAX = 100_000


def share_texts(finding: Finding, texts: dict[str, str]) -> Finding:
    """``finding`` with its message, observed and expected strings replaced by the equal ones
    of earlier findings (in place: the same values). A rule finds the same fault on every
    port in the same words; each port's finding held its own copy (~700 bytes)."""
    values = finding.__dict__
    for name in _TEXTS:
        text = values[name]
        if text is not None:
            held = texts.get(text)
            if held is None:
                if len(texts) < _TEXTS_MAX:
                    texts[text] = text
            elif held is not text:
                values[name] = held
    return finding


def recheck(
    before: Fabric,
    after: Fabric,
    rules: Sequence[type[Rule]],
    options: Mapping[str, RuleOptions] | None,
    provenance: tuple[_Prov, _Prov],
    *,
    only: frozenset[str],
    report_missing: bool = True,
    stores: tuple[SubjectStore | None, SubjectStore | None] = (None, None),
) -> tuple[list[Finding], list[Finding]]:
    """What :func:`run_checks` with ``only`` finds on ``before`` and on ``after`` (the same
    fabric with devices of ``only`` replaced: ``rocetune plan``'s re-check of a change),
    restricted to the devices where the two can differ: ``only``, every device a port,
    device or link rule or an unfocused fabric-wide rule reports on in either run, and
    fabric-level findings. Fabric-wide rules with :attr:`Rule.focused` read every device
    but report only on those (:attr:`CheckContext.focus`); when what their verdicts on the
    other devices depend on changes (their signs differ, e.g. a new majority), both runs
    are the full ones. Linear in what the change touches, not in the fabric's findings.
    ``stores``: the records of port, device and link rules on subjects of ``before`` and of
    ``after`` from a run that checked them (:class:`SubjectStore`; the audit's, for the
    subjects the change leaves alone): taken instead of running the rule there."""
    opts = options or {}
    runs = (
        _Rerun(before, provenance[0], only, opts, stores[0]),
        _Rerun(after, provenance[1], only, opts, stores[1]),
    )
    order = [r for r in rules if r.meta.code != MISSING_CODE]
    focused = [r for r in order if r.focused]
    for run in runs:  # one fabric after the other (rules share per-fabric lookups)
        for rule_cls in order:
            if rule_cls not in focused:
                run.records[rule_cls] = run.run(rule_cls)
    focus = frozenset(only.union(*(run.devices() for run in runs)))
    for run in runs:
        for rule_cls in focused:
            run.records[rule_cls] = run.run(rule_cls, focus)
    verdict = _signs_agree(runs[0].signs, runs[1].signs)
    if verdict == "widen":  # a reference appears: outliers may be new on unfocused devices
        wider = focus | _with_unparsed(before, after, only)
        if wider != focus:
            focus = wider
            for run in runs:
                run.signs.clear()
                for rule_cls in focused:
                    run.records[rule_cls] = run.run(rule_cls, focus)
    if verdict == "full":
        first, second = (
            run_checks(f, rules, options, p, report_missing=report_missing, only=only, store=st)
            for f, p, st in zip((before, after), provenance, stores, strict=True)
        )
        return first, second
    got = [run.collect(order, focus, report_missing=report_missing) for run in runs]
    return got[0], got[1]


_QUIET = frozenset({"uniform", "tie"})


def _signs_agree(before: list[object], after: list[object]) -> str:
    """ "same": every unfocused device's verdicts are the same before and after: the signs
    are equal, or a comparison is uniform on one side (its one value is signed) and on the
    other uniform too or a majority of that value. An unfocused device is not changed, so
    its subjects hold the uniform value on both sides: no outlier there, neither side (the
    change fixed, or made, the only outliers, all on focused devices). "widen": a
    comparison that reported no device against a reference (uniform, tie) has one after:
    nothing reported before on an unfocused device can be cleared, but findings may be new
    there, which can merge into the could-not-verify findings of unparsed items (so the
    devices with unparsed items join the focus). "full": anything else (a reference
    changes or goes, a comparison starts or stops: unfocused devices' findings can be
    cleared)."""
    if before == after:
        return "same"
    was = {what: (state, value) for what, state, value in cast(list[_Sign], before)}
    now = {what: (state, value) for what, state, value in cast(list[_Sign], after)}
    if was.keys() != now.keys():
        return "full"
    verdict = "same"
    for what, then in was.items():
        if now[what] == then or _unmoved(then, now[what]):
            continue
        if then[0] not in _QUIET or now[what][0] not in {*_QUIET, "majority"}:
            return "full"
        verdict = "widen"
    return verdict


def _unmoved(one: tuple[str, object], other: tuple[str, object]) -> bool:
    """Whether a comparison signed ``one`` on one side and ``other`` on the other reports
    the same on every unfocused device (:func:`_signs_agree`): uniform on both sides, or
    uniform on one and a majority of the uniform value on the other."""
    states = {one[0], other[0]}
    if states == {"uniform"}:
        return True
    return states == {"uniform", "majority"} and one[1] is not None and one[1] == other[1]


_Sign = tuple[tuple[object, ...], str, object]


def _with_unparsed(before: Fabric, after: Fabric, changed: frozenset[str]) -> frozenset[str]:
    """The devices with unparsed items in either fabric (``after`` differs from ``before``
    only in ``changed``; the scan of ``before`` is shared between re-checks of it)."""
    from rocetune.checks.memo import per_device

    def scan() -> frozenset[str]:
        return frozenset(name for name, dev in before.devices.items() if dev.unparsed)

    got = per_device(("unparsed devices",), (before.devices,), scan)
    return got | {n for n in changed if n in after.devices and after.devices[n].unparsed}


class _Rerun:
    """One fabric's side of :func:`recheck`: each rule's records."""

    def __init__(
        self,
        fabric: Fabric,
        prov: _Prov,
        only: frozenset[str],
        options: _Options,
        store: SubjectStore | None = None,
    ) -> None:
        self.fabric = fabric
        self.store = store
        self.options = options
        self.prov = prov
        self.only = only
        self.index = _UnparsedIndex(fabric)
        self.scopes: dict[str, RoceScope] = {}
        self.memo: dict[tuple[object, ...], tuple[tuple[object, ...], object]] = {}
        self.records: dict[type[Rule], list[Record]] = {}
        self.signs: list[object] = []

    def run(self, rule_cls: type[Rule], focus: frozenset[str] | None = None) -> list[Record]:
        ctx = CheckContext(
            fabric=self.fabric,
            options=self.options.get(rule_cls.meta.code) or rule_cls.options_model(),
            only=self.only,
            focus=focus,
            signs=self.signs if focus is not None else None,
            _scopes=self.scopes,
            _memo=self.memo,
        )
        kind = subject_kind(rule_cls) if self.store is not None else None
        if self.store is not None and kind is not None:
            return list(
                _stored(self.store, kind, rule_cls(), ctx, index=self.index, prov=self.prov)
            )
        return [_record(rule_cls, r, self.index, self.prov) for r in rule_cls().run(ctx)]

    def devices(self) -> set[str]:
        """The devices the records so far are on."""
        return named_devices(rec for records in self.records.values() for rec in records)

    def collect(
        self, order: list[type[Rule]], focus: frozenset[str], *, report_missing: bool
    ) -> list[Finding]:
        out = _Collected(focus)
        for rule_cls in order:
            for rec in self.records[rule_cls]:
                out.add(rule_cls, rec)
        return out.findings(self.fabric, self.prov, report_missing=report_missing)


def named_devices(records: Iterable[Record]) -> set[str]:
    """The devices ``records`` are on (their findings', notes' and withheld items')."""
    out: set[str] = set()
    for rec in records:
        if rec.finding is not None and rec.finding.device is not None:
            out.add(rec.finding.device)
        elif rec.missing is not None:
            out.add(rec.missing.device)
        out.update(device for device, _ in rec.unverified)
    return out


def _record(
    rule_cls: type[Rule],
    result: Issue | Missing,
    index: _UnparsedIndex,
    prov: _Prov,
    *,
    stored: bool = False,
) -> Record:
    """``stored``: the record will be replayed in another run (its provenance lookups are
    made now: the other run need not decode the device's provenance table)."""
    if isinstance(result, Missing):
        if not stored:
            return Record(missing=result)
        where = prov.get(result.device)
        ref = where.lookup(result.path) if where is not None else None
        return Record(missing=result, ref=ref, looked=True)
    items = (
        index.touching(result, rule_cls.meta.features) if _asserts_absence(rule_cls, result) else []
    )
    if not items:
        return Record(finding=_finding(rule_cls, result, prov))
    return Record(unverified=tuple(items), link=result.link, port=result.port)


def _stored(
    store: SubjectStore,
    kind: Subject,
    rule: Rule,
    ctx: CheckContext,
    *,
    index: _UnparsedIndex,
    prov: _Prov,
) -> Iterator[Record]:
    """The records of ``rule`` subject by subject, in :meth:`Rule.run`'s order: stored ones,
    else the rule run on that one subject (and stored)."""
    rule_cls = type(rule)
    code = rule_cls.meta.code
    subjects: Iterable[Device | Link] = ctx.subjects() if kind == "device" else ctx.subject_links()
    for subject in subjects:
        got = store.get(kind, subject, code)
        if got is None:
            if isinstance(subject, Link):
                results = cast(LinkRule, rule).check_link(subject, ctx)
            else:
                results = cast(PortRule | DeviceRule, rule).run_device(subject, ctx)
            got = [_record(rule_cls, r, index, prov, stored=store.keeps) for r in results]
            store.put(kind, subject, code, got)
        yield from got


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Sort by device, link, port (natural order), code, message."""
    naturals: dict[str, tuple[object, ...]] = {}  # a port's key made once (and its words
    # interned): the keys of every finding are alive together, the peak of a lint

    def key(f: Finding) -> tuple[object, ...]:
        port = f.port or ""
        natural = naturals.get(port)
        if natural is None:
            natural = naturals[port] = _natural(port)
        return (f.device or "", f.link or "", natural, f.code, f.message)

    return sorted(findings, key=key)


def _natural(text: str) -> tuple[object, ...]:
    import re

    # from a list: a tuple made from a generator is sized by a guess and shrunk, and such
    # tuples stay in CPython's free lists once freed
    return tuple([int(t) if t.isdigit() else sys.intern(t) for t in re.split(r"(\d+)", text)])
