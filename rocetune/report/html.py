"""HTML report: one self-contained file (inline CSS, JS and SVG; nothing is fetched).

The data comes from :mod:`rocetune.report.html_context`; the layout from
``templates/report/*.j2`` (shipped in the wheel as ``rocetune/_data/templates``), rendered in
a sandboxed Jinja environment with autoescape and StrictUndefined. A Content-Security-Policy
allows only the report's own script (by hash), so markup that slipped through could not run
code either. Output is deterministic: no timestamp unless ``generated_at`` is given.
"""

from __future__ import annotations

import base64
import hashlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from rocetune.errors import RocetuneError
from rocetune.report.html_context import FixText, build_context
from rocetune.report.html_sources import SourcesOf
from rocetune.rules_docs import load_doc
from rocetune.templating import TemplateLoader, templates_root

if TYPE_CHECKING:
    from rocetune.model import AuditResult

    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

PAGE = "report/report.html.j2"
SCRIPT = "report/script.js.j2"


def templates_dir() -> Traversable | None:
    """``templates/`` holding ``report/``: installed data first (wheel), then the checkout."""
    return templates_root("report")


def environment(root: Traversable | None = None) -> SandboxedEnvironment:
    """The sandboxed, autoescaping, strict Jinja environment of the report templates."""
    base = root if root is not None else templates_dir()
    if base is None:
        raise RocetuneError("the HTML report templates are not installed (templates/report)")
    return SandboxedEnvironment(
        loader=TemplateLoader(base),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def fix_text(code: str) -> str:
    """The "How to fix" section of a rule's doc ("" when there is no doc)."""
    doc = load_doc(code)
    return "" if doc is None else doc.fix


def content_security_policy(script: str) -> str:
    """Allow inline styles, this one script (by its hash) and data: images; nothing else."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


def render_html(
    result: AuditResult,
    *,
    generated_at: str | None = None,
    fixes: FixText = fix_text,
    root: Traversable | None = None,
    sources: SourcesOf | None = None,
    base: Path | None = None,
) -> str:
    """Render the report; ``fixes``, ``sources`` and ``root`` let tests pin the rule docs and
    templates, ``base`` the directory relative source files are linked from."""
    env = environment(root)
    report = build_context(result, fixes, generated_at, sources=sources, base=base)
    script = env.get_template(SCRIPT).render()
    page = env.get_template(PAGE).render(report=report, csp=content_security_policy(script))
    return page + "\n"


def render(result: AuditResult, colour: bool = False) -> str:
    """Render the HTML report (``colour`` is ignored: the page is always in colour)."""
    return render_html(result)
