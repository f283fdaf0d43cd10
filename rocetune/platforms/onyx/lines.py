"""Onyx configuration text -> statements: one command, its line and its interface context.

A saved ``show running-config`` of Onyx is flat: every command stands on its own line
(``interface ethernet 1/1 mtu 9216 force``), indented by three spaces under ``##`` section
comments, with ``no cli default prefix-modes enable`` at the top. Runbooks and transcripts
use the context modes as well: ``interface ethernet 1/1`` alone enters the interface's mode
(prompt ``switch (config interface ethernet 1/1) #``) and the following interface commands
belong to it until ``exit`` or a global command. This module reads both shapes:

- CLI prompts are removed (``switch > ``, ``switch # ``, ``switch (config) # ``,
  ``sw1 [standalone: master] (config interface ethernet 1/1) # ``); a prompt's mode names the
  context (``(config)`` = global);
- ``#`` lines are comments (the running-config's section headers and its hidden secrets,
  ``# radius-server key ********``);
- session commands (``enable``, ``configure terminal``, ``exit``, ``write memory``,
  ``no cli session paging enable``) are consumed; ``show ...`` commands are consumed with
  their output (the unprompted lines after them, up to the next prompted line);
- an interface context applies to the commands that follow until ``exit`` or a command that
  only exists globally (:data:`GLOBAL_FIRST`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_LINES = 500_000
_PROMPT = re.compile(
    r"^(?P<host>[A-Za-z0-9][\w.\-]{0,62})(?:\s*\[[^\]\n]{0,60}\])?\s*"
    r"(?:\((?P<mode>config[^)\n]{0,60})\))?\s*(?P<end>[#>])(?:\s+|$)"
)
_SESSION = re.compile(
    r"^(?:enable|disable|configure(?: terminal)?|conf(?:ig)?(?: t(?:erminal)?)?|exit|end|quit"
    r"|write memory|configuration write(?: to \S+(?: no-switch)?)?"
    r"|terminal length \d+|terminal width \d+"
    r"|(?:no )?cli session paging enable|(?:no )?cli default prefix-modes enable"
    r"|copy \S.*|reload.*|ping \S.*|logout)$"
)
_SHOW = re.compile(r"^(?:show|sh)\b")
_MODE_IFACE = re.compile(r"^config interface (ethernet|port-channel|mlag-port-channel) (\S+)$")
GLOBAL_FIRST = frozenset(
    {
        "interface",
        "dcb",
        "roce",
        "traffic",
        "lldp",
        "hostname",
        "vlan",
        "protocol",
        "lacp",
        "spanning-tree",
        "ip",
        "ipv6",
        "router",
        "ntp",
        "username",
        "snmp-server",
        "mlag",
        "mlag-vip",
        "logging",
        "radius-server",
        "tacacs-server",
        "ldap",
        "web",
        "license",
        "advanced",
        "pool",
        "banner",
        "clock",
        "ssh",
        "aaa",
        "port-channel",
        "vrf",
        "cli",
        "password",
        "telnet-server",
        "email",
        "ptp",
        "openflow",
        "track",
    }
)
"""First words of commands that exist only in the global mode (they leave an interface
context opened by a bare ``interface ...`` line)."""


@dataclass(frozen=True)
class Statement:
    """One configuration command."""

    line: int
    text: str
    context: tuple[str, str] | None = None
    """(kind, name-or-range) of the interface mode the command was entered in."""


@dataclass
class Lines:
    """The statements of a text plus what the prompts told."""

    statements: list[Statement]
    prompt_host: str | None = None


def split_prompt(raw: str) -> tuple[str, str | None, str | None, bool]:
    """(rest, mode, host, prompted) of one line: ``sw (config) # mtu 9216`` -> mode ``config``."""
    match = _PROMPT.match(raw)
    if match is None:
        return raw, None, None, False
    rest = raw[match.end() :]
    if not rest.strip() or rest.lstrip()[0].isalnum() or rest.lstrip().startswith("#"):
        return rest, match.group("mode"), match.group("host"), True
    return raw, None, None, False


def read_lines(text: str) -> Lines:
    """Split ``text`` into statements (see the module doc)."""
    out: list[Statement] = []
    host: str | None = None
    context: tuple[str, str] | None = None
    in_output = False
    for number, raw in enumerate(text.splitlines()[:MAX_LINES], start=1):
        rest, mode, seen_host, prompted = split_prompt(raw.strip())
        if prompted:
            host = host or seen_host
            in_output = False
            context = _mode_context(mode, context)
        elif in_output:
            continue
        line = " ".join(rest.split())
        if not line or line.startswith("#"):
            continue
        if _SHOW.match(line):
            in_output = prompted
            continue
        if line == "exit":
            context = None
            continue
        if _SESSION.match(line):
            continue
        words = line.split()
        if words[0] == "interface" and len(words) == 3 and _MODE_IFACE.match("config " + line):
            context = (words[1], words[2])
            out.append(Statement(number, line, None))
            continue
        head = words[1] if words[0] == "no" and len(words) > 1 else words[0]
        if head in GLOBAL_FIRST:
            context = None
        out.append(Statement(number, line, context))
    return Lines(out, host)


def _mode_context(mode: str | None, current: tuple[str, str] | None) -> tuple[str, str] | None:
    if mode is None:
        return current
    found = _MODE_IFACE.match(" ".join(mode.split()))
    if found:
        return (found.group(1), found.group(2))
    return None
