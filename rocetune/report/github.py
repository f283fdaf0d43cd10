"""GitHub Actions workflow commands: one annotation per root cause, capped.

A root cause (:mod:`rocetune.report.rootcause`) is annotated once, at its config line, with
the ports or links it affects, the plan's ``fix:`` and the consequences it explains (which
get no annotation of their own).

``::error file=F,line=L,title=RTxxx name::message`` (``warning`` and ``notice`` by severity).
GitHub shows at most 10 error and 10 warning annotations per step (and 50 per job), so this
report annotates the most severe findings only: at most :data:`CAPS` per level (10 errors,
10 warnings, 9 notices, leaving room for the summary notice), 29 lines plus the summary,
well under the per-job limit when another step annotates too. When findings are left out, a
last line says how many: ``::notice title=rocetune::N more root causes not annotated; ...``.
Upload the SARIF report (``--format sarif``) for the complete list. Coverage notes (RT000,
"could not run" / "could not verify") are not findings and are not annotated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rocetune.model import Severity
from rocetune.report import display_path
from rocetune.report.rootcause import RootCause, compact, root_causes

if TYPE_CHECKING:
    from rocetune.model import AuditResult

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
CAPS = {Severity.ERROR: 10, Severity.WARNING: 10, Severity.INFO: 9}
"""Annotations per level; GitHub displays 10 errors + 10 warnings per step, 50 per job."""


def escape_data(text: str) -> str:
    """Escape a command's message: ``%``, CR and LF (GitHub's toolkit rules)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value: as data, plus the delimiters ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **props: object) -> str:
    """One workflow command line; properties with value None are left out."""
    shown = [f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None]
    head = f"::{level} {','.join(shown)}" if shown else f"::{level}"
    return f"{head}::{escape_data(message)}"


def _message(rc: RootCause) -> str:
    f = rc.finding
    places = rc.places
    if len(places) > 1:
        kind = "links" if rc.links else "ports"
        where = f"{f.device or 'fabric'} {len(places)} {kind} ({compact(places)})"
    else:
        where = f.link or " ".join(p for p in (f.device, f.port) if p) or "fabric"
    text = f"{where}: {f.message}"
    if f.observed is not None or f.expected is not None:
        text += f"\nobserved: {f.observed}; expected: {f.expected}"
    for fix in rc.fix:
        text += f"\nfix: {fix}"
    for sub in rc.consequences:
        shown = compact(sub.places) or sub.device or "fabric"
        text += f"\nconsequence: {sub.code} {sub.finding.name} on {shown}"
    return text


def annotation(rc: RootCause) -> str:
    """The workflow command for one root cause, at its config line."""
    f = rc.finding
    path = display_path(f.file)
    return command(
        COMMANDS[f.severity],
        _message(rc),
        file=path,
        line=f.line if path else None,
        title=f"{f.code} {f.name}",
    )


def pick(causes: list[RootCause]) -> list[RootCause]:
    """The root causes to annotate: most severe first, those with a file first, capped."""
    order = sorted(
        range(len(causes)),
        key=lambda i: (-causes[i].severity.rank, causes[i].finding.file is None, i),
    )
    used = dict.fromkeys(Severity, 0)
    chosen = []
    for i in order:
        rc = causes[i]
        if used[rc.severity] < CAPS[rc.severity]:
            used[rc.severity] += 1
            chosen.append(rc)
    return chosen


def render(result: AuditResult, colour: bool = False) -> str:
    """Render the annotations (one workflow command per line)."""
    lines = [
        command("error", f"rocetune: {err}", title="rocetune input error") for err in result.errors
    ]
    causes = root_causes(result.findings, result.fixes)
    chosen = pick(causes)
    lines += [annotation(rc) for rc in chosen]
    rest = len(causes) - len(chosen)
    if rest:
        msg = f"{rest} more root causes not annotated; see the SARIF/text report"
        lines.append(command("notice", msg, title="rocetune"))
    return "".join(line + "\n" for line in lines)
