"""NX-OS value syntax: number lists and ranges, DSCP names, sizes, speeds, interface names.

- Lists: ``18,20,22``, ``1-2,4``, ``0 1 2 3`` (IOS-style blanks, seen in Nexus 5000 configs),
  ``3-4``. Every value must lie in the field's range, otherwise the whole list is invalid.
- DSCP names (Cisco QoS keywords): ``af11``..``af43`` (8*class + 2*drop), ``cs0``..``cs7``
  (8*n), ``ef`` (46), ``default`` (0); IP precedence p covers DSCP 8p..8p+7.
- Sizes: ``bytes``, ``kbytes``, ``mbytes`` as decimal multiples (1 KB = 1000 B, the unit the
  rocetune intent uses; the NX-OS guides do not say whether kbytes is 1000 or 1024 B)
  **[unverified]**; ``packets`` cannot be converted and yields None.
- Speeds: ``speed 100000`` is in Mb/s; ``auto`` is not a speed.
- Interface names: ``Ethernet1/1``, ``Ethernet1/1/2`` (breakout), abbreviations ``Eth1/1``
  and ``e1/1``, any case, with or without a blank before the number -> ``Ethernet1/1``.
"""

from __future__ import annotations

import re

DSCP_NAMES: dict[str, int] = {
    **{f"af{c}{d}": 8 * c + 2 * d for c in range(1, 5) for d in range(1, 4)},
    **{f"cs{n}": 8 * n for n in range(8)},
    "ef": 46,
    "default": 0,
}
SIZE_FACTORS: dict[str, int] = {"bytes": 1, "kbytes": 1000, "mbytes": 1_000_000}
_RANGE = re.compile(r"(\d{1,6})(?:-(\d{1,6}))?")
_ETH = re.compile(r"(?i)(?:ethernet|eth|e)\s*(\d{1,3}(?:/\d{1,3}){1,2})")
_INT = re.compile(r"\d{1,12}")
_MAX_LIST = 4096


def parse_int(text: str, low: int = 0, high: int = 10**12) -> int | None:
    """An unsigned decimal integer in [low, high], else None."""
    if not _INT.fullmatch(text):
        return None
    value = int(text)
    return value if low <= value <= high else None


def parse_list(
    words: list[str], high: int, names: dict[str, int] | None = None
) -> list[int] | None:
    """A list of values in [0, high] from comma/blank separated numbers, ranges and names."""
    out: list[int] = []
    for word in words:
        for part in word.split(","):
            if not part:
                continue
            got = _one(part.lower(), high, names or {})
            if got is None:
                return None
            out.extend(got)
            if len(out) > _MAX_LIST:
                return None
    return sorted(set(out)) if out else None


def _one(part: str, high: int, names: dict[str, int]) -> list[int] | None:
    if part in names:
        return [names[part]]
    match = _RANGE.fullmatch(part)
    if match is None:
        return None
    low = int(match.group(1))
    top = int(match.group(2)) if match.group(2) else low
    if not 0 <= low <= top <= high:
        return None
    return list(range(low, top + 1))


def precedence_dscps(precedences: list[int]) -> list[int]:
    """DSCPs whose top three bits are one of ``precedences``."""
    return [8 * p + low for p in precedences for low in range(8)]


def parse_size(value: str, unit: str) -> int | None:
    """``300`` ``kbytes`` -> 300000 bytes; None for packets, unknown units or bad numbers."""
    factor = SIZE_FACTORS.get(unit.lower())
    number = parse_int(value, 0, 10**9)
    if factor is None or number is None:
        return None
    return number * factor


def parse_speed(word: str) -> int | None:
    """``speed 100000`` -> 100000 Mb/s; None for ``auto`` or anything else."""
    return parse_int(word, 10, 1_600_000)


def ethernet_name(text: str) -> str | None:
    """``Eth1/1``, ``ethernet 1/1/2`` -> ``Ethernet1/1``, ``Ethernet1/1/2``; None otherwise."""
    match = _ETH.fullmatch(text.strip())
    if match is None:
        return None
    return "Ethernet" + match.group(1)


def normalise_port(text: str) -> str:
    """An NX-OS Ethernet name in canonical form; any other name unchanged."""
    return ethernet_name(text) or text.strip()


def interface_names(words: list[str]) -> list[str] | None:
    """Names of an ``interface`` line: one name, a last-number range or a comma list.

    ``Ethernet1/1`` / ``Ethernet 1/1`` -> one; ``Ethernet1/1-4`` -> four; ``Ethernet1/1,
    Ethernet1/3`` -> two. None when any part is not an Ethernet port (port-channel, Vlan,
    loopback, mgmt0, sub-interfaces are not switch ports of the model).
    """
    out: list[str] = []
    for part in "".join(words).split(","):
        if not part:
            continue
        expanded = _expand(part)
        if expanded is None:
            return None
        out.extend(expanded)
    return out or None


def _expand(part: str) -> list[str] | None:
    head, sep, tail = part.rpartition("-")
    if sep and head and tail.isdigit():
        first = ethernet_name(head)
        if first is None:
            return None
        prefix, _, start = first.rpartition("/")
        low, high = int(start), int(tail)
        if not 0 <= high - low < 1024:
            return None
        return [f"{prefix}/{n}" for n in range(low, high + 1)]
    name = ethernet_name(part)
    return None if name is None else [name]
