"""Chassis (VOQ) keys: bind ``host|asic|port|index`` entries to the local ports.

On a VOQ chassis linecard, SONiC's QoS and buffer templates (sonic-buildimage
``files/build_templates/qos_config.j2`` / ``buffers_config.j2``) write QUEUE and
BUFFER_QUEUE entries for every *system port* of the chassis, keyed
``<hostname>|<asic>|<port>|<queue>`` (``dut-lc3|Asic0|Ethernet0|3``): the virtual output
queues this ASIC keeps for every port of every linecard. The template finds its own ports by
``DEVICE_METADATA|localhost`` ``hostname`` and ``asic_name``, compared case-insensitively
(``system_port_name.lower().startswith((hostname + '|' + asicname).lower())``).

rocetune does the same: entries whose host (and, when ``asic_name`` is set, ASIC) match are
re-keyed ``<port>|<index>`` and read like any other; entries of other hosts or ASICs are
remote system ports and are skipped (counted in the fact ``chassis.remote_keys``). When the
file does not say which host it is (a rendered fragment without DEVICE_METADATA), a field of
``<port>|<index>`` is bound only when every linecard/ASIC of the file writes it with the same
value (then it holds whichever of them this device is: the templates give every system port
the lossless queues' WRED profile); the other fields are reported in one Unparsed item per
table with their ports and features, so rules do not read "no scheduler" from keys that were
not bound. SYSTEM_PORT itself
(the chassis port inventory) holds no QoS and is not read.
"""

from __future__ import annotations

from itertools import repeat

from rocetune.platforms.sonic.tables import Entry, RawDb
from rocetune.platforms.sonic.unparsed import features_of
from rocetune.platforms.sonic.values import Problems, as_text

CHASSIS_TABLES = ("QUEUE", "BUFFER_QUEUE", "BUFFER_PG", "PORT_QOS_MAP")
_MIN_PARTS = 4


def bind_system_ports(db: RawDb, pr: Problems) -> int:
    """Re-key the local chassis entries of ``db`` in place; return how many remote keys
    were skipped."""
    meta = db.table("DEVICE_METADATA").get("localhost")
    host = as_text(meta.fields.get("hostname")) if meta is not None else None
    asic = as_text(meta.fields.get("asic_name")) if meta is not None else None
    remote = 0
    for table in CHASSIS_TABLES:
        entries = db.tables.get(table)
        if not entries or max(map(str.count, entries, repeat("|"))) < _MIN_PARTS - 1:
            continue
        plain = {k: e for k, e in entries.items() if k.count("|") < _MIN_PARTS - 1}
        chassis = [e for k, e in entries.items() if k.count("|") >= _MIN_PARTS - 1]
        if host:
            local, skipped = _local(chassis, host, asic, pr)
            remote += skipped
        else:
            local = _agreed(table, chassis, _local_names(db), pr)
        for key, entry in local.items():
            if key in plain:
                pr.add(entry.item, f"{key} is also written by another key", entry.line)
                plain[key].fields.update(entry.fields)
            else:
                plain[key] = entry
        db.tables[table] = plain
    return remote


def _split(entry: Entry) -> tuple[str, str, str]:
    parts = entry.key.split("|")
    return parts[0].lower(), parts[1].lower(), "|".join(parts[2:])


def _local(
    chassis: list[Entry], host: str, asic: str | None, pr: Problems
) -> tuple[dict[str, Entry], int]:
    """The entries of this host (and ASIC), re-keyed ``<port>|<index>``."""
    out: dict[str, Entry] = {}
    remote = 0
    for entry in chassis:
        h, a, key = _split(entry)
        if h != host.lower() or (asic and a != asic.lower()):
            remote += 1
            continue
        rekeyed = Entry(
            entry.table, key, dict(entry.fields), entry.line, dict(entry.field_lines), entry.key
        )
        if key in out:
            pr.add(rekeyed.item, f"{key} is also written by another key", entry.line)
            out[key].fields.update(rekeyed.fields)
        else:
            out[key] = rekeyed
    return out, remote


def _local_names(db: RawDb) -> set[str]:
    """Ports the file names outside chassis keys (PORT, PORT_QOS_MAP, plain BUFFER_PG keys):
    the templates write those for the local ports only."""
    names = set(db.table("PORT"))
    for key in db.table("PORT_QOS_MAP"):
        names.update(n.strip() for n in key.split(","))
    for key in db.table("BUFFER_PG"):
        if key.count("|") == 1:
            names.update(n.strip() for n in key.split("|")[0].split(","))
    return names


def _agreed(
    table: str, chassis: list[Entry], local_names: set[str], pr: Problems
) -> dict[str, Entry]:
    """Without the local host: keep, per ``<port>|<index>``, the fields that every
    linecard/ASIC having that port writes with the same value (true whichever of them this
    device is), for ports the file names as local or that every linecard/ASIC has; report
    the rest."""
    prefixes = {_split(e)[:2] for e in chassis}
    by_key: dict[str, list[Entry]] = {}
    having: dict[str, set[tuple[str, str]]] = {}
    for entry in chassis:
        host, asic, key = _split(entry)
        by_key.setdefault(key, []).append(entry)
        having.setdefault(key.split("|", 1)[0], set()).add((host, asic))
    out: dict[str, Entry] = {}
    unbound: dict[str, dict[str, None]] = {}
    first_line: dict[str, int | None] = {}
    for key, group in by_key.items():
        names = set().union(*(e.fields for e in group))
        port = key.split("|", 1)[0]
        owners = having[port]
        complete = {_split(e)[:2] for e in group} == owners and (
            port in local_names or owners == prefixes
        )
        agreed = {
            n: group[0].fields[n]
            for n in names
            if complete and all(n in e.fields and e.fields[n] == group[0].fields[n] for e in group)
        }
        if agreed:
            first = group[0]
            lines = {n: first.field_lines.get(n) for n in agreed}
            out[key] = Entry(first.table, key, agreed, first.line, lines, first.key)
        for name in sorted(names - set(agreed)):
            unbound.setdefault(name, {})[port] = None
            first_line.setdefault(name, group[0].line)
    for name, ports in unbound.items():
        pr.add(
            f"{table} {name}",
            f"chassis keys <host>|<asic>|<port>|<index> of {len(prefixes)} linecards/ASICs "
            "and the file does not say which host it is (DEVICE_METADATA hostname/asic_name): "
            f"{name} differs between them on {len(ports)} ports and is not bound",
            first_line[name],
            ports=tuple(ports),
            features=features_of(table, name) or features_of(table, None),
        )
    return out
