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
file does not say which host it is (a rendered fragment without DEVICE_METADATA), no chassis
key is bound and one Unparsed item per table says so, with the features the table feeds, so
rules do not read "no queue configured" from keys that were not bound. SYSTEM_PORT itself
(the chassis port inventory) holds no QoS and is not read.
"""

from __future__ import annotations

from rocetune.platforms.sonic.tables import Entry, RawDb
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
        if not entries or not any(k.count("|") >= _MIN_PARTS - 1 for k in entries):
            continue
        unbound = 0
        first_line: int | None = None
        out: dict[str, Entry] = {}
        for key, entry in entries.items():
            parts = key.split("|")
            if len(parts) < _MIN_PARTS:
                out[key] = entry
                continue
            if not host:
                unbound += 1
                first_line = first_line if first_line is not None else entry.line
                continue
            if parts[0].lower() != host.lower() or (asic and parts[1].lower() != asic.lower()):
                remote += 1
                continue
            local = "|".join(parts[2:])
            entry.raw_key = key
            entry.key = local
            if local in out:
                pr.add(entry.item, f"{local} is also written by another key", entry.line)
                out[local].fields.update(entry.fields)
                continue
            out[local] = entry
        db.tables[table] = out
        if unbound:
            pr.add(
                table,
                f"{unbound} chassis keys <host>|<asic>|<port>|<index> not bound to ports: "
                "the file does not say which host it is (DEVICE_METADATA hostname/asic_name)",
                first_line,
            )
    return remote
