"""Follow-up commands: the RDMA device and PCI function of every collected netdev.

``ibdev2netdev`` names the RDMA device (and port) of each netdev, ``ethtool -i`` its PCI
address (``bus-info``). Only the netdevs the snapshot already holds outputs for (the
inventory NICs) get follow-ups; other RDMA devices of the host are not collected. Names read
from device outputs are validated like inventory names: one that does not match the strict
patterns of :mod:`.names` never becomes a command (it is skipped).

During collection the snapshot holds the first round of outputs only (host-wide commands
and the per-netdev ones, no ``meta.json``). For such a snapshot :func:`followup_commands`
reads just what decides the follow-ups: which netdevs have outputs (their file names), the
``ibdev2netdev`` mappings and the ``ethtool -i`` bus-info, with the parser's own splitting
and line parsers, and joins them the way :func:`.assemble.assemble` does. Anything else
(metadata, a transcript or any file holding more than one command's output, RDMA or PCI
outputs, saved outputs that name no netdev, several follow-up netdevs whose display order
only the full parse knows) takes the full parse, so the result is the same either way
(tests compare both on every host snapshot and capture of the repository).
"""

from __future__ import annotations

from collections.abc import Iterable

from rocetune.platforms.linux_host import commands as c
from rocetune.platforms.linux_host.base import Notes
from rocetune.platforms.linux_host.ethtool import parse_driver
from rocetune.platforms.linux_host.names import key_of
from rocetune.platforms.linux_host.rdma import Mapping, parse_ibdev2netdev
from rocetune.platforms.linux_host.segments import Segment, split
from rocetune.snapshot import Command, Snapshot


def followup_commands(snapshot: Snapshot) -> tuple[Command, ...]:
    """Per RDMA device and PCI function of the snapshot's NIC ports, in NIC order."""
    light = light_followups(snapshot)
    return light if light is not None else full_followups(snapshot)


def full_followups(snapshot: Snapshot) -> tuple[Command, ...]:
    """The follow-ups from a full parse of the snapshot (any snapshot)."""
    from rocetune.platforms.linux_host.assemble import assemble
    from rocetune.platforms.linux_host.outputs import read_outputs

    joined = assemble(read_outputs(snapshot))
    nics = sorted(joined.nics.values(), key=lambda n: n.name)
    return _commands((n.rdma, n.pci) for n in nics)


def _commands(nics: Iterable[tuple[str | None, str | None]]) -> tuple[Command, ...]:
    out: dict[str, Command] = {}
    for rdma, pci in nics:
        for name, build in ((rdma, c.rdma_commands), (pci, c.pci_commands)):
            if name is None:
                continue
            try:
                found = build(name)
            except ValueError:
                continue
            for command in found:
                out.setdefault(command.filename, command)
    return tuple(out.values())


class _Undecided(Exception):
    """The light reader cannot tell the full parse's result: take the full parse."""


def light_followups(snapshot: Snapshot) -> tuple[Command, ...] | None:
    """The follow-ups read from ``ibdev2netdev``, ``ethtool -i`` and the file names only;
    None when only the full parse can tell (see the module docstring)."""
    if snapshot.meta.commands:
        return None
    try:
        netdevs, mappings, pcis = _read(snapshot)
    except _Undecided:
        return None
    first: dict[str, Mapping] = {}
    for mapping in mappings:  # assemble._rdma_map: the first mapping of each RDMA device
        first.setdefault(key_of(mapping.rdma), mapping)
    rdma: dict[str, Mapping] = {}
    for _, mapping in sorted(first.items()):  # assemble._join_rdma
        key = key_of(mapping.netdev)
        if key in netdevs and key not in rdma:
            rdma[key] = mapping
    given = [k for k in netdevs if k in rdma or k in pcis]
    if len(given) > 1 and any(k not in rdma for k in given):
        return None  # its display name (the sort key) may come from an output: full parse
    # several NICs are all mapped: the full parse sorts them by the netdev ibdev2netdev names
    order = sorted(given, key=lambda k: rdma[k].netdev if k in rdma else "")
    return _commands((rdma[k].rdma if k in rdma else None, pcis.get(k)) for k in order)


def _read(snapshot: Snapshot) -> tuple[set[str], list[Mapping], dict[str, str]]:
    """The netdev keys with outputs, the ibdev2netdev mappings, netdev key -> PCI address
    (as :func:`.outputs.read_outputs` finds them in a snapshot without metadata)."""
    netdevs: set[str] = set()
    mappings: list[Mapping] = []
    pcis: dict[str, str] = {}
    for filename, source in sorted(snapshot.files.items()):
        if filename == c.OPERATOR_TEMPLATE.filename:
            continue
        found = c.identify_file(filename)
        if found is None:
            if filename == c.TRANSCRIPT.filename:
                raise _Undecided
            continue  # not recognised: only a note in the full parse
        kind, key = found
        if kind.encoding == "json":
            continue
        if kind.scope in ("rdma", "pci") or (kind.scope == "nic" and key is None):
            raise _Undecided
        if kind not in (c.IBDEV2NETDEV, c.DRIVER) and kind.scope != "nic":
            _one_segment(source.text, source.path)  # hostname: must be a single output
            continue
        if kind.scope == "nic":
            assert key is not None
            netdevs.add(key_of(key))
            if kind is not c.DRIVER:
                _one_segment(source.text, source.path)
                continue
        segment = _one_segment(source.text, source.path)
        if kind is c.IBDEV2NETDEV:
            mappings.extend(parse_ibdev2netdev(segment, Notes(source.path)))
        else:
            assert key is not None
            info = parse_driver(segment, Notes(source.path))
            if info.pci is not None:
                pcis[key_of(key)] = info.pci
    return netdevs, mappings, pcis


def _one_segment(text: str, path: str) -> Segment:
    segments = split(text, path)
    if len(segments) != 1:
        raise _Undecided  # a transcript inside an output: its commands may name NICs
    return segments[0]


def ibdev2netdev_netdevs(text: str) -> list[str]:
    """The RoCE netdevs an ``ibdev2netdev`` output names (valid names only, in order).

    ``rocetune collect --local`` collects these when no ``--nics`` are given.
    """
    lines = tuple(enumerate(text.splitlines(), start=1))
    found = parse_ibdev2netdev(Segment("ibdev2netdev", lines), Notes("ibdev2netdev"))
    return list(dict.fromkeys(m.netdev for m in found))
