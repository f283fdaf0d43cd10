"""The Jinja environment of the config templates: sandboxed, StrictUndefined, no autoescape.

Templates live in ``templates/<platform>/`` of a source checkout and are shipped in the wheel
as ``rocetune/_data/templates`` (pyproject force-include). Output is plain text in the
platform's own syntax, so there is no HTML autoescaping; instead every string that reaches a
template is validated first (:mod:`rocetune.render.validate`), and values are written through
the ``json`` filter (JSON documents) or as checked tokens (CLI and YAML).
"""

from __future__ import annotations

import json
import sys
from functools import cache
from typing import TYPE_CHECKING, Any

from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from rocetune.errors import RocetuneError
from rocetune.templating import TemplateLoader, templates_root

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable


def to_json(value: Any, indent: int | None = None, level: int = 0) -> str:
    """JSON text of ``value`` (sorted keys); continuation lines indented by ``level`` spaces."""
    text = _encoder(indent).encode(value)
    return text.replace("\n", "\n" + " " * level) if level else text


@cache
def _encoder(indent: int | None) -> json.JSONEncoder:
    """The encoder ``json.dumps(value, indent=indent, sort_keys=True, ensure_ascii=True)``
    builds on every call (a template writes a few hundred values per device), built once."""
    return json.JSONEncoder(indent=indent, sort_keys=True, ensure_ascii=True)


def environment(platform: str, root: Traversable | None = None) -> SandboxedEnvironment:
    """The sandboxed, strict environment for ``templates/<platform>/``.

    The installed templates' environment is built once per platform and run (its compiled
    templates are reused for every device: compiling them per device cost ~40 % of a
    render); an explicit ``root`` gets a fresh one."""
    if root is None:
        return _installed(platform)
    return _build(platform, root)


@cache
def _installed(platform: str) -> SandboxedEnvironment:
    return _build(platform, None)


def _build(platform: str, root: Traversable | None) -> SandboxedEnvironment:
    base = root if root is not None else templates_root(platform)
    if base is None:
        raise RocetuneError(f"the {platform} config templates are not installed (templates/)")
    env = SandboxedEnvironment(
        loader=TemplateLoader(base),
        autoescape=False,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["json"] = to_json
    return env
