"""Readers for NVUE scalar values: numbers, on/off switches, speeds, alphas and id lists.

Every reader returns ``None`` when the value cannot be read; the caller records an
:class:`~rocetune.model.Unparsed` item for it. Values may come from NVUE YAML (ints, strings)
or from ``nv set`` command text (always strings); both must read the same.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

_TRUE = frozenset({"on", "enable", "enabled", "true", "yes", "up"})
_FALSE = frozenset({"off", "disable", "disabled", "false", "no", "down"})
_INT = re.compile(r"\s*\d+\s*")
_NUMBER = re.compile(r"\s*\d+(?:\.\d+)?\s*")
_SPEED = re.compile(r"(?i)\s*(\d+(?:\.\d+)?)\s*([MGT])(?:b|bps|b/s)?\s*")
_SPEED_FACTOR = {"M": 1, "G": 1000, "T": 1_000_000}
_ALPHA = re.compile(r"(?i)alpha_(infinity|\d+)(?:_(\d+))?")
_MAX_RANGE = 4096
_NAME_TOKEN = re.compile(
    r"(?P<prefix>[A-Za-z](?:[A-Za-z0-9_.]*[A-Za-z_.])?)?(?P<start>\d+)"
    r"(?:-(?P<prefix2>[A-Za-z](?:[A-Za-z0-9_.]*[A-Za-z_.])?)?(?P<end>\d+))?"
)


def as_int(value: object) -> int | None:
    """Read a non-negative integer (``9216``, ``"9216"``); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, str) and _INT.fullmatch(value):
        return int(value)
    return None


def as_number(value: object) -> float | None:
    """Read a non-negative number (int, float or numeric string); None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
        return number if number >= 0 and math.isfinite(number) else None
    if isinstance(value, str) and _NUMBER.fullmatch(value):
        return float(value)
    return None


def as_switch(value: object) -> bool | None:
    """Read NVUE on/off words (``on``, ``enable``, ``enabled``, ``off``, ...); None otherwise."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    return None


def as_speed_mbps(value: object) -> int | None:
    """Read a link speed (``100G``, ``400G``, ``25g``, ``100000``) in Mb/s; None otherwise."""
    if isinstance(value, str):
        found = _speed_text(value)
        if found is not None:
            return found
    return as_int(value)


@lru_cache(maxsize=256)
def _speed_text(value: str) -> int | None:
    """:func:`as_speed_mbps` of a speed with a unit (one int object per spelling: every port
    of a switch at 400G holds the same 400000)."""
    match = _SPEED.fullmatch(value)
    if match:
        return round(float(match.group(1)) * _SPEED_FACTOR[match.group(2).upper()])
    return None


def as_alpha(value: object) -> float | None:
    """Read an NVUE shared-buffer alpha (``alpha_1_8`` = 1/8, ``alpha_infinity`` = inf)."""
    if not isinstance(value, str):
        return None
    match = _ALPHA.fullmatch(value.strip())
    if match is None:
        return None
    if match.group(1).lower() == "infinity":
        return math.inf if match.group(2) is None else None
    numerator = float(match.group(1))
    if match.group(2) is None:
        return numerator
    denominator = float(match.group(2))
    return numerator / denominator if denominator else None


def expand_ids(value: object, low: int, high: int) -> list[int] | None:
    """Expand an NVUE id list (``3``, ``"0-3,5-7"``, ``"4,5,7"``) within ``low..high``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value] if low <= value <= high else None
    if not isinstance(value, str) or not value.strip():
        return None
    found: list[int] = []
    for part in value.split(","):
        bounds = part.strip().split("-")
        if len(bounds) > 2 or not all(_INT.fullmatch(b) for b in bounds):
            return None
        start, end = int(bounds[0]), int(bounds[-1])
        if not low <= start <= end <= high:
            return None
        found.extend(range(start, end + 1))
    return sorted(set(found))


def expand_names(value: str) -> list[str] | None:
    """Expand an NVUE interface key (``swp1-4``, ``swp1,swp3``, ``swp2,6``, ``swp1s0-3``).

    A token without a name prefix reuses the prefix of the token before it (NVUE writes
    ``swp2,6`` for swp2 and swp6). Names without digits (``lo``, ``br_default``) pass
    unchanged. Returns None when a token cannot be read or a range is reversed or huge.
    """
    names: list[str] = []
    prefix: str | None = None
    for raw in value.split(","):
        token = raw.strip()
        if not token:
            return None
        match = _NAME_TOKEN.fullmatch(token)
        if match is None:
            if any(ch.isdigit() for ch in token) or "-" in token:
                return None
            names.append(token)
            prefix = token
            continue
        prefix = match.group("prefix") or prefix
        second = match.group("prefix2")
        if prefix is None or (second is not None and second != prefix):
            return None
        start = int(match.group("start"))
        end = int(match.group("end") or start)
        if end < start or end - start > _MAX_RANGE:
            return None
        names.extend(f"{prefix}{n}" for n in range(start, end + 1))
    return names
