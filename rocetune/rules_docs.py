"""Read the rule docs (``rules/RTxxx.md``) in a source checkout or an installed wheel.

The wheel ships ``rules/`` as ``rocetune/_data/rules`` (pyproject ``force-include``); a source
checkout (or an editable install) has them at ``<repo>/rules``. Reporters use the sections
"What it checks" and "How to fix" as SARIF rule descriptions and help text.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

REPOSITORY_URL = "https://github.com/rocetune/rocetune"
"""Home of the project (no URL in pyproject yet; change it here when the repository moves).
Rule doc links point into its ``rules/`` directory."""

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
_HEADING = re.compile(r"^## (.+?)\s*$", re.M)


@dataclass(frozen=True)
class RuleDoc:
    """One rule doc: its title line and its ``##`` sections (heading -> markdown body)."""

    code: str
    title: str
    sections: dict[str, str] = field(default_factory=dict)

    @property
    def what(self) -> str:
        """The "What it checks" section (empty when absent)."""
        return self.sections.get("What it checks", "")

    @property
    def fix(self) -> str:
        """The "How to fix" section (empty when absent)."""
        return self.sections.get("How to fix", "")


DOCS_URL_ENV = "ROCETUNE_DOCS_URL"
"""Environment variable with a rule-doc address pattern, ``{code}`` replaced by the rule code
(e.g. an internal mirror: ``https://git.example.com/rocetune/rules/{code}.md``)."""


def doc_url(code: str) -> str:
    """Web address of a rule's doc: ``$ROCETUNE_DOCS_URL`` with ``{code}`` filled in when set,
    else the doc in the repository."""
    pattern = os.environ.get(DOCS_URL_ENV, "")
    if "{code}" in pattern:
        return pattern.replace("{code}", code)
    return f"{REPOSITORY_URL}/blob/main/rules/{code}.md"


def docs_file(name: str) -> Traversable | None:
    """A shipped file of ``docs/`` (sources.md, roce-knowledge.md): installed data first
    (``rocetune/_data/docs``), then the source checkout; None when neither has it."""
    installed = resources.files("rocetune").joinpath("_data").joinpath("docs").joinpath(name)
    if installed.is_file():
        return installed
    checkout = Path(__file__).resolve().parent.parent / "docs" / name
    return checkout if checkout.is_file() else None


def rules_dir() -> Traversable | None:
    """The directory holding ``RTxxx.md``: installed data first, then the source checkout."""
    installed = resources.files("rocetune").joinpath("_data").joinpath("rules")
    if installed.is_dir():
        return installed
    checkout = Path(__file__).resolve().parent.parent / "rules"
    if (checkout / "README.md").is_file() or any(checkout.glob("RT*.md")):
        return checkout
    return None


def parse_doc(code: str, text: str) -> RuleDoc:
    """Split a rule doc into its title and ``##`` sections (front matter dropped)."""
    body = _FRONT_MATTER.sub("", text.replace("\r\n", "\n"), count=1)
    first, _, _ = body.partition("\n")
    title = first[2:].strip() if first.startswith("# ") else code
    parts = _HEADING.split(body)
    sections = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    return RuleDoc(code=code, title=title, sections=sections)


def load_doc(code: str, directory: Traversable | None = None) -> RuleDoc | None:
    """The doc of rule ``code``, or None when the docs (or this doc) are not available."""
    base = directory if directory is not None else rules_dir()
    if base is None or not re.fullmatch(r"RT\d{3}", code):
        return None
    item = base.joinpath(f"{code}.md")
    if not item.is_file():
        return None
    return parse_doc(code, item.read_text(encoding="utf-8"))


def load_docs(codes: list[str]) -> dict[str, RuleDoc]:
    """Docs of several rules (those without a doc are left out)."""
    base = rules_dir()
    found = {}
    for code in codes:
        doc = load_doc(code, base)
        if doc is not None:
            found[code] = doc
    return found
