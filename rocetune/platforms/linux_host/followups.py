"""Follow-up commands: the RDMA device and PCI function of every collected netdev.

``ibdev2netdev`` names the RDMA device (and port) of each netdev, ``ethtool -i`` its PCI
address (``bus-info``). Only the netdevs the snapshot already holds outputs for (the
inventory NICs) get follow-ups; other RDMA devices of the host are not collected. Names read
from device outputs are validated like inventory names: one that does not match the strict
patterns of :mod:`.names` never becomes a command (it is skipped).
"""

from __future__ import annotations

from rocetune.platforms.linux_host.assemble import assemble
from rocetune.platforms.linux_host.commands import pci_commands, rdma_commands
from rocetune.platforms.linux_host.outputs import read_outputs
from rocetune.snapshot import Command, Snapshot


def followup_commands(snapshot: Snapshot) -> tuple[Command, ...]:
    """Per RDMA device and PCI function of the snapshot's NIC ports, in NIC order."""
    joined = assemble(read_outputs(snapshot))
    out: dict[str, Command] = {}
    for nic in sorted(joined.nics.values(), key=lambda n: n.name):
        for name, build in ((nic.rdma, rdma_commands), (nic.pci, pci_commands)):
            if name is None:
                continue
            try:
                found = build(name)
            except ValueError:
                continue
            for command in found:
                out.setdefault(command.filename, command)
    return tuple(out.values())


def ibdev2netdev_netdevs(text: str) -> list[str]:
    """The RoCE netdevs an ``ibdev2netdev`` output names (valid names only, in order).

    ``rocetune collect --local`` collects these when no ``--nics`` are given.
    """
    from rocetune.platforms.linux_host.base import Notes
    from rocetune.platforms.linux_host.rdma import parse_ibdev2netdev
    from rocetune.platforms.linux_host.segments import Segment

    lines = tuple(enumerate(text.splitlines(), start=1))
    found = parse_ibdev2netdev(Segment("ibdev2netdev", lines), Notes("ibdev2netdev"))
    return list(dict.fromkeys(m.netdev for m in found))
