"""Platform registry: the explicit list of supported platforms.

Only code under ``rocetune/platforms/`` knows vendor syntax.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rocetune.platforms.base import PlatformDriver

KNOWN_PLATFORMS: dict[str, str] = {
    "sonic": "SONiC (config_db.json)",
    "cumulus": "NVIDIA Cumulus Linux 5.x (NVUE)",
    "eos": "Arista EOS",
    "nxos": "Cisco NX-OS",
    "linux_host": "Linux host with NVIDIA ConnectX NICs",
    "onyx": "NVIDIA Onyx",
    "junos": "Juniper Junos",
}
"""Every platform name an inventory may use; those without a driver yet yield RT002."""


@cache
def drivers() -> dict[str, PlatformDriver]:
    """Return the supported platform drivers by name, in auto-detection order."""
    from rocetune.platforms.cumulus import CumulusDriver
    from rocetune.platforms.eos import EosDriver
    from rocetune.platforms.linux_host import LinuxHostDriver
    from rocetune.platforms.nxos import NxosDriver
    from rocetune.platforms.sonic import SonicDriver

    found: list[PlatformDriver] = [SonicDriver(), CumulusDriver(), EosDriver(), NxosDriver()]
    found.append(LinuxHostDriver())  # hosts after the switch platforms
    return {d.name: d for d in found}


def get_driver(name: str) -> PlatformDriver | None:
    """Return the driver for ``name`` or None when the platform is not supported yet."""
    return drivers().get(name)
