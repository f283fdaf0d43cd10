"""Single sysfs values and the ECN (DCQCN) enable files of mlx5 (MLNX_OFED).

- ``cat /sys/class/net/<if>/mtu`` -> the netdev MTU;
- ``cat /sys/class/net/<if>/ecn/roce_np/cnp_dscp`` / ``cnp_802p_prio`` -> CNP DSCP and
  802.1p priority (roce-knowledge.md §1.2 N16/N17, §2.8; S23);
- ``grep -H . /sys/class/net/<if>/ecn/roce_*p/enable/*`` -> one ``path:value`` line per
  priority, ``.../roce_np/enable/3:1`` (N13/N14): DCQCN notification / reaction point per
  priority; the same ``path:value`` form is accepted for ``cnp_dscp`` and ``cnp_802p_prio``;
- ``grep -H -d skip . /sys/class/net/<if>/ecn/roce_*p/*`` -> the DCQCN parameter files
  (``.../roce_rp/rpg_gd:11``) as ``dcqcn_params`` keyed by the MLNX_OFED name (§2.8, S22;
  RT315); a non-integer value or a deeper path is RT001;
- ``cat /sys/class/infiniband/<dev>/tc/1/traffic_class`` -> ``Global tclass=106`` (the
  mlx5 driver's ``traffic_class_show``; empty when no global traffic class is set, N11).

Upstream kernels have no ``ecn`` directory (their knobs are in debugfs ``cc_params``): grep
then prints ``No such file or directory``, and the values stay unknown.
"""

from __future__ import annotations

import re

from rocetune.platforms.linux_host.base import Found, Notes, take_errors, to_int
from rocetune.platforms.linux_host.names import valid_netdev
from rocetune.platforms.linux_host.segments import Segment

_ECN = re.compile(r"(?:\S*/sys/class/net/([^/\s]+))?/?\S*ecn/(roce_np|roce_rp)/(\S+?):\s*(\S*)")
_TCLASS = re.compile(r"(?:Global tclass=)?\s*(\d+)")
_UINT32_MAX = 2**32 - 1
_CNP = {"cnp_dscp": ("cnp_dscp", 63), "cnp_802p_prio": ("cnp_priority", 7)}


def parse_value(field: str, high: int, segment: Segment, notes: Notes) -> Found:
    """A file holding one integer in ``0..high`` (MTU, CNP DSCP, CNP priority)."""
    found = Found()
    lines = take_errors(segment, notes)
    for number, raw in lines:
        value = to_int(raw, 0, high)
        if value is None:
            notes.add(raw, f"{field}: expected one integer 0..{high}", number)
        else:
            found.put(field, value, number)
    return found


def parse_traffic_class(segment: Segment, notes: Notes) -> Found:
    """``tc/1/traffic_class``: the global traffic class (ToS) override, when set."""
    found = Found()
    for number, raw in take_errors(segment, notes):
        match = _TCLASS.fullmatch(raw.strip())
        value = None if match is None else to_int(match.group(1), 0, 255)
        if value is None:
            notes.add(raw, "traffic_class: expected 'Global tclass=<0..255>'", number)
            continue
        found.put("traffic_class", value, number)
        break
    return found


def parse_ecn(segment: Segment, notes: Notes) -> Found:
    """``grep -H`` of the ECN files: DCQCN NP/RP enable per priority, CNP DSCP / priority."""
    found = Found()
    enabled: dict[str, dict[int, bool]] = {}
    params: dict[str, int] = {}
    for number, raw in take_errors(segment, notes):
        line = raw.strip()
        match = _ECN.fullmatch(line)
        if match is None:
            notes.add(line, "ECN sysfs line not understood (expected <path>:<value>)", number)
            continue
        if match.group(1) and valid_netdev(match.group(1)):
            found.name = match.group(1)
        point, leaf, value = match.group(2), match.group(3), match.group(4)
        if leaf.startswith("enable/") or (point == "roce_np" and leaf in _CNP):
            ok = _ecn_value(found, enabled, (point, leaf, value), number)
        else:
            ok = _param(params, leaf, value)
        if not ok:
            notes.add(line, "ECN sysfs value out of range", number)
        elif leaf in params:
            found.lines.setdefault("dcqcn_params", number)
    for point, field in (("roce_rp", "dcqcn_rp"), ("roce_np", "dcqcn_np")):
        if point in enabled:
            found.values[field] = dict(sorted(enabled[point].items()))
    if params:
        found.values["dcqcn_params"] = dict(sorted(params.items()))
    return found


def _ecn_value(
    found: Found, enabled: dict[str, dict[int, bool]], item: tuple[str, str, str], number: int
) -> bool:
    point, leaf, value = item
    if leaf.startswith("enable/"):
        prio = to_int(leaf.removeprefix("enable/"), 0, 7)
        flag = to_int(value, 0, 1)
        if prio is None or flag is None:
            return False
        enabled.setdefault(point, {})[prio] = flag == 1
        found.lines.setdefault("dcqcn_rp" if point == "roce_rp" else "dcqcn_np", number)
        return True
    if point == "roce_np" and leaf in _CNP:
        field, high = _CNP[leaf]
        number_value = to_int(value, 0, high)
        if number_value is None:
            return False
        found.put(field, number_value, number)
        return True
    return False


def _param(params: dict[str, int], leaf: str, value: str) -> bool:
    """A DCQCN parameter file (``roce_rp/rpg_gd:11``) -> ``dcqcn_params`` (RT315)."""
    number_value = None if "/" in leaf else to_int(value, 0, _UINT32_MAX)
    if number_value is None:
        return False
    params[leaf] = number_value
    return True
