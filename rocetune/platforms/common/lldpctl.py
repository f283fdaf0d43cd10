"""Read ``lldpctl -f json`` (lldpd) output into vendor-neutral LLDP neighbours.

SONiC (lldpd in the ``lldp`` container), Cumulus Linux and Linux hosts all run lldpd, so one
reader serves every platform. Shape facts (lldpd ``src/client/json_writer.c`` and the JSON
cases of lldpd's integration tests; public samples from SONiC and Linux hosts):

- The document is ``{"lldp": {"interface": ...}}``; with no neighbour at all lldpd prints
  ``{"lldp": {}}`` (nothing under ``lldp``).
- lldpd's writer collapses a one-element list into the element and turns an object with a
  string ``name`` into ``{<name>: {rest}}``. So ``interface`` is ``{"swp1": {entry}}`` when
  there is one neighbour and a list ``[{"swp1": {entry}}, {"swp2": {entry}}]`` when there
  are several (one list item per neighbour: a port with two neighbours appears twice). Some
  writers keep ``name`` inside the entry (``[{"name": "swp1", "chassis": ...}]``); that
  form is read too.
- An entry has ``via``, ``rid``, ``age``, ``chassis`` and ``port``. ``chassis`` is
  ``{<system name>: {"id": {"type": "mac", "value": ...}, "descr": ..., ...}}`` when the
  neighbour sends a system name, else the bare ``{"id": ..., "descr": ...}``; without a
  system name the chassis ID value stands for the neighbour's name.
- ``port`` is ``{"id": {"type": "ifname", "value": "swp1"}, "descr": "swp1", ...}``. Port ID
  types ``ifname``, ``local`` and ``ifalias`` carry a port name (Cumulus advertises
  ``ifname``; SONiC's lldpmgrd advertises ``local`` with the ``PORT`` alias); for other
  types (``mac`` is lldpd's default on Linux hosts, with the interface name as
  description) the description is the port name when there is one.
- The ``json0`` format's one-element lists (``"name": [{"value": "x"}]``) are unwrapped
  too, so a ``-f json0`` file also reads.

:func:`read_lldpctl_json` raises :class:`~rocetune.errors.ParseError` with file and line on
invalid JSON; any other unexpected shape skips that entry (or the document) and is returned in
:attr:`LldpRead.skipped` as :class:`~rocetune.model.Unparsed` items for the caller to report.
:func:`with_lldp` (the platforms' hook) turns invalid JSON into one Unparsed item instead.
Names with control characters or longer than 128 characters are not names: such an entry is
skipped (a port description of that kind is dropped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rocetune.errors import ParseError
from rocetune.model import LldpNeighbor, Unparsed
from rocetune.platforms.base import ParseResult
from rocetune.platforms.common.jsonpos import JsonDoc, JsonPath, parse_json
from rocetune.platforms.common.unparsed import account
from rocetune.snapshot import Command, Snapshot

_NAMED_PORT_IDS = frozenset({"ifname", "local", "ifalias"})
_CHASSIS_ATTRS = frozenset(
    {"id", "descr", "mgmt-ip", "mgmt-iface", "capability", "ttl", "name", "lldp-med"}
)
_BAD = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_MAX_NAME = 128


@dataclass(frozen=True)
class LldpRead:
    """What an ``lldpctl -f json`` output holds: neighbours, their lines, what was skipped."""

    neighbors: tuple[LldpNeighbor, ...]
    lines: tuple[int | None, ...]
    """Line of each neighbour's entry (same order as ``neighbors``)."""
    skipped: tuple[Unparsed, ...] = ()


def parse_lldpctl_json(text: str, file: str) -> tuple[LldpNeighbor, ...]:
    """The neighbours of an ``lldpctl -f json`` output; ParseError on invalid JSON.

    Entries of an unexpected shape are left out; use :func:`read_lldpctl_json` to learn
    which.
    """
    return read_lldpctl_json(text, file).neighbors


def read_lldpctl_json(text: str, file: str) -> LldpRead:
    """Read an ``lldpctl -f json`` output; ParseError (file, line) on invalid JSON."""
    walk = _Walk(parse_json(text, file), file)
    walk.document()
    return LldpRead(
        neighbors=tuple(n for n, _ in walk.found),
        lines=tuple(line for _, line in walk.found),
        skipped=tuple(walk.skipped),
    )


def with_lldp(result: ParseResult, snapshot: Snapshot, command: Command) -> ParseResult:
    """``result`` with ``Device.lldp`` read from ``command``'s output in ``snapshot``.

    No output, or an empty one (lldpd not running): ``lldp`` stays None (not known). An
    output that is not JSON (an error message, a cut capture) also leaves it None and adds
    one Unparsed item with the line, so an optional output never costs the whole device (the
    Linux host platform does the same). Skipped entries are appended to ``Device.unparsed``.
    Provenance: ``lldp`` -> the file, ``lldp.<i>`` -> the line of neighbour ``i``,
    ``unparsed.<i>`` for the appended items.
    """
    source = snapshot.get(command)
    if source is None or not source.text.strip():
        return result
    device = result.device
    prov = result.provenance
    try:
        read = read_lldpctl_json(source.text, source.path)
    except ParseError as exc:
        reason = f"not valid JSON ({exc.message}); LLDP neighbours unknown"
        item = Unparsed(item=command.command, reason=reason, file=source.path, line=exc.line)
        account(prov, (item,), first=len(device.unparsed))
        update: dict[str, object] = {"unparsed": (*device.unparsed, item)}
        return ParseResult(device.model_copy(update=update), prov)
    prov.add("lldp", source.path, 1)
    for i, line in enumerate(read.lines):
        prov.add(f"lldp.{i}", source.path, line)
    account(prov, read.skipped, first=len(device.unparsed))
    update = {"lldp": read.neighbors, "unparsed": (*device.unparsed, *read.skipped)}
    return ParseResult(device.model_copy(update=update), prov)


