"""Render one device target into files: capability check, value validation, templates.

Order of refusals, all before any template runs: unsafe names (interfaces, hostname) ->
capability check (the platform cannot express the intent) -> unsafe context values. Each
raises a :class:`~rocetune.errors.RocetuneError` subclass whose message names the device.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rocetune.errors import RocetuneError
from rocetune.platforms.spec import FEATURES, RenderSpec
from rocetune.render.env import environment
from rocetune.render.validate import check_context, check_name, problem_of_text
from rocetune.tune.target import DeviceTarget

if TYPE_CHECKING:
    import sys

    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

PORT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_./:-]{0,63}$")
"""Interface names that may reach a template (no spaces, commas, separators or controls)."""
REASONS_PATH = "reasons/{device}.reasons.txt"


class CapabilityError(RocetuneError):
    """The platform cannot express the intent (checked before rendering)."""


@dataclass(frozen=True)
class RenderedFile:
    """One output file: path relative to the output directory, text, lintable or not."""

    path: str
    text: str
    lintable: bool = False


def check_names(target: DeviceTarget) -> None:
    """Refuse interface names and the hostname when they could inject commands."""
    check_name(target.name, "device name", target.name)
    if target.hostname is not None:
        check_name(target.hostname, "hostname", target.name)
    for name in (*target.ports, *target.left_out, *target.nics):
        check_name(name, "interface name", target.name)
        if not PORT_RE.match(name):
            msg = (
                f"{target.name}: refusing to render: interface name {name!r} is not a plain "
                "interface name (letters, digits, _ . / : -)"
            )
            raise CapabilityError(msg)


def check_capability(target: DeviceTarget, spec: RenderSpec) -> None:
    """Raise CapabilityError when ``spec``'s platform cannot express ``target``."""
    problems: list[str] = []
    lossless = target.classes.lossless
    if len(lossless) > spec.max_lossless_priorities:
        problems.append(
            f"{len(lossless)} lossless priorities {list(lossless)}: {spec.platform} expresses at "
            f"most {spec.max_lossless_priorities}"
        )
    problems.extend(spec.capability(target))
    if problems:
        msg = f"{target.name}: {spec.platform} cannot express the intent: " + "; ".join(problems)
        raise CapabilityError(msg)


def reasons_text(target: DeviceTarget) -> str:
    """The sidecar reasons file: one line per computed value, grouped by scope."""
    lines = [
        f"# rocetune: why each value of {target.name} ({target.platform}) is what it is",
        "# scope: setting = value: formula and inputs",
    ]
    lines.extend(r.full() for r in target.all_reasons())
    lines.extend(f"# note: {p}" for p in target.problems)
    for line in lines:
        why = problem_of_text(line)
        if why is not None:
            raise RocetuneError(f"{target.name}: refusing to write a reason that {why}")
    return "\n".join(lines) + "\n"


def render_target(
    target: DeviceTarget,
    spec: RenderSpec,
    features: frozenset[str] = frozenset(FEATURES),
    *,
    full: bool = True,
    root: Traversable | None = None,
) -> list[RenderedFile]:
    """Render ``target`` with ``spec``: validated, capability-checked, one file per output."""
    check_names(target)
    check_capability(target, spec)
    context = spec.build(target, features, full)
    context["reasons"] = [r.full() for r in target.all_reasons()]
    check_context(context, target.name)
    env = environment(spec.platform, root)
    out: list[RenderedFile] = []
    for output in spec.outputs:
        if output.full_only and not full:
            continue
        text = env.get_template(output.template).render(context)
        out.append(RenderedFile(output.path.format(device=target.name), text, output.lintable))
    out.append(RenderedFile(REASONS_PATH.format(device=target.name), reasons_text(target)))
    return out
