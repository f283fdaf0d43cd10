"""What to collect from an NVIDIA Onyx switch, and which saved file stands for what.

Collected: ``show running-config`` (required). It holds every QoS fact rocetune reads; the
operational views (``show dcb priority-flow-control``, ``show interfaces ethernet 1/1
congestion-control``, ``show roce``) repeat it per port and are not read yet. netmiko's
``mellanox_mlnxos`` driver enters enable mode and turns paging off (``no cli session paging
enable``) before the command.

:func:`sniff` is cheap (regular expressions over the first 2 MB) and never raises. A text is
an Onyx configuration when it has an Onyx-only header (``## Running database``, ``## Active
saved database``, ``no cli default prefix-modes enable``), an Onyx prompt (``switch (config)
#``, ``switch (config interface ethernet 1/1) #``) or an Onyx-only command: the flat
``interface ethernet 1/1 <command>`` form, ``dcb priority-flow-control ...``, ``traffic pool
... type|map|memory``, ``roce [mode]``, ``qos trust L2|L3|both``, ``traffic-class N
congestion-control|dcb ets|bind``.
"""

from __future__ import annotations

import re

from rocetune.platforms.base import never_raises
from rocetune.snapshot import Command

RUNNING_CONFIG = Command(id="running_config", command="show running-config")
COMMANDS: tuple[Command, ...] = (RUNNING_CONFIG,)

_LIMIT = 2_000_000
_PROMPT = r"(?:[A-Za-z0-9][\w.\-]*(?: \[[^\]\n]*\])? (?:\(config[^)\n]*\) )?[#>] ?)?"
_STRONG = re.compile(
    r"^\s*(?:## (?:Running|Active saved) database \""
    r"|no cli default prefix-modes enable$"
    rf"|{_PROMPT}interface (?:ethernet \d+/\d+\S* |(?:mlag-)?port-channel \d+\S* )\S"
    rf"|{_PROMPT}dcb priority-flow-control (?:enable|priority \d enable)\b"
    rf"|{_PROMPT}traffic pool \S+ (?:type|map|memory)\b"
    rf"|{_PROMPT}roce(?: lossless| lossy| semi-lossless)?$"
    rf"|{_PROMPT}qos trust (?:L2|L3|both)$"
    rf"|{_PROMPT}traffic-class \d (?:congestion-control|dcb ets|bind)\b)",
    re.MULTILINE,
)
_ONYX_PROMPT = re.compile(r"^[A-Za-z0-9][\w.\-]*(?: \[[^\]\n]*\])? \(config[^)\n]*\) # ", re.M)


@never_raises
def sniff(text: str) -> Command | None:
    """Return the command a saved Onyx file stands for, or None; never raises."""
    body = text[:_LIMIT].lstrip("\ufeff")
    if _STRONG.search(body) or _ONYX_PROMPT.search(body):
        return RUNNING_CONFIG
    return None
