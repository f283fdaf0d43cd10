"""Render every device of an inventory: full intended configs, or only what fixes findings.

The inventory is audited first (the same parse and checks as ``rocetune audit``): the model
gives each device's ports, speeds and ASIC, the fabric links give cable lengths, and with
``only_fix`` the findings pick the features to render (:mod:`rocetune.render.fix`). Devices of
platforms without a renderer are skipped with a note, not an error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rocetune.errors import RocetuneError
from rocetune.model import Fabric, Finding
from rocetune.platforms import drivers, get_driver
from rocetune.platforms.spec import FEATURES, RenderSpec
from rocetune.render.core import RenderedFile, render_target
from rocetune.render.fix import features_to_fix
from rocetune.render.writer import write_if_changed
from rocetune.tune.classes import TargetError
from rocetune.tune.target import device_target

Status = Literal["rendered", "skipped", "nothing-to-fix", "error"]


def renderers() -> dict[str, RenderSpec]:
    """Platform name -> its renderer, for the platforms that have templates."""
    return {name: p.render for name, p in drivers().items() if p.render is not None}


@dataclass
class DeviceRender:
    """What happened to one device."""

    name: str
    platform: str | None
    status: Status
    message: str = ""
    files: list[RenderedFile] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    """Paths (relative) whose content changed on disk."""
    notes: tuple[str, ...] = ()


@dataclass
class RenderReport:
    """Every device's outcome, in inventory order."""

    devices: list[DeviceRender]
    only_fix: bool = False

    @property
    def failed(self) -> list[DeviceRender]:
        """Devices that could not be rendered (input problems: exit 2)."""
        return [d for d in self.devices if d.status == "error"]

    def platforms(self) -> list[str]:
        """Platforms rocetune can render."""
        return list(renderers())


def render_device(
    fabric: Fabric, name: str, features: frozenset[str] | None = None
) -> DeviceRender:
    """Render one device of ``fabric`` (``features`` None = the full intended config)."""
    dev = fabric.devices[name]
    driver = get_driver(dev.platform)  # that platform's package only (renderers() imports all)
    spec = driver.render if driver is not None else None
    if spec is None:
        done = ", ".join(renderers())
        msg = f"rendering {dev.platform} is not supported yet (rendered: {done})"
        return DeviceRender(name, dev.platform, "skipped", msg)
    full = features is None
    try:
        target = device_target(dev, fabric.intent, fabric.links)
        files = render_target(target, spec, features or frozenset(FEATURES), full=full)
    except (RocetuneError, TargetError) as exc:
        return DeviceRender(name, dev.platform, "error", str(exc))
    return DeviceRender(name, dev.platform, "rendered", files=files, notes=target.problems)


def render_fabric(
    fabric: Fabric, findings: Iterable[Finding] | None = None, *, only_fix: bool = False
) -> RenderReport:
    """Render every device of ``fabric``; with ``only_fix`` only what ``findings`` ask for."""
    wanted = features_to_fix(findings or (), fabric.links, fabric.devices) if only_fix else {}
    out: list[DeviceRender] = []
    for name in fabric.devices:
        if only_fix and not wanted.get(name):
            platform = fabric.devices[name].platform
            out.append(DeviceRender(name, platform, "nothing-to-fix", "no finding to fix"))
            continue
        out.append(render_device(fabric, name, wanted.get(name) if only_fix else None))
    return RenderReport(out, only_fix)


def write_report(report: RenderReport, out_dir: Path) -> RenderReport:
    """Write every rendered file under ``out_dir`` (write-if-changed)."""
    for dev in report.devices:
        for f in dev.files:
            if write_if_changed(out_dir / f.path, f.text):
                dev.written.append(f.path)
    return report
