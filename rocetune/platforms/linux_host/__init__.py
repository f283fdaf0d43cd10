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

from rocetune.platforms.base import Platform, lazy_transaction, text_sniffer
from rocetune.platforms.changes import Planner, without_intent
from rocetune.platforms.common.cli_errors import SHELL
from rocetune.platforms.linux_host import changeset, commands, context, redact, remediate, simulate
from rocetune.platforms.linux_host.followups import followup_commands
from rocetune.platforms.linux_host.parse import parse_snapshot
from rocetune.platforms.linux_host.sniff import sniff as sniff_text

__all__ = ["PLATFORM"]


PLATFORM = Platform(
    name="linux_host",
    kind="host",
    description="Linux host with NVIDIA ConnectX NICs",
    commands=commands.commands,  # host-wide, then per NIC; ValueError for a bad NIC name
    followup_commands=followup_commands,  # per RDMA device and PCI function
    sniff=text_sniffer(sniff_text),
    parser=parse_snapshot,  # odd input becomes Unparsed items, never an exception
    device_type="linux",
    redactor=redact.redact,
    error_marker=SHELL,
    render=context.RENDER,
    planner=Planner(
        remediate=without_intent(remediate.remediate),
        simulate=simulate.simulate,
        changeset=changeset.changeset,
        safe_apply="captured-values-restore",
        prelude=("#!/bin/sh", "set -eu"),
        # the outputs the plan's commands change
        config_files=("mlnx_qos", "cat_sys_class_net", "mlxconfig", "cma_roce", "ethtool_a_"),
    ),
    transaction_factory=lazy_transaction(
        "rocetune.platforms.linux_host.transaction", "HostTransaction"
    ),
)
"""Linux hosts with NVIDIA ConnectX NICs (``platform: linux_host``)."""
