"""Platform detection that weighs all the evidence of a file, not its first lines.

Every driver still says whether it can read a file (``sniff``: which command's output it
is). On top of that, the lines of the whole file are scored for each platform: a line is
evidence for a platform when only that platform writes it (``nv set``, ``system qos``,
``qos map dscp ... to traffic-class``, ``mlnx_qos``, a CONFIG_DB table name). The platform
read is the claimant with the most evidence, and only when it leads clearly:

- one claimant: it wins unless another platform has at least twice its evidence (and at
  least :data:`MIN_LEAD` lines), which makes the file ambiguous;
- several claimants: the one with the most evidence, if it has at least twice the
  evidence of the runner-up; otherwise ambiguous (RT002: set ``--platform`` / ``platform:``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rocetune.platforms import drivers

if TYPE_CHECKING:
    from rocetune.platforms.base import Platform
    from rocetune.snapshot import Command

MIN_LEAD = 3
"""Lines of evidence a platform needs before its lead can make a file ambiguous."""
MAX_LINES = 200_000

_PROMPT = re.compile(
    r"^(?:\S+@\S+:[^\s$#]*[$#]\s*"  # cumulus@leaf01:mgmt:~$ , root@host:~#
    r"|\[[^\]]+\][$#]\s*"  # [root@gpu01 ~]#
    r"|[\w.-]+(?:\([\w-]+\))?#\s*"  # leaf01(config-if)#  switch#
    r"|[\w.-]+>\s*"  # switch>
    r"|[\w.-]+(?: \[[^\]]+\])? (?:\(config[^)]*\) )?[#>]\s+"  # switch (config) # (Onyx)
    r"|[$#+]\s+)"  # bare shell prompt or bash -x trace
)

_EVIDENCE: dict[str, re.Pattern[str]] = {
    "cumulus": re.compile(
        r"^(?:nv (?:set|unset) \S"
        r"|net (?:add|del) \S"
        r"|(?:traffic|pfc|ecn_red|priority_group|cos_egr_queue|default_ecn_red_conf"
        r"|link_pause|port_group_list|source|remark)\.\S+\s*="
        r"|- set:$)"
    ),
    "sonic": re.compile(
        r"^\"(?:PORT_QOS_MAP|BUFFER_PG|BUFFER_PROFILE|BUFFER_POOL|BUFFER_QUEUE"
        r"|DSCP_TO_TC_MAP|TC_TO_PRIORITY_GROUP_MAP|TC_TO_QUEUE_MAP|WRED_PROFILE|SCHEDULER"
        r"|PFC_WD|DEVICE_METADATA|CABLE_LENGTH|PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"
        r"|MAP_PFC_PRIORITY_TO_QUEUE|BUFFER_PORT_INGRESS_PROFILE_LIST)\"\s*:"
        r"|sudo config (?:qos|interface|buffer|pfcwd)\b"
        r"|config (?:qos|pfcwd) \S"
    ),
    "eos": re.compile(
        r"^(?:qos map dscp [\d ,-]+ to traffic-class \d"
        r"|qos profile \S+$"
        r"|! device: .*\bEOS-"
        r"|service routing protocols model \S+"
        r"|management api http-commands$"
        r"|platform (?:trident|sand|tomahawk|jericho|strata|sfe)\b"
        r"|(?:uc-|mc-)?tx-queue \d+$"
        r"|priority-flow-control priority \d (?:no-)?drop$"
        r"|priority-flow-control on$"
        r"|priority-flow-control pause watchdog\b"
        r"|service-profile \S+$"
        r"|qos trust (?:dscp|cos)$"
        r"|random-detect ecn minimum-threshold \d+ \w+ maximum-threshold\b"
        r"|policy-map type quality-of-service\b)"
    ),
    "nxos": re.compile(
        r"^(?:feature [a-z][\w-]*$"
        r"|system qos$"
        r"|switchname \S+$"
        r"|version \d+\.\d+\(\w+\)"
        r"|!Command: show running-config"
        r"|policy-map type (?:network-qos|queuing)\b"
        r"|class-map type (?:network-qos|queuing)\b"
        r"|service-policy type (?:network-qos|queuing) (?:input |output )?\S+"
        r"|pause (?:pfc-cos|no-drop)\b"
        r"|priority-flow-control watch-dog"
        r"|hardware access-list tcam\b"
        r"|congestion-control random-detect\b"
        r"|bandwidth remaining percent \d+$"
        r"|set qos-group \d+$"
        r"|match qos-group \d+$)"
    ),
    "onyx": re.compile(
        r"^(?:interface (?:ethernet \d+/\d+\S* |(?:mlag-)?port-channel \d+\S* )\S"
        r"|dcb priority-flow-control \S"
        r"|traffic pool \S+ (?:type|map|memory)\b"
        r"|roce(?: lossless| lossy| semi-lossless)?$"
        r"|no cli default prefix-modes enable$"
        r"|## (?:Running|Active saved) database "
        r"|qos trust (?:L2|L3|both)$"
        r"|traffic-class \d (?:congestion-control|dcb ets|bind)\b"
        r"|mlag-vip \S|protocol mlag$)"
    ),
    "enterprise_sonic": re.compile(
        r"^(?:qos map (?:dscp-tc|dot1p-tc|tc-queue|tc-pg|tc-dscp|tc-dot1p|pfc-priority-queue"
        r"|pfc-priority-pg) \S+$"
        r"|qos (?:wred-policy|scheduler-policy) \S+$"
        r"|qos-map (?:dscp-tc|dot1p-tc|tc-queue|tc-pg|tc-dscp|tc-dot1p|pfc-priority-queue"
        r"|pfc-priority-pg) \S+$"
        r"|queue \d+ wred-policy \S+$"
        r"|interface-naming standard\b"
        r"|roce enable\b"
        r"|(?:qos )?buffer init lossless$"
        r"|(?:qos )?buffer (?:profile \S+ \S+ \d+|pool \S+ shared-headroom-size \d+)"
        r"|priority-flow-control watchdog (?:on detect-time|restore-time|action) \S+$"
        r"|(?:green|yellow|red) minimum-threshold \d+ maximum-threshold \d+ drop-probability"
        r"|dscp [\d,-]+ traffic-class \d+$"
        r"|(?:traffic-class|pfc-priority) [\d,-]+ (?:queue|priority-group|pg) \d+$"
        r"|interface (?:range )?Eth ?\d+/\d+)"
    ),
    "linux_host": re.compile(
        r"^(?:(?:sudo )?(?:mlnx_qos|cma_roce_tos|cma_roce_mode|show_gids|ibv_devinfo|ibdev2netdev"
        r"|mlxconfig|mlxreg|rdma (?:link|dev)|ethtool(?: -[aAkSc])?)\b"
        r"|Priority trust state:"
        r"|PFC configuration:"
        r"|DCBX mode:"
        r"|enabled(?:\s+[01]){8}$"
        r"|tc: \d+ ratelimit:"
        r"|Settings for \S+:$"
        r"|Pause parameters for \S+:$"
        r"|DEV\s+PORT\s+INDEX\s+GID\b"
        r"|(?:echo \S+ > )?/sys/(?:class|kernel)/(?:net|infiniband|config/rdma_cm)/\S+)"
    ),
}


def patterns() -> dict[str, re.Pattern[str]]:
    """The evidence pattern of every platform: the table above, and for any registered
    platform its own :attr:`~rocetune.platforms.base.Platform.evidence` (which wins). A new
    platform takes part in detection and in the ``--platform`` mismatch check by its
    ``sniff`` alone; ``evidence`` lets it also outweigh other claims."""
    found = dict(_EVIDENCE)
    for name, platform in drivers().items():
        own = getattr(platform, "evidence", None)
        if isinstance(own, re.Pattern):
            found[name] = own
    return found


def evidence(text: str) -> dict[str, int]:
    """Lines of ``text`` that only one platform writes, counted per platform."""
    table = patterns()
    counts = dict.fromkeys(table, 0)
    for raw in text.splitlines()[:MAX_LINES]:
        line = raw.strip()
        if not line:
            continue
        line = _PROMPT.sub("", line, count=1) if line[0] not in '"{[' else line
        for platform, pattern in table.items():
            if pattern.match(line):
                counts[platform] += 1
    return counts


@dataclass(frozen=True)
class Detection:
    """What detection found for one file."""

    driver: Platform | None
    command: Command | None
    evidence: dict[str, int] = field(default_factory=dict)
    claims: tuple[str, ...] = ()
    """Platforms whose driver can read the file."""
    ambiguous: tuple[str, ...] = ()
    """The platforms that tie when detection cannot decide."""

    def summary(self, names: tuple[str, ...] | None = None) -> str:
        """``eos (12 lines), nxos (9 lines)`` for the given (or the ambiguous) platforms."""
        names = names or self.ambiguous
        return ", ".join(f"{n} ({self.evidence.get(n, 0)} lines)" for n in names)


def _unclaimed(counts: dict[str, int]) -> Detection:
    """No driver claims the file: read it as the platform its lines clearly belong to.

    Only with :data:`MIN_LEAD` lines of evidence and a clear lead (a host script of
    ``mlnx_qos``/``cma_roce_tos`` lines without prompts); switch files are read as their
    running config, host files as a transcript.
    """
    ranked = sorted(counts, key=lambda n: -counts[n])
    best = ranked[0]
    runner_up = counts[ranked[1]] if len(ranked) > 1 else 0
    if counts[best] < MIN_LEAD:
        return Detection(None, None, counts)
    if not _clear_lead(counts[best], runner_up):
        return Detection(None, None, counts, (), (best, ranked[1]))
    driver = drivers().get(best)
    if driver is None:
        return Detection(None, None, counts)
    if driver.kind == "host":
        from rocetune.platforms.linux_host.commands import TRANSCRIPT

        return Detection(driver, TRANSCRIPT, counts)
    return Detection(driver, driver.commands()[0], counts)


def _clear_lead(best: int, other: int) -> bool:
    return other < MIN_LEAD or best >= 2 * other


def detect(path: str, text: str) -> Detection:
    """Pick the platform of a saved file by weighing every line (see the module doc)."""
    counts = evidence(text)
    found: dict[str, tuple[Platform, Command]] = {}
    for name, driver in drivers().items():
        command = driver.sniff(path, text)
        if command is not None:
            found[name] = (driver, command)
    claims = tuple(found)
    if not found:
        return _unclaimed(counts)
    order = list(drivers())
    ranked = sorted(claims, key=lambda n: (-counts.get(n, 0), order.index(n)))
    best = ranked[0]
    if len(ranked) > 1 and counts[best] and not _clear_lead(counts[best], counts[ranked[1]]):
        return Detection(None, None, counts, claims, (best, ranked[1]))
    rival = max((n for n in counts if n != best), key=lambda n: counts[n], default=None)
    if (
        rival is not None
        and counts[rival] >= MIN_LEAD
        and counts[rival] >= 2 * max(counts[best], 1)
        and rival not in found
    ):
        return Detection(None, None, counts, claims, (best, rival))
    driver, command = found[best]
    return Detection(driver, command, counts, claims)
