"""The lossless PG profiles SONiC ships per SKU (``pg_profile_lookup.ini``).

In the traditional buffer model buffermgrd takes each lossless port's speed and cable
length, looks the pair up in the SKU's ``pg_profile_lookup.ini`` and creates the profile
``pg_lossless_<speed>_<cable>_profile`` (size, xon, xoff, dynamic_th) and the port's
lossless BUFFER_PG entries at runtime (docs/buffers.md). The tables of every Mellanox SKU and
of every Broadcom XGS SKU of sonic-buildimage are shipped in ``pg_profile_lookup/`` (see its
SOURCES.md); ``platform_asic.tsv`` there names the Broadcom platforms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

_DIR = "pg_profile_lookup"
_CABLE = re.compile(r"^(\d+)m$")


@dataclass(frozen=True)
class SkuRow:
    """One row of a SKU table: bytes, cable in metres."""

    speed_mbps: int
    cable_m: int
    size: int
    xon: int
    xoff: int
    threshold: int


@dataclass(frozen=True)
class SkuTable:
    """The rows of one SKU's ``pg_profile_lookup.ini``."""

    platform: str
    sku: str
    rows: tuple[SkuRow, ...]

    def row(self, speed_mbps: int, cable_m: int) -> SkuRow | None:
        """The row of exactly this speed and cable length, as buffermgrd looks it up."""
        for r in self.rows:
            if r.speed_mbps == speed_mbps and r.cable_m == cable_m:
                return r
        return None

    def label(self, row: SkuRow) -> str:
        """``ACS-MSN2700 pg_profile_lookup.ini row 100000 5m``."""
        return f"{self.sku} pg_profile_lookup.ini row {row.speed_mbps} {row.cable_m}m"


def parse_table(text: str, platform: str, sku: str) -> SkuTable:
    """Rows of a ``pg_profile_lookup.ini`` text (comments and malformed rows skipped)."""
    rows = []
    for line in text.splitlines():
        parts = line.split()
        if not parts or parts[0].startswith("#") or len(parts) < 5:
            continue
        cable = _CABLE.match(parts[1])
        threshold = parts[5:6] or ["0"]  # dynamic_th, may be negative (Broadcom tables: -1)
        if cable is None or not all(p.isdigit() for p in (parts[0], *parts[2:5])):
            continue
        if not threshold[0].removeprefix("-").isdigit():
            continue
        nums = [int(p) for p in (parts[0], *parts[2:5], threshold[0])]
        rows.append(SkuRow(nums[0], int(cable.group(1)), nums[1], nums[2], nums[3], nums[4]))
    return SkuTable(platform, sku, tuple(rows))


@cache
def _shipped() -> tuple[tuple[str, str], ...]:
    """(platform, SKU) of every shipped table, in platform then file-name order."""
    root = files(__package__ or "rocetune.platforms.sonic").joinpath(_DIR)
    out = []
    for plat in sorted(root.iterdir(), key=lambda p: p.name):
        if not plat.is_dir():
            continue
        for ini in sorted(plat.iterdir(), key=lambda p: p.name):
            if ini.name.endswith(".ini"):
                out.append((plat.name, ini.name[: -len(".ini")]))
    return tuple(out)


@cache
def _table(platform: str, sku: str) -> SkuTable:
    root = files(__package__ or "rocetune.platforms.sonic").joinpath(_DIR)
    return parse_table(root.joinpath(platform, f"{sku}.ini").read_text(), platform, sku)


def all_tables() -> tuple[SkuTable, ...]:
    """Every shipped SKU table."""
    return tuple(_table(plat, sku) for plat, sku in _shipped())


@cache
def _platform_asics() -> dict[str, str]:
    root = files(__package__ or "rocetune.platforms.sonic").joinpath(_DIR)
    out = {}
    for line in root.joinpath("platform_asic.tsv").read_text().splitlines():
        parts = line.split("\t")
        if len(parts) == 2 and not line.startswith("#"):
            out[parts[0].strip()] = parts[1].strip()
    return out


def platform_asic(platform: str | None) -> str | None:
    """sonic-buildimage's ``platform_asic`` of a shipped Broadcom platform (``broadcom``)."""
    return _platform_asics().get(platform or "")


def sku_table(platform: str | None, hwsku: str | None) -> SkuTable | None:
    """The table of a DEVICE_METADATA platform/hwsku, None when rocetune has none."""
    if not hwsku:
        return None
    wanted = hwsku.lower()  # only the tables of this SKU are read (177 are shipped)
    matches = [_table(plat, sku) for plat, sku in _shipped() if sku.lower() == wanted]
    exact = [t for t in matches if platform and t.platform == platform]
    if exact:
        return exact[0]
    unique = {t.rows for t in matches}
    return matches[0] if len(unique) == 1 else None
