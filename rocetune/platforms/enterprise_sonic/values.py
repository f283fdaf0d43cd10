"""Value syntax of sonic-cli lines: index lists, bounded integers, units."""

from __future__ import annotations

import re

KBYTE = 1000
"""WRED thresholds are given in KBytes of 1000 bytes: the Dell Ansible collection documents
the byte range 1000-12480000 and shows 1000 bytes as ``1 KBytes`` in ``show qos
wred-policy``; the AMD guide's ``maximum-threshold 12480`` is that range's top
(docs/platforms/enterprise_sonic.md)."""
_INT = re.compile(r"\d{1,9}")
_PART = re.compile(r"(\d{1,3})(?:-(\d{1,3}))?")


def small_int(text: str, high: int) -> int | None:
    """A decimal integer in 0..high, else None."""
    if not _INT.fullmatch(text):
        return None
    value = int(text)
    return value if value <= high else None


def index_list(text: str, high: int) -> list[int] | None:
    """``0-3,5-23,25`` -> the integers (each in 0..high); None when malformed."""
    out: list[int] = []
    for part in text.split(","):
        match = _PART.fullmatch(part)
        if match is None:
            return None
        lo = int(match.group(1))
        hi = int(match.group(2)) if match.group(2) else lo
        if hi < lo or hi > high:
            return None
        out.extend(range(lo, hi + 1))
    return out
