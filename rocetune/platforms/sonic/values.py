"""Value readers for SONiC CONFIG_DB fields, and the collector of unparsed items.

CONFIG_DB stores every field as a string (``"speed": "100000"``); hand-written files also
carry JSON numbers. The readers accept both, never raise, and report anything else as an
:class:`~rocetune.model.Unparsed` item with the line of the field.

A read field is tri-state, which is how the parser keeps "absent" apart from "unknown":

* ``None`` - the field is not in the entry;
* ``At(None, line)`` - the field is there but its value could not be read (reported);
* ``At(value, line)`` - the field and its value.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar, Generic, Protocol, TypeVar

from rocetune.model import Unparsed
from rocetune.platforms.common.unparsed import Scope, UnparsedCollector
from rocetune.platforms.sonic.unparsed import ports_of_key, scope_of

T = TypeVar("T")
V_co = TypeVar("V_co", covariant=True)

_INT = re.compile(r"-?\d+")
_FLOAT = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_OLD_REF = re.compile(r"\[([A-Za-z0-9_]+)\|([^\]]*)\]")
_MAX_INDEX = 63
_ABSENT = object()


class Entry(Protocol):
    """What the readers need of a table entry (:class:`rocetune.platforms.sonic.tables.Entry`).

    A protocol, so that this module does not import :mod:`.tables` (which imports it).
    """

    @property
    def table(self) -> str:
        """The table name."""
        ...

    @property
    def key(self) -> str:
        """The entry key (``Ethernet0|3``)."""
        ...

    @property
    def item(self) -> str:
        """``TABLE|key``."""
        ...

    @property
    def fields(self) -> dict[str, object]:
        """Field name -> raw value."""
        ...

    @property
    def line(self) -> int | None:
        """The line of the entry."""
        ...

    @property
    def field_lines(self) -> dict[str, int | None]:
        """Field name -> its line (None or left out: the entry's line is the field's). The
        readers' fast paths look a field's line up here, as :meth:`line_of` does, without
        a method call per field read (~1,700 a 64-port switch)."""
        ...

    def line_of(self, name: str) -> int | None:
        """Line of a field, or of the entry when the field has none."""
        ...


@dataclass(frozen=True, slots=True, init=False)
class At(Generic[V_co]):
    """A value and the line it was read from."""

    value: V_co
    line: int | None

    def __init__(self, value: V_co, line: int | None) -> None:
        # The slots are set through their descriptors: a frozen dataclass's own __init__
        # goes through object.__setattr__ (~0.6 us an instance, ~40% more; a SONiC parse
        # makes one per field it reads, ~1,500 for a 64-port switch).
        _SET_VALUE(self, value)
        _SET_LINE(self, line)


_SET_VALUE = At.__dict__["value"].__set__
_SET_LINE = At.__dict__["line"].__set__


@dataclass
class _Group:
    item: str
    line: int | None
    count: int = 1
    ports: dict[str, None] = field(default_factory=dict)
    """The ports of every grouped entry (an ordered set)."""


@dataclass
class Problems(UnparsedCollector):
    """Collects the unparsed items of one CONFIG_DB file (:class:`UnparsedCollector`): items
    whole, the same item and reason once (whatever the line), ports and features from the
    item's table and key unless given (:mod:`.unparsed`)."""

    MAX_ITEM: ClassVar[int | None] = None

    _unknown: dict[tuple[str, str], _Group] = field(default_factory=dict)

    def key(self, text: str, reason: str, line: int | None) -> Hashable:
        """The same item and reason on another line is the same item."""
        return (text, reason)

    def scope(self, item: str) -> Scope:
        """Ports and features by the item's table, key and field."""
        return scope_of(item)

    def unknown_field(self, entry: Entry, name: str) -> None:
        """Record a field rocetune does not model; grouped per table and field name."""
        group = self._unknown.get((entry.table, name))
        if group is None:
            group = _Group(f"{entry.item} {name}", entry.line_of(name), 0)
            self._unknown[(entry.table, name)] = group
        group.count += 1
        group.ports.update(dict.fromkeys(ports_of_key(entry.table, entry.key) or ()))

    def result(self) -> tuple[Unparsed, ...]:
        """All items, ordered by line."""
        out = list(self.items)
        for (table, name), g in self._unknown.items():
            reason = f"{table} field {name!r} is not modelled by rocetune"
            if g.count > 1:
                reason += f" ({g.count} entries)"
            guessed, features = scope_of(g.item)
            ports = tuple(g.ports) or guessed
            out.append(
                Unparsed(
                    item=g.item,
                    reason=reason,
                    file=self.file,
                    line=g.line,
                    ports=ports,
                    features=features,
                )
            )
        return tuple(sorted(out, key=lambda u: (u.line or 0, u.item, u.reason)))


