"""Recognise a saved Linux host file: which command's output it is (never raises).

- a host setup script (:mod:`.script_sniff`) -> :data:`~.commands.SCRIPT`;
- a terminal session, ``bash -x`` trace or notes in which at least one command line is a host
  read command (``[root@h ~]# show_gids mlx5_0``, ``+ mlnx_qos -i eth4 --trust dscp``,
  ```` `ethtool -S eth2 | grep prio` ````) -> :data:`~.commands.TRANSCRIPT`;
- JSON is never claimed (``lldpctl -f json`` is what switches print as well);
- a NIC Configuration Operator resource -> :data:`~.commands.OPERATOR_TEMPLATE` (unsupported);
- one saved output, by its own shape (below). When the output names its netdev
  (``Settings for eth2:``, ``Pause parameters for eth2:``, ECN sysfs paths) the real
  per-NIC command is returned; otherwise the ``saved <kind> output`` pseudo command.

Bare numbers (an MTU, a ToS) are not claimed: nothing in them says they come from a host.
"""

from __future__ import annotations

import re

from rocetune.platforms.base import never_raises
from rocetune.platforms.linux_host import commands as c
from rocetune.platforms.linux_host.names import valid_netdev, valid_rdma
from rocetune.platforms.linux_host.segments import MAX_LINES, bare_command, prompt_command
from rocetune.platforms.linux_host.unsupported import operator_kind
from rocetune.snapshot import Command

_NAMED = (
    (re.compile(r"Settings for (\S+):"), c.ETHTOOL),
    (re.compile(r"Pause parameters for (\S+):"), c.PAUSE),
    (re.compile(r"\S*/sys/class/net/([^/\s]+)/ecn/roce_[nr]p/\S+:\s*\d+"), c.ECN),
    (
        re.compile(r"\S*/sys/class/infiniband/([^/\s]+)/ports/\d+/hw_counters/\w+:\s*\d+"),
        c.HW_COUNTERS,
    ),
)
_ARROW = re.compile(r"\S+.*\bport\s+\d+\b.*<?===?>\s*\S+.*")
_MODE = re.compile(r"(?:IB/)?RoCE v[12]")
_NEUTRAL = (c.LLDPCTL, c.HOSTNAME)
"""Commands switches run as well: they do not make a transcript a host's."""


@never_raises
def sniff(text: str) -> Command | None:
    """The command ``text`` is the output of, or None when it is not a host file."""
    body = text.lstrip("\ufeff").strip()
    if not body:
        return None
    if operator_kind(body) is not None:
        return c.OPERATOR_TEMPLATE
    if body[0] == "{":
        return None  # JSON: lldpctl output is not host-specific (switches run lldpd too)
    from rocetune.platforms.linux_host.script_sniff import is_script  # the shell parser: lazily

    if is_script(body):
        return c.SCRIPT
    lines = [ln.strip() for ln in body.splitlines()[:MAX_LINES]]
    if _is_transcript(lines):
        return c.TRANSCRIPT
    meaningful = [ln for ln in lines if ln and not ln.startswith("```")]
    return _named(meaningful) or _shape(meaningful)


def _is_transcript(lines: list[str]) -> bool:
    for line in lines:
        command = prompt_command(line) or bare_command(line.removeprefix("# "))
        found = c.identify(command) if command else None
        if found is not None and found[0] not in _NEUTRAL:
            return True
    return False


def _named(lines: list[str]) -> Command | None:
    for pattern, kind in _NAMED:
        for line in lines[:50]:
            match = pattern.fullmatch(line)
            if match is None:
                continue
            name = match.group(1)
            good = valid_rdma(name) if kind.scope == "rdma" else valid_netdev(name)
            return kind.command(name) if good else kind.saved()
    return None


def _shape(lines: list[str]) -> Command | None:
    head = set(lines[:400])
    starts = [ln.split(":", 1)[0] for ln in lines[:400]]
    if "Priority trust state" in starts or (
        "PFC configuration:" in head and any(ln.startswith("tc: ") for ln in lines)
    ):
        return c.MLNX_QOS.saved()
    if lines[0].split()[:4] == ["DEV", "PORT", "INDEX", "GID"]:
        return c.SHOW_GIDS.saved()
    if "hca_id" in starts or any(re.match(r"GID\[\s*\d+\]:", ln) for ln in lines[:400]):
        return c.DEVINFO.saved()
    if any(ln.startswith("Configurations:") for ln in lines) and (
        any(ln.startswith(("Device #", "Device type:")) for ln in lines)
    ):
        return c.MLXCONFIG.saved()
    if "bus-info" in starts and "driver" in starts:
        return c.DRIVER.saved()
    if lines[0] == "NIC statistics:":
        return c.STATS.saved()
    if all(_ARROW.fullmatch(ln) for ln in lines):
        return c.IBDEV2NETDEV.command()
    if len(lines) == 1 and _MODE.fullmatch(lines[0]):
        return c.ROCE_MODE.saved()
    if len(lines) == 1 and lines[0].startswith("Global tclass="):
        return c.TCLASS.saved()
    return None
