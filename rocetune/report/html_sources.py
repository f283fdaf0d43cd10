"""Rule docs in the HTML report: the "How to fix" text as blocks, and the sources a doc cites.

A rule doc's fix section is split into paragraphs and bullet lists with inline code spans
(templates print them escaped, never as raw HTML). Its citations (``S9``, ``§3.5``, fact ids)
resolve through :mod:`rocetune.report.citations` to titles and web addresses, which the
report prints as links.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from rocetune.report.citations import catalogue, cited
from rocetune.rules_docs import load_doc


@dataclass(frozen=True)
class Segment:
    """A run of text; ``code`` for an inline code span."""

    text: str
    code: bool


@dataclass(frozen=True)
class DocBlock:
    """A paragraph (one item) or a bullet list (one item per bullet)."""

    kind: Literal["p", "ul"]
    items: tuple[tuple[Segment, ...], ...]


_CODE_SPAN = re.compile(r"`([^`]*)`")


def segments(text: str) -> tuple[Segment, ...]:
    """Split markdown text into plain runs and inline code spans."""
    parts = _CODE_SPAN.split(" ".join(text.split()))
    return tuple(Segment(p, i % 2 == 1) for i, p in enumerate(parts) if p)


def doc_blocks(markdown: str) -> tuple[DocBlock, ...]:
    """Paragraphs and bullet lists of a rule doc section (other markdown stays text)."""
    blocks: list[DocBlock] = []
    for chunk in re.split(r"\n\s*\n", markdown.strip()):
        lines = chunk.splitlines()
        if lines and lines[0].lstrip().startswith("- "):
            items: list[str] = []
            for line in lines:
                if line.lstrip().startswith("- "):
                    items.append(line.lstrip()[2:])
                elif items:
                    items[-1] += " " + line.strip()
            blocks.append(DocBlock("ul", tuple(segments(i) for i in items)))
        elif lines:
            blocks.append(DocBlock("p", (segments(" ".join(lines)),)))
    return tuple(blocks)


@dataclass(frozen=True)
class Source:
    """A document a rule's doc cites: how it is cited, its title, its address (if any)."""

    ref: str
    title: str
    url: str | None


SourcesOf = Callable[[str], tuple[Source, ...]]
"""Rule code -> the sources its doc cites (empty when none or no doc)."""


def no_sources(code: str) -> tuple[Source, ...]:
    """No citations (tests that pin the output)."""
    return ()


def rule_sources(code: str) -> tuple[Source, ...]:
    """The sources rule ``code``'s doc cites, with their addresses (empty without a doc)."""
    doc = load_doc(code)
    if doc is None:
        return ()
    text = "\n\n".join(doc.sections.values())
    return tuple(Source(c.ref, c.title, c.url) for c in cited(text, catalogue()))
