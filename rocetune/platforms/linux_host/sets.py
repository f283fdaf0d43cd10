"""Commands that set a NIC value, read from the command line itself (transcripts, scripts).

A transcript or a ``bash -x`` trace shows what a script set even where the tool prints
nothing back. The value set is the NIC's value unless the command's own output (read by the
kind's parser) says otherwise:

- ``cma_roce_tos -d <dev> -t <tos>`` -> ``roce_tos`` (0-255; the mlnx-tools script writes the
  rdma_cm default ToS of the device and prints it back, roce-knowledge.md N11);
- ``echo <n> > /sys/class/infiniband/<dev>/tc/1/traffic_class`` (alone, or inside ``sudo sh
  -c '...'``) -> ``traffic_class`` (0-255, the global traffic class of the device);
- ``mlnx_qos -i <if> --pfc a,b,c,d,e,f,g,h`` -> ``pfc_priorities`` (the priorities whose flag
  is 1) and ``--trust dscp|pcp`` -> ``trust``. ``mlnx_qos`` prints the resulting state after
  a set, which wins when present. A ``--pfc`` list that is not eight 0/1 flags (nine
  priorities, a 2) or an unknown trust word is invalid: mlnx_qos rejects it, so it is RT001
  and sets nothing.
"""

from __future__ import annotations

import re

from rocetune.platforms.linux_host.base import Found, Notes, to_int

_TOS = re.compile(r"(?:^|\s)(?:-t|--tos)(?:=|\s+)(\S+)")
_ECHO = re.compile(
    r"echo\s+(?:-n\s+)?['\"]?(\S+?)['\"]?\s*>\s*(/sys/class/infiniband/([^/\s]+)/tc/\d+/"
    r"traffic_class)"
)
_PFC = re.compile(r"(?:^|\s)(?:--pfc|-f)(?:=|\s+)(\S+)")
_TRUST = re.compile(r"(?:^|\s)--trust(?:=|\s+)(\S+)")
TRUST_WORDS = {"dscp": "dscp", "pcp": "pcp"}


def echo_traffic_class(command: str) -> tuple[str, str] | None:
    """``echo 106 > /sys/class/infiniband/mlx5_2/tc/1/traffic_class`` -> (device, "106")."""
    match = _ECHO.search(command)
    return None if match is None else (match.group(3), match.group(1))


def traffic_class_set(value: str, line: int | None, notes: Notes) -> Found:
    """The value an ``echo ... > traffic_class`` writes."""
    found = Found()
    number = to_int(value, 0, 255)
    if number is None:
        notes.add(f"echo {value} > traffic_class", "invalid traffic class (0-255)", line)
    else:
        found.put("traffic_class", number, line)
    return found


def roce_tos_set(command: str, line: int | None, notes: Notes) -> Found:
    """``cma_roce_tos -d <dev> -t <tos>``: the ToS it sets (empty Found for the show form)."""
    found = Found()
    match = _TOS.search(command)
    if match is None:
        return found
    value = to_int(match.group(1), 0, 255)
    if value is None:
        notes.add(command, "cma_roce_tos: invalid ToS (expected 0-255)", line)
    else:
        found.put("roce_tos", value, line)
    return found


def mlnx_qos_set(command: str, line: int | None, notes: Notes) -> Found:
    """``mlnx_qos -i <if> --pfc ... --trust ...``: the values it sets."""
    found = Found()
    match = _PFC.search(command)
    if match is not None:
        flags = match.group(1).strip("'\"").split(",")
        if len(flags) != 8 or any(f not in ("0", "1") for f in flags):
            notes.add(
                command,
                f"mlnx_qos --pfc takes eight 0/1 flags (priorities 0-7), got {len(flags)}"
                " values: mlnx_qos rejects it",
                line,
                features=("pfc",),
            )
        else:
            found.put("pfc_priorities", tuple(i for i, f in enumerate(flags) if f == "1"), line)
    match = _TRUST.search(command)
    if match is not None:
        trust = TRUST_WORDS.get(match.group(1).strip("'\""))
        if trust is None:
            notes.add(command, "mlnx_qos --trust takes dscp or pcp", line, features=("trust",))
        else:
            found.put("trust", trust, line)
    return found


def merge(output: Found, command: Found) -> Found:
    """The command's values where its output gave none (the output is the NIC's state)."""
    for name, value in command.values.items():
        if name not in output.values:
            output.put(name, value, command.lines.get(name))
    return output
