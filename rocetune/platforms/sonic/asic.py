"""ASIC family and gearbox delay from DEVICE_METADATA ``platform`` / ``hwsku``.

Only NVIDIA/Mellanox Spectrum switches are recognised: their SONiC platform and HWSKU names
carry the model number (``x86_64-mlnx_msn2700-r0``, ``x86_64-nvidia_sn5600-r0``,
``Mellanox-SN3800-D112C8``, ``ACS-MSN4700``). The model -> Spectrum generation table is the
one of sonic-buildimage ``platform/mellanox/asic_table.j2`` (docs/buffers.md); SN2xxx, SN3xxx
and SN4xxx models it does not list follow their first digit (Spectrum-1, -2, -3). Other SN5
and SN6 models are not guessed. The gearbox delay is that of ``peripheral_table.j2`` (only
the SN3800 has one there). A platform sonic-buildimage marks ``broadcom`` (its
``platform_asic`` file, copied in ``pg_profile_lookup/platform_asic.tsv``) is ``broadcom``:
a shared-headroom-pool ASIC whose constants SONiC does not publish (docs/buffers.md).
Other vendors' names do not reliably name the ASIC: None.
"""

from __future__ import annotations

import re

from rocetune.platforms.sonic.sku_tables import platform_asic

_MLNX_CONTEXT = re.compile(r"mlnx|mellanox|nvidia|acs-msn|acs-sn", re.IGNORECASE)
_SN_MODEL = re.compile(r"(?:^|[^a-z0-9])m?sn(\d)(\d{3})(?![0-9])", re.IGNORECASE)
_GENERATION = {"2": "spectrum1", "3": "spectrum2", "4": "spectrum3"}
_MODELS = {
    **dict.fromkeys(("2010", "2100", "2201", "2410", "2700", "2740"), "spectrum1"),
    **dict.fromkeys(("3420", "3700", "3800"), "spectrum2"),
    **dict.fromkeys(("4280", "4410", "4600", "4700", "4800"), "spectrum3"),
    **dict.fromkeys(("5400", "5600", "5610"), "spectrum4"),
    "5640": "spectrum5",
    **dict.fromkeys(("6600", "6810"), "spectrum6"),
}
_GEARBOX_NS = {"3800": 400.0}
"""PERIPHERAL_TABLE gearbox_delay per model (ns)."""


def _model(platform: str | None, hwsku: str | None) -> str | None:
    for name in (platform, hwsku):
        if not name or not _MLNX_CONTEXT.search(name):
            continue
        m = _SN_MODEL.search(name)
        if m is not None:
            return m.group(1) + m.group(2)
    return None


def asic_family(platform: str | None, hwsku: str | None) -> str | None:
    """Return ``spectrum1`` .. ``spectrum6`` or ``broadcom`` when the names tell, else None."""
    model = _model(platform, hwsku)
    if model is None:
        return "broadcom" if platform_asic(platform) else None
    return _MODELS.get(model) or _GENERATION.get(model[0])


def gearbox_delay_ns(platform: str | None, hwsku: str | None) -> float | None:
    """The platform's gearbox delay in ns; 0 for a known Spectrum model without a gearbox."""
    model = _model(platform, hwsku)
    if model is None or asic_family(platform, hwsku) is None:
        return None
    return _GEARBOX_NS.get(model, 0.0)
