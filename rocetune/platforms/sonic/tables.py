"""Step 1 of the SONiC parser: a CONFIG_DB JSON document -> raw tables with line numbers.

Accepted shapes (all may be mixed with non-QoS content, which is ignored):

* nested, as printed by ``show runningconfiguration all`` and ``sonic-cfggen --print-data``:
  ``{"TABLE": {"key": {"field": "value"}}}``; the single-ASIC output also carries a
  ``"bgpraw"`` string, which is not a table and is skipped;
* flat, as dumped from redis: ``{"TABLE|key": {"field": "value"}}``;
* a list of table patches (configlets): ``[{"TABLE": {...}}, {"TABLE": {...}}]``; a later
  patch updates the fields of an earlier one, as applying them in order would;
* the multi-ASIC output ``{"localhost": {...}, "asic0": {...}, ...}``: one set of tables per
  namespace.

Duplicate JSON keys are reported as unparsed items (the last value wins, as it does for
redis and sonic-cfggen), but only inside tables that matter for QoS. Tables that look
QoS-related (:func:`qos_relevant`) but are not modelled are reported once per table;
everything else is ignored. :data:`IGNORED_TABLES` lists the QoS-looking tables that are
skipped on purpose, each with its reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rocetune.platforms.common.jsonpos import JsonDoc, JsonNode, JsonPath
from rocetune.platforms.sonic.values import Problems

MODELLED: frozenset[str] = frozenset(
    {
        "PORT",
        "PORT_QOS_MAP",
        "DSCP_TO_TC_MAP",
        "DOT1P_TO_TC_MAP",
        "TC_TO_PRIORITY_GROUP_MAP",
        "TC_TO_QUEUE_MAP",
        "MAP_PFC_PRIORITY_TO_QUEUE",
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
        "TC_TO_DSCP_MAP",
        "TUNNEL",
        "QUEUE",
        "SCHEDULER",
        "WRED_PROFILE",
        "BUFFER_POOL",
        "BUFFER_PROFILE",
        "BUFFER_PG",
        "BUFFER_QUEUE",
        "CABLE_LENGTH",
        "PFC_WD",
        "DEVICE_METADATA",
    }
)
"""Tables turned into model fields."""

FACT_TABLES: frozenset[str] = frozenset(
    {"DEFAULT_LOSSLESS_BUFFER_PARAMETER", "LOSSLESS_TRAFFIC_PATTERN", "VERSIONS"}
)
"""Tables kept as free-form device facts (Device.facts)."""

IGNORED_TABLES: frozenset[str] = frozenset(
    {
        # Port-level pool attachments (dynamic/Mellanox buffer model). They set per-port
        # limits in the shared pools, not per-PG headroom or per-queue thresholds, and
        # appear in every such config: reporting them would only teach users to mute RT001.
        "BUFFER_PORT_INGRESS_PROFILE_LIST",
        "BUFFER_PORT_EGRESS_PROFILE_LIST",
        # Platform capability data, not configuration.
        "QOS_CAPABILITY_TABLE",
        # Counter polling, not forwarding behaviour.
        "FLEX_COUNTER_TABLE",
        # Names that contain a QoS word but are not QoS.
        "MUX_CABLE",
        "VXLAN_TUNNEL_MAP",
    }
)

_QOS_WORDS = (
    "QOS",
    "PFC",
    "BUFFER",
    "WRED",
    "ECN",
    "SCHEDULER",
    "DSCP",
    "DOT1P",
    "TC_TO",
    "CABLE",
    "QUEUE",
    "POLICER",
    "MAP",
    "PAUSE",
    "LOSSLESS",
    "HEADROOM",
)
_NAMESPACE = re.compile(r"asic\d+")
_DUPLICATE = "duplicate key {key!r} (the last value is used by redis/sonic-cfggen)"


def qos_relevant(table: str) -> bool:
    """True for tables whose content can change how lossless traffic is treated."""
    if table in IGNORED_TABLES:
        return False
    if table in MODELLED or table in FACT_TABLES:
        return True
    upper = table.upper()
    return any(word in upper for word in _QOS_WORDS)


@dataclass(slots=True)
class Entry:
    """One ``TABLE|key`` entry: its fields and where each was written."""

    table: str
    key: str
    fields: dict[str, object]
    line: int | None
    field_lines: dict[str, int | None] = field(default_factory=dict)
    raw_key: str | None = None
    """The key as written when it was re-keyed (chassis ``host|asic|port|index`` keys)."""

    @property
    def item(self) -> str:
        """How the entry is written in redis (``TABLE|key``)."""
        return f"{self.table}|{self.raw_key or self.key}"

    def line_of(self, name: str) -> int | None:
        """Line of a field, or of the entry when the field has none."""
        line = self.field_lines.get(name)
        return line if line is not None else self.line


@dataclass
class RawDb:
    """The tables of one CONFIG_DB (one namespace)."""

    namespace: str | None = None
    tables: dict[str, dict[str, Entry]] = field(default_factory=dict)
    table_lines: dict[str, int | None] = field(default_factory=dict)
    patch: bool = False
    """True for a configlet (list of table patches): its entries update a running config."""

    def has(self, table: str) -> bool:
        """True when the table is in the file (even when it is empty)."""
        return table in self.table_lines

    def table(self, table: str) -> dict[str, Entry]:
        """Entries of a table by key (empty when absent)."""
        return self.tables.get(table, {})


class _Reader:
    def __init__(self, doc: JsonDoc, pr: Problems) -> None:
        self.doc = doc
        self.pr = pr
        self.last_line = dict(doc.duplicates)
        self.patch = False

    def line(self, path: JsonPath) -> int | None:
        line = self.last_line.get(path)
        return line if line is not None else self.doc.line(*path)

    def tables(
        self, db: RawDb, obj: dict[str, object], base: JsonPath, node: JsonNode | None, patch: bool
    ) -> None:
        self.patch = patch
        fast = node is not None and not self.last_line
        for top, value in obj.items():
            path = (*base, top)
            kid = node.kids.get(top) if node is not None else None
            if "|" in top:
                table, key = top.split("|", 1)
                self.entry(db, table, key, value, path, node=kid)
            elif isinstance(value, dict):
                if value and not any(isinstance(v, dict) for v in value.values()):
                    if qos_relevant(top):
                        self.pr.add(top, "expected {key: {field: value}} entries", self.line(path))
                    continue
                line = node.lines.get(top) if fast and node is not None else self.line(path)
                db.table_lines.setdefault(top, line)
                entries = db.tables.setdefault(top, {})
                if fast and kid is not None:
                    self._entries(db, top, value, path=path, kid=kid, entries=entries)
                    continue
                for key, fields in value.items():
                    entry = kid.kids.get(key) if kid is not None else None
                    self.entry(db, top, key, fields, (*path, key), node=entry, parent=kid)
            elif qos_relevant(top):
                self.pr.add(top, "expected an object of entries", self.line(path))

    def _entries(
        self,
        db: RawDb,
        table: str,
        value: dict[str, object],
        *,
        path: JsonPath,
        kid: JsonNode,
        entries: dict[str, Entry],
    ) -> None:
        """The entries of a nested table whose lines the fast key scan placed: an entry of
        fields with a line for each, written once, is made here (what :meth:`entry` makes
        of it, without a call and a path per entry: most of a CONFIG_DB); any other goes
        to :meth:`entry`."""
        lines_of, nodes = kid.lines, kid.kids
        for key, fields in value.items():
            node = nodes.get(key)
            if node is not None and type(fields) is dict and key not in entries:
                line = lines_of.get(key)
                field_lines = node.lines
                if line is not None and len(field_lines) == len(fields):
                    # the document is read once (read_document's caller lets it go): its
                    # dicts become the entry's, not copies (peak memory of a SONiC parse)
                    entries[key] = Entry(table, key, fields, line, field_lines)  # type: ignore[arg-type]
                    continue
            self.entry(db, table, key, fields, (*path, key), node=node, parent=kid)

    def entry(
        self,
        db: RawDb,
        table: str,
        key: str,
        value: object,
        path: JsonPath,
        *,
        node: JsonNode | None,
        parent: JsonNode | None = None,
    ) -> None:
        """``node``: the node of the entry's fields; ``parent``: the node holding the
        entry's key (None: look its line up by path)."""
        fast = not self.last_line and node is not None
        line = None
        if fast and parent is not None:
            line = parent.lines.get(path[-1])
        if line is None:
            line = self.line(path)
        if not isinstance(value, dict):
            if qos_relevant(table):
                self.pr.add(f"{table}|{key}", "expected an object of fields", line)
            return
        db.table_lines.setdefault(table, line)
        entries = db.tables.setdefault(table, {})
        if fast and node is not None and len(node.lines) == len(value):
            lines: dict[str, int | None] = dict(node.lines)  # type: ignore[arg-type]
        else:
            lines = {name: self.line((*path, name)) for name in value}
        old = entries.get(key)
        if old is None:
            entries[key] = Entry(table, key, dict(value), line, lines)
            return
        if not self.patch and qos_relevant(table):
            self.pr.add(f"{table}|{key}", "entry written twice (nested and flat)", line)
        old.fields.update(value)
        old.field_lines.update(lines)


