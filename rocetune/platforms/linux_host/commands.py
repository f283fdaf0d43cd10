"""What to collect from a Linux host with NVIDIA ConnectX NICs, and how to recognise it.

One host snapshot covers several NIC ports. :func:`nic_commands` gives the per-netdev
commands (one set per inventory NIC name, e.g. ``mlnx_qos -i eth2``), :data:`HOST_COMMANDS`
the host-wide ones (``ibdev2netdev``, ``lldpctl -f json``, ``hostname``), and
:func:`rdma_commands` / :func:`pci_commands` the follow-up commands whose argument (the
RDMA device, the PCI address) only the first outputs tell (``ibdev2netdev``, ``ethtool -i``).
Every argument is validated (:mod:`.names`) before it becomes part of a command.

A :class:`Kind` describes one command shape: its template, which name it takes (``nic``,
``rdma``, ``pci`` or none for ``host``), and how to recognise it again from a command line
(snapshot metadata, a transcript's prompt or ``bash -x`` line) or from a snapshot file name.
Saved single outputs that do not name their NIC are stored under a pseudo command
``saved <kind> output``; a pasted terminal session under ``saved host transcript``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from rocetune.platforms.linux_host.names import check_netdev, check_pci, check_rdma
from rocetune.snapshot import Command, Encoding, command_filename

Scope = Literal["nic", "rdma", "pci", "host"]
_PLACEHOLDER = "zzkeyzz"


@dataclass(frozen=True)
class Kind:
    """One command shape the host driver collects or recognises."""

    id: str
    scope: Scope
    template: str
    """The command, with ``{name}`` where the netdev / RDMA device / PCI address goes."""
    prefix: re.Pattern[str]
    """Recognises the command (after ``sudo`` and pipes are stripped)."""
    key: re.Pattern[str] | None = None
    """Finds the name in a recognised command line (group 1)."""
    default_key: str | None = None
    """The name the tool uses when the command line gives none (``cma_roce_tos``: mlx5_0)."""
    encoding: Encoding = "text"
    required: bool = False
    """Every host command is optional: a tool missing on one host (upstream kernels have no
    ``mlnx_qos`` sysfs, no ``ecn`` directory) leaves those values unknown (RT000) instead
    of failing the whole host."""

    def command(self, name: str | None = None) -> Command:
        """The collectable command for ``name``; ValueError when ``name`` is not valid."""
        if self.scope != "host":
            name = _CHECK[self.scope](name or "")
        text = self.template if self.scope == "host" else self.template.format(name=name)
        cid = self.id if name is None else f"{self.id}:{name}"
        return Command(id=cid, command=text, encoding=self.encoding, required=self.required)

    def saved(self) -> Command:
        """Pseudo command for a saved output of this kind that does not name its NIC."""
        return Command(id=f"saved:{self.id}", command=f"saved {self.id} output", required=False)


_CHECK = {"nic": check_netdev, "rdma": check_rdma, "pci": check_pci}


def _re(text: str) -> re.Pattern[str]:
    return re.compile(text)


_DEV = _re(r"(?:^|\s)(?:-d|--ib-dev)(?:=|\s*)(\S+)")
_NET_PATH = _re(r"/sys/class/net/([^/\s]+)/")
_IB_PATH = _re(r"/sys/class/infiniband/([^/\s]+)/")

MLNX_QOS = Kind(
    "mlnx_qos",
    "nic",
    "mlnx_qos -i {name}",
    _re(r"mlnx_qos\b"),
    _re(r"(?:^|\s)(?:-i|--interface)(?:=|\s+)(\S+)"),
)
MTU = Kind(
    "mtu",
    "nic",
    "cat /sys/class/net/{name}/mtu",
    _re(r"cat\s+/sys/class/net/[^/\s]+/mtu\s*$"),
    _NET_PATH,
)
ETHTOOL = Kind(
    "ethtool", "nic", "ethtool {name}", _re(r"ethtool\s+[^\s-]\S*\s*$"), _re(r"ethtool\s+(\S+)")
)
PAUSE = Kind(
    "ethtool_pause",
    "nic",
    "ethtool -a {name}",
    _re(r"ethtool\s+(?:-a|--show-pause)\s"),
    _re(r"\s(?:-a|--show-pause)\s+(\S+)"),
)
DRIVER = Kind(
    "ethtool_driver",
    "nic",
    "ethtool -i {name}",
    _re(r"ethtool\s+(?:-i|--driver)\s"),
    _re(r"\s(?:-i|--driver)\s+(\S+)"),
)
STATS = Kind(
    "ethtool_stats",
    "nic",
    "ethtool -S {name}",
    _re(r"ethtool\s+(?:-S|--statistics)\s"),
    _re(r"\s(?:-S|--statistics)\s+(\S+)"),
)
ECN = Kind(
    "ecn_enable",
    "nic",
    "grep -H . /sys/class/net/{name}/ecn/roce_*p/enable/*",
    _re(r"grep\b.*\s/sys/class/net/[^/\s]+/ecn/"),
    _NET_PATH,
)
DCQCN = Kind(
    "dcqcn_params",
    "nic",
    "grep -H -d skip . /sys/class/net/{name}/ecn/roce_*p/*",
    _re(r"grep\b.*\s/sys/class/net/[^/\s]+/ecn/roce_[^/\s]*/\*(?:\s|$)"),
    _NET_PATH,
)
"""The DCQCN parameter files (``roce_rp/rpg_gd`` ...); ``-d skip`` leaves out ``enable/``."""
CNP_DSCP = Kind(
    "cnp_dscp",
    "nic",
    "cat /sys/class/net/{name}/ecn/roce_np/cnp_dscp",
    _re(r"cat\s+/sys/class/net/[^/\s]+/ecn/roce_np/cnp_dscp\s*$"),
    _NET_PATH,
)
CNP_PRIO = Kind(
    "cnp_prio",
    "nic",
    "cat /sys/class/net/{name}/ecn/roce_np/cnp_802p_prio",
    _re(r"cat\s+/sys/class/net/[^/\s]+/ecn/roce_np/cnp_802p_prio\s*$"),
    _NET_PATH,
)
ROCE_TOS = Kind(
    "roce_tos", "rdma", "cma_roce_tos -d {name}", _re(r"cma_roce_tos\b"), _DEV, "mlx5_0"
)
ROCE_MODE = Kind(
    "roce_mode", "rdma", "cma_roce_mode -d {name} -p 1", _re(r"cma_roce_mode\b"), _DEV, "mlx5_0"
)
TCLASS = Kind(
    "traffic_class",
    "rdma",
    "cat /sys/class/infiniband/{name}/tc/1/traffic_class",
    _re(r"cat\s+/sys/class/infiniband/[^/\s]+/tc/1/traffic_class\s*$"),
    _IB_PATH,
)
SHOW_GIDS = Kind(
    "show_gids", "rdma", "show_gids {name}", _re(r"show_gids\b"), _re(r"show_gids\s+(\S+)")
)
DEVINFO = Kind("ibv_devinfo", "rdma", "ibv_devinfo -v -d {name}", _re(r"ibv_devinfo\b"), _DEV)
HW_COUNTERS = Kind(
    "hw_counters",
    "rdma",
    "grep -H . /sys/class/infiniband/{name}/ports/1/hw_counters/*",
    _re(r"grep\b.*\s/sys/class/infiniband/[^/\s]+/ports/\d+/hw_counters/"),
    _IB_PATH,
)
MLXCONFIG = Kind(
    "mlxconfig",
    "pci",
    "mlxconfig -d {name} q",
    _re(r"(?:mlxconfig|mstconfig)\b.*\s(?:q|query)\b"),
    _re(r"(?:^|\s)(?:-d|--dev)(?:=|\s+)(\S+)"),
)
IBDEV2NETDEV = Kind("ibdev2netdev", "host", "ibdev2netdev", _re(r"ibdev2netdev(?:\s+-v)?\s*$"))
LLDPCTL = Kind("lldpctl", "host", "lldpctl -f json", _re(r"lldpcli?\b.*-f\s*json"), encoding="json")
HOSTNAME = Kind("hostname", "host", "hostname", _re(r"hostname\s*$"))

KINDS: tuple[Kind, ...] = (
    IBDEV2NETDEV,
    HOSTNAME,
    LLDPCTL,
    MLNX_QOS,
    MTU,
    ETHTOOL,
    PAUSE,
    DRIVER,
    STATS,
    DCQCN,
    ECN,
    CNP_DSCP,
    CNP_PRIO,
    ROCE_TOS,
    ROCE_MODE,
    TCLASS,
    SHOW_GIDS,
    DEVINFO,
    HW_COUNTERS,
    MLXCONFIG,
)
"""Every shape, in collection order."""
BY_ID = {k.id: k for k in KINDS}

HOST_COMMANDS: tuple[Command, ...] = (
    IBDEV2NETDEV.command(),
    HOSTNAME.command(),
    LLDPCTL.command(),
)
"""Host-wide commands (``ibdev2netdev`` first: it also stands for an unrecognised file)."""
NIC_KINDS = (MLNX_QOS, MTU, ETHTOOL, PAUSE, DRIVER, STATS, DCQCN, ECN, CNP_DSCP, CNP_PRIO)
"""Per-netdev commands (the CNP DSCP/priority come from their own ``cat`` files, not from the
DCQCN parameter listing, which prints them as well)."""
RDMA_KINDS = (ROCE_TOS, ROCE_MODE, TCLASS, SHOW_GIDS, DEVINFO, HW_COUNTERS)
PCI_KINDS = (MLXCONFIG,)

TRANSCRIPT = Command(id="transcript", command="saved host transcript", required=False)
"""A pasted terminal session, ``bash -x`` trace or notes with several commands and outputs."""
SCRIPT = Command(id="script", command="saved host script", required=False)
"""A host setup script (shell, or an Ansible / cloud-init file running shell commands): read as
the intended NIC state, nothing executed (:mod:`.script`)."""
OPERATOR_TEMPLATE = Command(
    id="operator_template", command="saved nic operator template", required=False
)
"""An NVIDIA NIC Configuration Operator custom resource: recognised, not supported."""


def nic_commands(nic: str) -> tuple[Command, ...]:
    """The per-netdev commands for one NIC; ValueError for an invalid name."""
    name = check_netdev(nic)
    return tuple(k.command(name) for k in NIC_KINDS)


def rdma_commands(dev: str) -> tuple[Command, ...]:
    """The follow-up commands of one RDMA device; ValueError for an invalid name."""
    name = check_rdma(dev)
    return tuple(k.command(name) for k in RDMA_KINDS)


def pci_commands(address: str) -> tuple[Command, ...]:
    """The follow-up commands of one PCI function; ValueError for an invalid address."""
    name = check_pci(address)
    return tuple(k.command(name) for k in PCI_KINDS)


def commands(nics: Sequence[str] = ()) -> tuple[Command, ...]:
    """Host-wide commands, then the commands of every NIC, in order.

    Raises ValueError for an invalid name or for two names that would share snapshot files
    (``eth2.1`` and ``eth2_1`` both become ``..._eth2_1...``).
    """
    out = list(HOST_COMMANDS)
    seen: dict[str, str] = {}
    for nic in nics:
        for command in nic_commands(nic):
            other = seen.setdefault(command.filename, nic)
            if other != nic:
                msg = f"NIC names {other!r} and {nic!r} map to the same snapshot file"
                raise ValueError(msg)
            out.append(command)
    return tuple(out)


_STDERR = re.compile(r"\s2$")
_RUNNER = re.compile(r"(?:sudo(?:\s+-\S+)*|command|exec|time)\s+")


def strip_command(text: str) -> str:
    """A command line without ``sudo``, pipes, redirections and surrounding blanks."""
    cmd = text.strip()
    for sep in ("|", ">", "&&", ";"):
        cmd = cmd.split(sep, 1)[0]
    cmd = _STDERR.sub("", cmd.strip())
    while True:
        match = _RUNNER.match(cmd)
        if match is None:
            return cmd.strip()
        cmd = cmd[match.end() :]


@lru_cache(maxsize=4096)
def identify(text: str) -> tuple[Kind, str | None] | None:
    """The kind and name of a command line, or None when it is not a host read command
    (memoised: every host of a fleet records the same few dozen command lines)."""
    cmd = strip_command(text)
    for kind in KINDS:
        if not kind.prefix.match(cmd):
            continue
        if kind.scope == "host":
            return kind, None
        found = kind.key.search(cmd) if kind.key is not None else None
        return kind, found.group(1) if found else kind.default_key
    return None


@dataclass(frozen=True)
class _FilePattern:
    kind: Kind
    regex: re.Pattern[str]
    literal: int


def _file_patterns() -> tuple[_FilePattern, ...]:
    out = []
    for kind in KINDS:
        name = command_filename(kind.template.format(name=_PLACEHOLDER), kind.encoding)
        head, sep, tail = name.partition(_PLACEHOLDER)
        body = r"([a-z0-9_]+)" if sep else ""
        regex = re.compile(re.escape(head) + body + re.escape(tail))
        out.append(_FilePattern(kind, regex, len(head) + len(tail)))
    return tuple(sorted(out, key=lambda p: -p.literal))


_FILES = _file_patterns()
_SAVED = {k.saved().filename: k for k in KINDS}


_SCRIPT_FILE = SCRIPT.filename


def is_script_file(filename: str) -> bool:
    """True for the snapshot file name of a host setup script (:data:`SCRIPT`)."""
    return filename == _SCRIPT_FILE


def identify_file(filename: str) -> tuple[Kind, str | None] | None:
    """The kind and name key of a snapshot file name (keys are lower-case, ``_``-joined)."""
    if filename in _SAVED:
        return _SAVED[filename], None
    for pattern in _FILES:
        match = pattern.regex.fullmatch(filename)
        if match is not None:
            return pattern.kind, (match.group(1) if match.groups() else None)
    return None
