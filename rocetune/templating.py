"""Find the shipped Jinja templates (``templates/``) and load them, for render and report.

Templates live in ``templates/<platform>/`` (and ``templates/report/``) of a source checkout
and are shipped in the wheel as ``rocetune/_data/templates`` (pyproject force-include).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import BaseLoader, Environment, TemplateNotFound
from jinja2.loaders import split_template_path

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable


def templates_root(platform: str) -> Traversable | None:
    """``templates/`` holding ``<platform>/``: installed data first, then the source checkout."""
    installed = resources.files("rocetune").joinpath("_data").joinpath("templates")
    if installed.joinpath(platform).is_dir():
        return installed
    checkout = Path(__file__).resolve().parents[1] / "templates"
    if (checkout / platform).is_dir():
        return checkout
    return None


class TemplateLoader(BaseLoader):
    """Load templates from a directory or an importlib.resources traversable."""

    def __init__(self, root: Traversable) -> None:
        self.root = root

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        """The template's text (Jinja splits the name and refuses ``..``)."""
        node = self.root
        for piece in split_template_path(template):
            node = node.joinpath(piece)
        if not node.is_file():
            raise TemplateNotFound(template)
        return node.read_text(encoding="utf-8"), None, lambda: True
