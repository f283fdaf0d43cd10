"""Map the outputs of one host snapshot onto its NIC ports.

A NIC port is one netdev (``eth2``) together with its RDMA device (``mlx5_0``, port 1) and
its PCI function (``0000:17:00.0``). Outputs are keyed three ways and joined like this:

1. per-netdev outputs (``mlnx_qos -i``, ``ethtool``, sysfs ``/sys/class/net/<if>``) name the
   NIC ports of the snapshot (the inventory's ``nics:``);
2. RDMA-device outputs (``cma_roce_tos``, ``cma_roce_mode``, ``show_gids``, traffic class)
   join through ``ibdev2netdev`` (or the netdev column of ``show_gids``);
3. PCI outputs (``mlxconfig``) join through ``bus-info`` of ``ethtool -i`` (or the PCI
   address of ``ibdev2netdev -v``); the ``_P<n>`` parameters of port n = PCI function + 1.

Saved files and transcripts often lack the join: when the snapshot has exactly one netdev
without an RDMA device and exactly one RDMA device without a netdev, they are paired (noted
in the device facts). Outputs that name no NIC at all go to the only NIC port; with no NIC
port they make one named after the RDMA device, the PCI address or ``unnamed``; with several
they are reported as Unparsed. RDMA devices of other netdevs (``show_gids`` lists every
device) are left out when the snapshot names its NIC ports. A host-wide ``show_gids`` that
lists no GID for a NIC's RDMA device means the port has no RoCE v2 GID (``()``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rocetune.model import Unparsed
from rocetune.platforms.linux_host.mlxconfig import Section
from rocetune.platforms.linux_host.names import key_of, pci_function
from rocetune.platforms.linux_host.outputs import RANK_MAP, Outputs, Part
from rocetune.platforms.linux_host.rdma import Gid, GidTable, v2_ipv4_indices

UNNAMED = "unnamed"
Ref = tuple[str, "int | None"]


@dataclass
class Nic:
    """Everything known about one NIC port before it becomes a NicPort."""

    key: str
    name: str
    rank: int
    parts: list[Part] = field(default_factory=list)
    rdma: str | None = None
    rdma_ref: Ref | None = None
    port: int = 1
    pci: str | None = None
    values: dict[str, object] = field(default_factory=dict)
    refs: dict[str, Ref] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)


@dataclass
class Assembled:
    """NIC ports by key, and what could not be attached to any."""

    nics: dict[str, Nic] = field(default_factory=dict)
    unparsed: list[Unparsed] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)


def assemble(out: Outputs) -> Assembled:
    """Join every output of ``out`` to its NIC port."""
    result = Assembled()
    for key, name, rank in out.nics:
        _nic(result, key, name, rank)
    named = bool(result.nics)
    for part in out.parts:
        if part.scope == "nic" and part.key is not None:
            _nic(result, part.key, part.name or part.key, part.rank).parts.append(part)
    orphans = [p for p in out.parts if p.key is None]
    _join_rdma(result, out, named)
    _join_pci(result, out, orphans)
    _orphans(result, orphans)
    for nic in result.nics.values():
        _merge(nic)
    _gids(result, out)
    return result


def _nic(result: Assembled, key: str, name: str, rank: int) -> Nic:
    nic = result.nics.get(key)
    if nic is None:
        nic = result.nics[key] = Nic(key, name, rank)
    elif rank > nic.rank:
        nic.name, nic.rank = name, rank
    return nic


def _rdma_map(out: Outputs) -> dict[str, tuple[str, str, int, Ref]]:
    """RDMA key -> (RDMA name, netdev, port, where): ibdev2netdev first, then show_gids."""
    found: dict[str, tuple[str, str, int, Ref]] = {}
    for mapping, file in out.mappings:
        ref = (file, mapping.line)
        found.setdefault(key_of(mapping.rdma), (mapping.rdma, mapping.netdev, mapping.port, ref))
    for table, file, _, _ in out.gids:
        for gid in table.entries:
            if gid.rdma is not None and gid.netdev is not None:
                value = (gid.rdma, gid.netdev, gid.port, (file, gid.line))
                found.setdefault(key_of(gid.rdma), value)
    return found


def _join_rdma(result: Assembled, out: Outputs, named: bool) -> None:
    mapping = _rdma_map(out)
    for _key, (rname, netdev, port, ref) in sorted(mapping.items()):
        nic = result.nics.get(key_of(netdev))
        if nic is not None and nic.rdma is None:
            nic.rdma, nic.port, nic.rdma_ref = rname, port, ref
            if nic.rank < RANK_MAP:
                nic.name, nic.rank = netdev, RANK_MAP
    wanted = {p.key: p.name or p.key for p in out.parts if p.scope == "rdma" and p.key}
    for table, _, _, _ in out.gids:
        wanted.update({key_of(g.rdma): g.rdma for g in table.entries if g.rdma})
    have = {key_of(n.rdma) for n in result.nics.values() if n.rdma}
    loose = sorted(k for k in wanted if k not in have)
    for rkey in list(loose):
        if rkey in mapping and not named:
            rname, netdev, port, ref = mapping[rkey]
            nic = _nic(result, key_of(netdev), netdev, RANK_MAP)
            nic.rdma, nic.port, nic.rdma_ref = rname, port, ref
            loose.remove(rkey)
    _pair_or_name(result, [(k, wanted[k]) for k in loose], named)
    for nic in result.nics.values():
        if nic.rdma is not None:
            nic.parts.extend(
                p for p in out.parts if p.scope == "rdma" and p.key == key_of(nic.rdma)
            )


def _pair_or_name(result: Assembled, loose: list[tuple[str, str]], named: bool) -> None:
    lacking = [n for n in result.nics.values() if n.rdma is None]
    if len(loose) == 1 and len(lacking) == 1:
        nic = lacking[0]
        nic.rdma = loose[0][1]
        nic.facts["rdma_device"] = (
            "paired: the only NIC port and the only RDMA device of the snapshot"
        )
        return
    for rkey, rname in loose:
        if named:
            result.facts[f"rdma.{rname}"] = "no netdev known for this RDMA device; not used"
        else:
            nic = _nic(result, rkey, rname, RANK_MAP)
            nic.rdma = rname


def _join_pci(result: Assembled, out: Outputs, orphans: list[Part]) -> None:
    for key, (pci, file, line) in out.pcis.items():
        if key in result.nics:
            result.nics[key].pci = pci
            result.nics[key].refs.setdefault("firmware_port", (file, line))
    by_pci_rdma = {m.pci: key_of(m.rdma) for m, _ in out.mappings if m.pci}
    for section, file, order in out.sections:
        targets = [n for n in result.nics.values() if section.pci and n.pci == section.pci]
        if not targets and section.pci in by_pci_rdma:
            rkey = by_pci_rdma[section.pci]
            targets = [n for n in result.nics.values() if n.rdma and key_of(n.rdma) == rkey]
        part = _section_part(section, file, order)
        if targets:
            for nic in targets:
                nic.pci = nic.pci or section.pci
                nic.parts.append(part)
        else:
            orphans.append(part)


def _section_part(section: Section, file: str, order: int) -> Part:
    from rocetune.platforms.linux_host.base import Found

    found = Found()
    found.put("firmware", dict(section.params), section.line)
    for name, value in section.next_boot.items():
        found.facts[f"mlxconfig_next_boot.{name}"] = value
    if section.device_type:
        found.facts["device_type"] = section.device_type
    return Part("pci", section.pci, section.pci, 0, found, file, order, "mlxconfig")


def _orphans(result: Assembled, orphans: list[Part]) -> None:
    if not orphans:
        return
    if not result.nics:
        first = orphans[0]
        name = first.name if first.scope == "pci" and first.name else UNNAMED
        _nic(result, key_of(name), name, 0)
    if len(result.nics) == 1:
        nic = next(iter(result.nics.values()))
        nic.parts.extend(orphans)
        if nic.pci is None:
            nic.pci = next((p.name for p in orphans if p.scope == "pci" and p.name), None)
        return
    for part in orphans:
        reason = "this output does not say which NIC port it belongs to (several in the snapshot)"
        result.unparsed.append(Unparsed(item=f"{part.kind} output", reason=reason, file=part.file))


def _merge(nic: Nic) -> None:
    for part in sorted(nic.parts, key=lambda p: p.order):
        for name, value in part.found.values.items():
            nic.values[name] = value
            nic.refs[name] = (part.file, part.found.lines.get(name))
        nic.facts.update(part.found.facts)
    if nic.rdma is not None:
        nic.values["rdma_device"] = nic.rdma
        if nic.rdma_ref is not None:
            nic.refs["rdma_device"] = nic.rdma_ref
    if "firmware" in nic.values and nic.pci is not None:
        function = pci_function(nic.pci)
        if function is not None:
            nic.values["firmware_port"] = function + 1


def _gids(result: Assembled, out: Outputs) -> None:
    """GID indices per NIC: ``ibv_devinfo`` first, then ``show_gids`` (the later wins)."""
    tables = sorted(out.gids, key=lambda t: (t[0].kind == "show_gids", t[2]))
    for nic in result.nics.values():
        for table, file, _, first in tables:
            entries = _entries_for(table, nic, len(result.nics))
            if entries is None:
                continue
            conflict = any(table.facts.get((g.rdma, "gid_conflict")) for g in entries)
            nic.values["gid_index_v2_ipv4"] = None if conflict else v2_ipv4_indices(entries)
            nic.refs["gid_index_v2_ipv4"] = (file, entries[0].line if entries else first)
        for table, _, _, _ in tables:
            mtu = table.facts.get((nic.rdma, "active_mtu"))
            if mtu is not None:
                nic.facts["active_mtu"] = mtu


def _entries_for(table: GidTable, nic: Nic, count: int) -> list[Gid] | None:
    """The GID entries of ``nic`` in ``table``; [] = known to have none; None = not listed."""
    rkey = None if nic.rdma is None else key_of(nic.rdma)
    mine = [g for g in table.entries if g.rdma is not None and key_of(g.rdma) == rkey]
    on_port = [g for g in mine if g.port == nic.port]
    if on_port:
        return on_port
    unnamed = [g for g in table.entries if g.rdma is None]
    if unnamed and count == 1:
        return unnamed
    if table.all_devices and (not table.entries or (rkey is not None and not mine)):
        return []
    return None