def as_text(value: object) -> str | None:
    """A scalar as CONFIG_DB text; None for objects, lists, null and booleans."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def _bad(entry: Entry, name: str, pr: Problems, why: str) -> At[None]:
    raw = entry.fields.get(name)
    shown = raw if isinstance(raw, str) else type(raw).__name__
    pr.add(f"{entry.item} {name}={shown}", why, entry.line_of(name))
    return At(None, entry.line_of(name))


def read_text(entry: Entry, name: str, pr: Problems) -> At[str | None] | None:
    """A string field."""
    raw = entry.fields.get(name, _ABSENT)
    if raw is _ABSENT:
        return None
    if type(raw) is str:  # nearly every field: no other checks (line_of, inlined)
        line = entry.field_lines.get(name)
        return At(raw.strip(), entry.line if line is None else line)
    text = as_text(raw)
    if text is None:
        return _bad(entry, name, pr, "expected a string")
    return At(text, entry.line_of(name))


def _text(entry: Entry, name: str, pr: Problems) -> tuple[str | None, int | None] | None:
    """:func:`read_text` as a (value, line) pair: what the typed readers convert (without
    an :class:`At` of the text they would drop at once)."""
    raw = entry.fields.get(name, _ABSENT)
    if raw is _ABSENT:
        return None
    if type(raw) is str:  # nearly every field: no other checks (line_of, inlined)
        line = entry.field_lines.get(name)
        return raw.strip(), entry.line if line is None else line
    text = read_text(entry, name, pr)
    return None if text is None else (text.value, text.line)


def read_int(
    entry: Entry, name: str, pr: Problems, lo: int | None = None, hi: int | None = None
) -> At[int | None] | None:
    """An integer field, optionally within [lo, hi]."""
    got = _text(entry, name, pr)
    if got is None or got[0] is None:
        return None if got is None else At(None, got[1])
    number = _int(got[0])
    if number is None:
        return _bad(entry, name, pr, "expected an integer")
    if (lo is not None and number < lo) or (hi is not None and number > hi):
        return _bad(entry, name, pr, f"out of range {lo}..{hi}")
    return At(number, got[1])


@lru_cache(maxsize=4096)
def _int(text: str) -> int | None:
    """An integer's text as a number, None when it is not one. Cached: a switch's ports
    (and a fleet's switches) write the same few speeds, MTUs and timers."""
    return int(text) if _INT.fullmatch(text) else None


def read_float(entry: Entry, name: str, pr: Problems) -> At[float | None] | None:
    """A decimal number field."""
    got = _text(entry, name, pr)
    if got is None or got[0] is None:
        return None if got is None else At(None, got[1])
    if not _FLOAT.fullmatch(got[0]):
        return _bad(entry, name, pr, "expected a number")
    return At(float(got[0]), got[1])


def read_choice(
    entry: Entry, name: str, pr: Problems, choices: Mapping[str, T]
) -> At[T | None] | None:
    """A keyword field (case-insensitive) mapped through ``choices``."""
    got = _text(entry, name, pr)
    if got is None or got[0] is None:
        return None if got is None else At(None, got[1])
    key = got[0].lower()
    if key not in choices:
        return _bad(entry, name, pr, "expected one of " + ", ".join(sorted(choices)))
    return At(choices[key], got[1])


def read_ref(entry: Entry, name: str, table: str, pr: Problems) -> At[str | None] | None:
    """A reference to an entry of ``table``: ``name`` or the old form ``[TABLE|name]``."""
    raw = entry.fields.get(name)
    if type(raw) is str:  # nearly every reference: a name, read without another call
        value = raw.strip()
        if value and value[0] != "[":
            line = entry.field_lines.get(name)  # line_of, inlined
            return At(value, entry.line if line is None else line)
    text = read_text(entry, name, pr)
    if text is None or text.value is None:
        return text
    value = text.value
    if not value.startswith("["):
        return text if value else _bad(entry, name, pr, f"empty {table} reference")
    m = _OLD_REF.fullmatch(value)
    if m is None:
        return _bad(entry, name, pr, f"expected a {table} name or [{table}|name]")
    if m.group(1) != table:
        return _bad(entry, name, pr, f"refers to table {m.group(1)}, expected {table}")
    value = m.group(2)
    if not value:
        return _bad(entry, name, pr, f"empty {table} reference")
    return At(value, text.line)


def read_index_list(
    entry: Entry, name: str, pr: Problems, hi: int = 7
) -> At[tuple[int, ...] | None] | None:
    """A comma-separated list of small integers such as ``pfc_enable: "3,4"``."""
    got = _text(entry, name, pr)
    if got is None or got[0] is None:
        return None if got is None else At(None, got[1])
    found = _index_set(got[0], hi)
    if found is None:
        return _bad(entry, name, pr, f"expected a comma-separated list of 0..{hi}")
    return At(found, got[1])


@lru_cache(maxsize=4096)
def _index_set(text: str, hi: int) -> tuple[int, ...] | None:
    """:func:`parse_indexes` sorted without repeats; one tuple per text, which every port
    that writes it holds (so a fleet's ports share their PFC priorities as they are read)."""
    found = parse_indexes(text, hi)
    return None if found is None else tuple(sorted(set(found)))


@lru_cache(maxsize=4096)
def parse_indexes(text: str, hi: int = _MAX_INDEX) -> tuple[int, ...] | None:
    """``"3"``, ``"3-4"``, ``"0,1"`` or ``""`` -> indexes; None when malformed.

    Cached: every port of a switch (and every switch of a fleet) writes the same few index
    texts."""
    out: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        lo_text, dash, hi_text = part.partition("-")
        if not _INT.fullmatch(lo_text) or (dash and not _INT.fullmatch(hi_text)):
            return None
        lo, top = int(lo_text), int(hi_text) if dash else int(lo_text)
        if lo < 0 or top < lo or top > hi:
            return None
        out.extend(range(lo, top + 1))
    return tuple(out)


@lru_cache(maxsize=4096)
def split_names(text: str) -> tuple[str, ...]:
    """Comma-separated port names (``"Ethernet0,Ethernet4"``); cached (keys repeat across a
    fleet's switches)."""
    return tuple(n.strip() for n in text.split(",") if n.strip())


@lru_cache(maxsize=8192)
def port_index_key(key: str) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """``"Ethernet0,Ethernet4|3-4"`` -> (ports, indexes); None when malformed. Cached."""
    ports_text, bar, index_text = key.rpartition("|")
    if not bar:
        return None
    ports = split_names(ports_text)
    indexes = parse_indexes(index_text)
    if not ports or not indexes:
        return None
    return ports, indexes
