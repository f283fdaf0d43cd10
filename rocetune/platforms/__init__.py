"""Platform registry: the explicit list of supported platforms.

Only code under ``rocetune/platforms/`` knows vendor syntax. Each name in :data:`PLATFORMS` is
a package ``rocetune.platforms.<name>`` whose ``__init__.py`` builds one
:class:`~rocetune.platforms.base.Platform` value named ``PLATFORM`` (collect, parse, limits,
render, plan, apply). Adding a platform = that package + its line here (CONTRIBUTING.md).
Packages are imported on first use, so the CLI starts without loading every parser.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rocetune.platforms.base import Platform

PLATFORMS: tuple[str, ...] = (
    "sonic",
    "cumulus",
    "eos",
    "nxos",
    "onyx",
    "enterprise_sonic",
    "linux_host",  # hosts after the switch platforms
)
"""The registry: every platform package, in auto-detection order."""

PLANNED: dict[str, str] = {
    "junos": "Juniper Junos",
}
"""Platform names an inventory may use that have no package yet (their devices yield RT002)."""

KNOWN_PLATFORMS: tuple[str, ...] = (*PLATFORMS, *PLANNED)
"""Every platform name an inventory may use."""


def load(name: str) -> Platform:
    """Import the package of ``name`` (a :data:`PLATFORMS` entry) and return its value."""
    from rocetune.platforms.base import Platform

    platform = getattr(import_module(f"{__name__}.{name}"), "PLATFORM", None)
    if not isinstance(platform, Platform) or platform.name != name:
        msg = f"rocetune.platforms.{name}.PLATFORM is not the Platform value named {name!r}"
        raise TypeError(msg)
    return platform


@cache
def _loaded(name: str) -> Platform:
    return load(name)


@cache
def drivers() -> dict[str, Platform]:
    """Every supported platform by name, in auto-detection order (imports every package)."""
    return {name: _loaded(name) for name in PLATFORMS}


def get_driver(name: str) -> Platform | None:
    """The platform ``name`` or None when it is not supported yet (imports only its package)."""
    return _loaded(name) if name in PLATFORMS else None
