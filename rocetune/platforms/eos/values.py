"""EOS value readers: interface names and ranges, speeds, number lists, seconds, thresholds.

Every reader returns ``None`` when the text cannot be read; the caller records an
:class:`~rocetune.model.Unparsed` item for the line.

Units (roce-knowledge.md §2.4, S18): ``random-detect`` thresholds take ``segments | bytes |
kbytes | mbytes | milliseconds`` (drop thresholds also ``microseconds``). ``kbytes`` and
``mbytes`` are read as 1000 and 1,000,000 bytes (the project convention: KB = 1000 B unless the
source says otherwise). A *segment* is a buffer cell whose size is platform specific;
:data:`SEGMENT_BYTES` = 208 B (Broadcom Trident2/Tomahawk MMU cell) is an assumption
**[unverified]** and is recorded in the device facts whenever it is used. Time thresholds are
converted with the port speed (bytes = seconds x bits per second / 8); without a known speed
they stay unconverted. Watchdog timers are decimal seconds and become milliseconds.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

SEGMENT_BYTES = 208
"""Bytes per ECN/WRED threshold segment (buffer cell) **[unverified]**; see the module doc."""

BYTE_UNITS: dict[str, int] = {
    "bytes": 1,
    "kbytes": 1000,
    "mbytes": 1_000_000,
    "segments": SEGMENT_BYTES,
}
TIME_UNITS: dict[str, float] = {"milliseconds": 1e-3, "microseconds": 1e-6}
MAX_RANGE = 1024
"""Largest interface or value range expanded; bigger ranges are unreadable."""

_PREFIXES: dict[str, str] = {
    "ethernet": "Ethernet",
    "eth": "Ethernet",
    "et": "Ethernet",
    "port-channel": "Port-Channel",
    "po": "Port-Channel",
    "management": "Management",
    "ma": "Management",
    "loopback": "Loopback",
    "lo": "Loopback",
    "vlan": "Vlan",
    "vl": "Vlan",
    "vxlan": "Vxlan",
    "vx": "Vxlan",
    "tunnel": "Tunnel",
    "recirc-channel": "Recirc-Channel",
    "switch": "Switch",
}
_NAME = re.compile(r"([A-Za-z][A-Za-z-]*?)(\d+(?:/\d+)*(?:\.\d+)?)")
_ITEM = re.compile(r"([A-Za-z][A-Za-z-]*?)?(\d+(?:/\d+)*)(?:-(\d+))?")
_SHORT = re.compile(r"(Et|Eth|Po|Ma)(\d+(?:/\d+)*(?:\.\d+)?)")
_SPEED = re.compile(r"(\d+(?:p\d+)?)(g?)(?:-\d+)?(?:full|half)?")
_SECONDS = re.compile(r"\d+(?:\.\d+)?")
_INT = re.compile(r"\d{1,9}")


@dataclass(frozen=True, slots=True)
class Threshold:
    """A ``random-detect`` threshold as written: a number and its unit."""

    value: float
    unit: str

    def to_bytes(self, speed_mbps: int | None) -> int | None:
        """The threshold in bytes; None for a time unit on a port of unknown speed."""
        if self.unit in BYTE_UNITS:
            return round(self.value * BYTE_UNITS[self.unit])
        if speed_mbps is None:
            return None
        seconds = self.value * TIME_UNITS[self.unit]
        return round(seconds * speed_mbps * 1_000_000 / 8)


def as_int(text: str, low: int = 0, high: int = 1_000_000_000) -> int | None:
    """Read a decimal integer inside [low, high]; None otherwise."""
    if not _INT.fullmatch(text):
        return None
    value = int(text)
    return value if low <= value <= high else None


def as_number(text: str) -> float | None:
    """Read a non-negative decimal number; None otherwise."""
    if not _SECONDS.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def seconds_to_ms(text: str) -> float | None:
    """Read decimal seconds (``0.05``) as milliseconds (``50.0``); None otherwise."""
    value = as_number(text)
    return None if value is None else round(value * 1000, 6)


def threshold(number: str, unit: str) -> Threshold | None:
    """Read ``320`` + ``kbytes`` as a :class:`Threshold`; None for bad numbers or units."""
    value = as_number(number)
    if value is None or (unit not in BYTE_UNITS and unit not in TIME_UNITS):
        return None
    return Threshold(value, unit)


def int_list(tokens: list[str], high: int) -> list[int] | None:
    """Read ``8 9 10-12,14`` into values in [0, high]; None when any token is unreadable."""
    out: list[int] = []
    for token in ",".join(tokens).split(","):
        if not token:
            continue
        low_text, _, high_text = token.partition("-")
        low = as_int(low_text, 0, high)
        top = low if not high_text else as_int(high_text, 0, high)
        if low is None or top is None or top < low:
            return None
        out.extend(range(low, top + 1))
    return out or None


def speed_mbps(words: list[str]) -> tuple[bool, int | None] | None:
    """Read the words after ``speed``: (auto, Mb/s). ``100g``, ``400g-8``, ``forced 100gfull``,
    ``1000full`` (Mb/s) read as a fixed speed; ``auto ...`` as auto (speed None); None when
    unreadable."""
    if not words:
        return None
    if "auto" in words:
        return True, None
    word = words[-1].lower()
    if words[0] == "forced" and len(words) != 2:
        return None
    if words[0] != "forced" and len(words) != 1:
        return None
    match = _SPEED.fullmatch(word)
    if match is None:
        return None
    number = float(match.group(1).replace("p", "."))
    mbps = number * 1000 if match.group(2) else number
    if not 1 <= mbps <= 10_000_000:
        return None
    return False, round(mbps)


def canonical_name(name: str) -> str | None:
    """``Et1/1`` -> ``Ethernet1/1``, ``port-channel10`` -> ``Port-Channel10``; None when the
    text is not an EOS interface name."""
    match = _NAME.fullmatch(name.strip())
    if match is None:
        return None
    prefix = _PREFIXES.get(match.group(1).lower())
    return None if prefix is None else prefix + match.group(2)


def short_to_long(name: str) -> str:
    """Expand EOS abbreviations (``Et1``, ``Po10``) in a name seen in LLDP; others unchanged."""
    match = _SHORT.fullmatch(name.strip())
    if match is None:
        return name.strip()
    return canonical_name(name) or name.strip()


def expand_interfaces(spec: str) -> list[str] | None:
    """Expand an ``interface`` argument: ``Ethernet1/1-4``, ``Ethernet1-4,6``,
    ``Ethernet1,Ethernet3``, ``Ethernet3/1``; None when unreadable or too large."""
    names: list[str] = []
    prefix: str | None = None
    for item in spec.replace(" ", "").split(","):
        match = _ITEM.fullmatch(item)
        if match is None:
            return None
        if match.group(1):
            prefix = _PREFIXES.get(match.group(1).lower())
        if prefix is None:
            return None
        head, _, last = match.group(2).rpartition("/")
        end = match.group(3)
        first = int(last)
        stop = first if end is None else int(end)
        if stop < first or stop - first >= MAX_RANGE or len(names) > MAX_RANGE:
            return None
        lead = f"{head}/" if head else ""
        names.extend(f"{prefix}{lead}{n}" for n in range(first, stop + 1))
    return names or None