def _clean(value: object) -> str | None:
    """A usable name: a string, stripped, non-empty, short, without control characters."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > _MAX_NAME or _BAD.search(text):
        return None
    return text


def _one(node: Any) -> Any:
    """Unwrap one-element lists (the json0 form)."""
    while isinstance(node, list) and len(node) == 1:
        node = node[0]
    return node


def _scalar(node: Any) -> Any:
    """The value of ``"x"``, ``{"value": "x", ...}`` or ``[{"value": "x"}]``."""
    node = _one(node)
    while isinstance(node, dict) and "value" in node:
        node = _one(node["value"])
    return node


@dataclass
class _Walk:
    doc: JsonDoc
    file: str
    found: list[tuple[LldpNeighbor, int | None]] = field(default_factory=list)
    skipped: list[Unparsed] = field(default_factory=list)

    def skip(self, item: str, reason: str, path: JsonPath) -> None:
        line = self.doc.line(*path)
        self.skipped.append(Unparsed(item=item[:200], reason=reason, file=self.file, line=line))

    def document(self) -> None:
        for dup, line in self.doc.duplicates:
            where = ".".join(str(p) for p in dup)
            reason = "duplicate key in the LLDP output; the last one is used"
            self.skipped.append(Unparsed(item=where, reason=reason, file=self.file, line=line))
        root = self.doc.value
        if not isinstance(root, dict) or "lldp" not in root:
            self.skip("(document)", 'expected {"lldp": {"interface": ...}} (lldpctl -f json)', ())
            return
        top = root["lldp"]
        if isinstance(top, list):
            for i, node in enumerate(top):
                self.lldp(node, ("lldp", i))
        else:
            self.lldp(top, ("lldp",))

    def lldp(self, node: Any, path: JsonPath) -> None:
        if not isinstance(node, dict):
            self.skip("lldp", "expected an object", path)
            return
        interfaces = node.get("interface")
        if interfaces is None:
            return
        where = (*path, "interface")
        if isinstance(interfaces, list):
            for i, item in enumerate(interfaces):
                self.interface(item, (*where, i))
        else:
            self.interface(interfaces, where)

    def interface(self, item: Any, path: JsonPath) -> None:
        if not isinstance(item, dict):
            self.skip("lldp.interface", "expected an object keyed by interface name", path)
            return
        if ("chassis" in item or "port" in item) and "name" in item:
            self.entry(_scalar(item["name"]), item, path)
            return
        for local, node in item.items():
            self.entry(local, node, (*path, local))

    def entry(self, local: object, node: Any, path: JsonPath) -> None:
        label = f"lldp interface {local}"
        name = _clean(local)
        if name is None:
            self.skip(label, "not an interface name", path)
            return
        node = _one(node)
        chassis = _one(node.get("chassis")) if isinstance(node, dict) else None
        port = _one(node.get("port")) if isinstance(node, dict) else None
        if not isinstance(chassis, dict) or not isinstance(port, dict):
            self.skip(label, "expected an entry with chassis and port objects", path)
            return
        remote = _chassis_name(chassis)
        if remote is None:
            self.skip(label, "the neighbour has neither a system name nor a chassis ID", path)
            return
        remote_port, descr = _port_name(port)
        if remote_port is None:
            self.skip(label, "the neighbour port has neither an ID nor a description", path)
            return
        neighbor = LldpNeighbor(
            local_port=name, remote_name=remote, remote_port=remote_port, remote_port_descr=descr
        )
        self.found.append((neighbor, self.doc.line(*path)))


def _chassis_name(chassis: dict[str, Any]) -> str | None:
    if "name" in chassis:
        return _clean(_scalar(chassis["name"]))
    if len(chassis) == 1:
        key, value = next(iter(chassis.items()))
        if isinstance(value, dict) and key not in _CHASSIS_ATTRS:
            return _clean(key)
    return _clean(_scalar(chassis.get("id")))


def _port_name(port: dict[str, Any]) -> tuple[str | None, str | None]:
    raw_id = _one(port.get("id"))
    id_type = _scalar(raw_id.get("type")) if isinstance(raw_id, dict) else None
    id_type = id_type if isinstance(id_type, str) else None
    port_id = _clean(_scalar(raw_id))
    descr = _clean(_scalar(port.get("descr")))
    if port_id is not None and (id_type is None or id_type in _NAMED_PORT_IDS or descr is None):
        return port_id, descr
    return descr, descr
