"""Linux host with NVIDIA ConnectX NICs (MLNX_OFED / DOCA host tools, mlnx-tools).

One host snapshot maps to several NIC ports. The inventory lists a host's RoCE netdevs
(``nics: [eth2, eth3]``); :meth:`LinuxHostDriver.commands` collects, per netdev,
``mlnx_qos -i <if>``, ``cat /sys/class/net/<if>/mtu``, ``ethtool <if>`` (speed),
``ethtool -a`` (802.3x pause), ``ethtool -i`` (driver, PCI address), ``ethtool -S``
(counters, for the counter rules), ``grep -H -d skip . /sys/class/net/<if>/ecn/roce_*p/*``
(DCQCN parameters, ``dcqcn_params``), ``grep -H . /sys/class/net/<if>/ecn/roce_*p/enable/*``
(DCQCN per priority) and the two CNP sysfs files, plus host-wide ``ibdev2netdev``,
``hostname`` and ``lldpctl -f json``. :meth:`LinuxHostDriver.followup_commands` then reads
``ibdev2netdev`` and ``ethtool -i`` of those netdevs and adds, per RDMA device,
``cma_roce_tos -d <dev>``, ``cma_roce_mode -d <dev> -p 1``, ``show_gids <dev>``,
``ibv_devinfo -v -d <dev>``, the ``tc/1/traffic_class`` file and ``hw_counters``, and per
PCI function ``mlxconfig -d <pci> q``. Every name is validated before it becomes part of a
command (:mod:`.names`); an invalid inventory NIC name raises ValueError, an invalid name
read from a device output is never turned into a command.

Every output is a file named by the snapshot rule (``mlnx_qos -i eth2`` ->
``mlnx_qos_i_eth2.txt``), so a snapshot directory holds one set of files per NIC. The parser
finds the NIC ports from ``meta.json`` (exact names) or the file names, joins RDMA and PCI
outputs through ``ibdev2netdev`` / ``ethtool -i`` (:mod:`.assemble`), and builds one
:class:`~rocetune.model.NicPort` per netdev. Saved single outputs and pasted terminal
sessions (``bash -x`` traces, prompts, backticks) are recognised by :mod:`.sniff`.

Modules: :mod:`.names`, :mod:`.commands`, :mod:`.segments`, :mod:`.sniff`, one parser per
command family (:mod:`.mlnx_qos`, :mod:`.ethtool`, :mod:`.sysfs`, :mod:`.rdma`,
:mod:`.mlxconfig`, :mod:`.unsupported`), :mod:`.outputs`, :mod:`.assemble`, :mod:`.parse`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal

from rocetune.platforms.base import ParseResult
from rocetune.platforms.linux_host import commands
from rocetune.platforms.linux_host.followups import followup_commands
from rocetune.platforms.linux_host.parse import parse_snapshot
from rocetune.platforms.linux_host.sniff import sniff
from rocetune.platforms.transaction import Transaction, TxContext
from rocetune.snapshot import Command, Snapshot

__all__ = ["LinuxHostDriver"]


class LinuxHostDriver:
    """Driver for Linux hosts with NVIDIA ConnectX NICs (``platform: linux_host``)."""

    name: ClassVar[str] = "linux_host"
    kind: ClassVar[Literal["switch", "host"]] = "host"

    def commands(self, nics: Sequence[str] = ()) -> tuple[Command, ...]:
        """Host-wide commands, then the per-NIC commands; ValueError for a bad NIC name."""
        return commands.commands(nics)

    def followup_commands(self, snapshot: Snapshot) -> tuple[Command, ...]:
        """Per RDMA device and per PCI function, from ``ibdev2netdev`` and ``ethtool -i``."""
        return followup_commands(snapshot)

    def sniff(self, path: str, text: str) -> Command | None:
        """The command a saved host file stands for, or None; never raises."""
        del path
        return sniff(text)

    def parse(self, snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
        """Parse a host snapshot; odd input becomes Unparsed items, never an exception."""
        return parse_snapshot(snapshot, name, role)

    def transaction(self, context: TxContext) -> Transaction | None:
        """The apply driver (:mod:`rocetune.platforms.linux_host.transaction`)."""
        from rocetune.platforms.linux_host.transaction import HostTransaction

        return HostTransaction(context)
