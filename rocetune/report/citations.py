"""Resolve the citations of rule docs to titles and addresses.

Rule docs cite ``S9`` (a source in ``docs/sources.md``), ``roce-knowledge.md §3.5`` or a bare
``§3.5`` (a section of ``docs/roce-knowledge.md``) and fact ids such as ``R-SW-04`` or
``N20`` (defined in roce-knowledge.md). Both documents ship in the wheel (pyproject
``force-include`` to ``rocetune/_data/docs``) and are read at run time, so ``rocetune
explain`` can list every citation of a rule with its title and a link.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rocetune.rules_docs import REPOSITORY_URL, docs_file

if TYPE_CHECKING:
    from collections.abc import Iterable

KNOWLEDGE = "roce-knowledge.md"
SOURCES = "sources.md"
_SOURCE_ROW = re.compile(r"^\|\s*(S\d+)\s*\|\s*(.+?)\s*\|\s*(.*?)\s*\|\s*$")
_URL = re.compile(r"<(https?://[^>\s]+)>")
_GITHUB = re.compile(r"github\.com/([\w.-]+/[\w.-]+),\s*`([^`]+)`")
_SECTION = re.compile(r"^#{2,4} (§\d+(?:\.\d+)*) (.+?)\s*$")
_FACT = re.compile(r"^- \*\*((?:R-[A-Z0-9]+-\d+)|(?:[NW]\d+))\*\* (.+)$")
_CITED = re.compile(r"(?<![\w-])(S\d{1,2}|§\d+(?:\.\d+)*|R-[A-Z0-9]+-\d+|[NW]\d{1,2})(?![\w-])")
_MAX_TITLE = 90


@dataclass(frozen=True)
class Citation:
    """One cited id with its title and, when known, its address."""

    ref: str
    """As shown: ``S9``, ``roce-knowledge.md §3.5`` or ``R-SW-04``."""
    title: str
    url: str | None


def _github_url(where: str) -> str | None:
    m = _GITHUB.search(where)
    if m is None:
        return None
    path = m[2].split(",")[0].strip()
    return f"https://github.com/{m[1]}/blob/HEAD/{path}"


def parse_sources(text: str) -> dict[str, Citation]:
    """The ``| S1 | Title | Where |`` rows of sources.md: web address first, else the GitHub
    file, else none (the title and where-text still say what it is)."""
    out = {}
    for line in text.splitlines():
        m = _SOURCE_ROW.match(line)
        if m is None:
            continue
        ref, title, where = m.groups()
        url_m = _URL.search(where)
        url = url_m[1] if url_m else _github_url(where)
        shown = title if url is not None or not where else f"{title} ({where})"
        out[ref] = Citation(ref, shown, url)
    return out


def anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading (lower case, punctuation dropped, spaces -> -)."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def parse_knowledge(text: str, url: str) -> dict[str, Citation]:
    """Sections (``§3.5``) and fact ids (``R-SW-04``, ``N20``) of roce-knowledge.md."""
    out: dict[str, Citation] = {}
    section_url = url
    for line in text.splitlines():
        sec = _SECTION.match(line)
        if sec is not None:
            heading = f"{sec[1]} {sec[2]}"
            section_url = f"{url}#{anchor(heading)}"
            out[sec[1]] = Citation(f"{KNOWLEDGE} {sec[1]}", sec[2].replace("`", ""), section_url)
            continue
        fact = _FACT.match(line)
        if fact is not None and fact[1] not in out:
            title = fact[2].replace("**", "").replace("`", "")
            if len(title) > _MAX_TITLE:
                title = title[: _MAX_TITLE - 3].rstrip() + "..."
            out[fact[1]] = Citation(fact[1], title, section_url)
    return out


def catalogue() -> dict[str, Citation]:
    """Every citable id of the installed docs (empty when the docs are not shipped)."""
    found: dict[str, Citation] = {}
    knowledge = docs_file(KNOWLEDGE)
    if knowledge is not None:
        url = f"{REPOSITORY_URL}/blob/main/docs/{KNOWLEDGE}"
        found.update(parse_knowledge(knowledge.read_text(encoding="utf-8"), url))
    sources = docs_file(SOURCES)
    if sources is not None:
        found.update(parse_sources(sources.read_text(encoding="utf-8")))
    return found


def cited(text: str, known: dict[str, Citation]) -> list[Citation]:
    """The citations ``text`` makes, in order of first mention, known ids only; code blocks
    (configs, examples) are not searched."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    refs: Iterable[str] = dict.fromkeys(_CITED.findall(prose))
    return sorted((known[r] for r in refs if r in known), key=_order)


def _order(c: Citation) -> tuple[int, tuple[int, ...], str]:
    """Sections of the notes first, then fact ids, then sources by number."""
    numbers = tuple(int(n) for n in re.findall(r"\d+", c.ref.split(" ")[-1]))
    if c.ref.startswith(KNOWLEDGE):
        return (0, numbers, c.ref)
    return (2, numbers, c.ref) if re.fullmatch(r"S\d+", c.ref) else (1, (), c.ref)


def sources_block(
    text: str, known: dict[str, Citation] | None = None, *, autolinks: bool = True
) -> str:
    """A Markdown "Sources cited" section for ``text`` (empty when it cites nothing known).

    ``autolinks``: addresses as ``<url>`` (Markdown links); False writes them as plain text
    (for renderers that would print a link's address twice)."""
    found = cited(text, catalogue() if known is None else known)
    if not found:
        return ""
    lines = ["## Sources cited", ""]
    for c in found:
        link = "" if not c.url else f" <{c.url}>" if autolinks else f" {c.url}"
        lines.append(f"- **{c.ref}**: {c.title}{link}")
    return "\n".join(lines) + "\n"


__all__ = [
    "Citation",
    "anchor",
    "catalogue",
    "cited",
    "parse_knowledge",
    "parse_sources",
    "sources_block",
]