def _is_namespaced(value: dict[str, object]) -> bool:
    return (
        "localhost" in value
        and all(k == "localhost" or _NAMESPACE.fullmatch(k) for k in value)
        and all(isinstance(v, dict) for v in value.values())
    )


def read_document(doc: JsonDoc, pr: Problems) -> list[RawDb]:
    """Split a parsed document into CONFIG_DB tables (one RawDb per namespace)."""
    reader = _Reader(doc, pr)
    value = doc.value
    namespaced = isinstance(value, dict) and _is_namespaced(value)
    _report_duplicates(doc, pr, namespaced, isinstance(value, list))
    if isinstance(value, list):
        db = RawDb(patch=True)
        for i, elem in enumerate(value):
            if isinstance(elem, dict):
                reader.tables(db, elem, (i,), doc.node(i), patch=True)
            else:
                pr.add(f"[{i}]", "patch list element is not a JSON object", reader.line((i,)))
        return [db]
    if isinstance(value, dict) and namespaced:
        out = []
        for ns, tables in value.items():
            db = RawDb(namespace=ns)
            reader.tables(db, tables, (ns,), doc.node(ns), patch=False)
            out.append(db)
        return out
    if isinstance(value, dict):
        db = RawDb()
        reader.tables(db, value, (), doc.root, patch=False)
        return [db]
    pr.add("(document)", "expected a JSON object or a list of objects", 1)
    return [RawDb()]


def _describe(path: JsonPath) -> tuple[str, str]:
    """(table, readable item) of a JSON path below the namespace/patch level."""
    parts = [str(p) for p in path]
    first = parts[0]
    if "|" in first:
        table = first.split("|", 1)[0]
        return table, " ".join([first, *parts[1:]])
    if len(parts) == 1:
        return first, first
    return first, " ".join([f"{first}|{parts[1]}", *parts[2:]])


def _report_duplicates(doc: JsonDoc, pr: Problems, namespaced: bool, patches: bool) -> None:
    for path, line in doc.duplicates:
        inner = path[1:] if (namespaced or patches) else path
        if not inner:
            pr.add(str(path[0]), _DUPLICATE.format(key=path[0]), line)
            continue
        table, item = _describe(inner)
        if qos_relevant(table):
            pr.add(item, _DUPLICATE.format(key=inner[-1]), line)


def report_unmodelled(db: RawDb, pr: Problems) -> None:
    """One unparsed item per QoS-looking table that rocetune does not model."""
    for table, line in db.table_lines.items():
        if table in MODELLED or table in FACT_TABLES or not qos_relevant(table):
            continue
        count = len(db.table(table))
        pr.add(table, f"table not modelled by rocetune ({count} entries)", line)
