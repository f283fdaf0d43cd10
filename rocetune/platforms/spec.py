"""What a platform's ``context.py`` tells the renderer: features, outputs, capabilities.

Every platform that can be rendered defines one :class:`RenderSpec` named ``RENDER`` in
``rocetune/platforms/<p>/context.py``; the platform's ``Platform.render`` carries it.
Platforms define it and the renderer reads it, so it lives here, below both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rocetune.tune.target import DeviceTarget

FEATURES: tuple[str, ...] = (
    "link",
    "classification",
    "pfc",
    "buffers",
    "scheduling",
    "ecn",
    "watchdog",
    "nic",
)
"""Vendor-neutral features, in render order; ``--only-fix`` selects a subset of them."""


@dataclass(frozen=True)
class Output:
    """One rendered file: its template and its path under the output directory."""

    template: str
    """``<platform>/<name>.j2``."""
    path: str
    """Relative path; ``{device}`` is replaced by the device name."""
    full_only: bool = False
    """Written only by a full render (not with ``--only-fix``): the complete intended config."""
    lintable: bool = False
    """A config ``rocetune lint`` reads (the round trip parses it)."""


@dataclass(frozen=True)
class RenderSpec:
    """A platform's renderer."""

    platform: str
    outputs: tuple[Output, ...]
    max_lossless_priorities: int
    """How many lossless priorities the platform can express (capability check)."""
    capability: Callable[[DeviceTarget], list[str]]
    """Platform-specific reasons it cannot express the target (empty = it can)."""
    build: Callable[[DeviceTarget, frozenset[str], bool], dict[str, Any]]
    """(target, selected neutral features, full render?) -> the template context."""
