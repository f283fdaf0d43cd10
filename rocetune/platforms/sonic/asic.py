"""ASIC family from DEVICE_METADATA ``platform`` / ``hwsku``.

Only NVIDIA/Mellanox Spectrum switches are recognised: their SONiC platform and HWSKU names
carry the model number (``x86_64-mlnx_msn2700-r0``, ``x86_64-nvidia_sn5600-r0``,
``Mellanox-SN3800-D112C8``, ``ACS-MSN4700``), and the first digit of an SN model is its
Spectrum generation: SN2xxx Spectrum-1, SN3xxx Spectrum-2, SN4xxx Spectrum-3. SN5xxx is
only mapped for the known Spectrum-4 models (SN5400, SN5600) because later SN5 models may
carry a newer ASIC. Other vendors' names do not reliably name the ASIC, so they give None.
"""

from __future__ import annotations

import re

_MLNX_CONTEXT = re.compile(r"mlnx|mellanox|nvidia|acs-msn", re.IGNORECASE)
_SN_MODEL = re.compile(r"(?:^|[^a-z0-9])m?sn(\d)(\d{3})(?![0-9])", re.IGNORECASE)
_GENERATION = {"2": "spectrum1", "3": "spectrum2", "4": "spectrum3"}
_SPECTRUM4 = frozenset({"5400", "5600"})


def asic_family(platform: str | None, hwsku: str | None) -> str | None:
    """Return ``spectrum1`` .. ``spectrum4`` when the names tell, else None."""
    for name in (platform, hwsku):
        if not name or not _MLNX_CONTEXT.search(name):
            continue
        m = _SN_MODEL.search(name)
        if m is None:
            continue
        model = m.group(1) + m.group(2)
        if m.group(1) == "5":
            return "spectrum4" if model in _SPECTRUM4 else None
        family = _GENERATION.get(m.group(1))
        if family is not None:
            return family
    return None
