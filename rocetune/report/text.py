"""Human text report.

``grouped`` (default): findings by device (then links, fabric), most severe first, each with
its message wrapped to the width, observed/expected, ``--> file:line`` and the rule's doc
link; then the coverage block (RT000: what was not checked, per device), devices that could
not be checked, and a summary with the next command. ``concise``: one line per finding
(``file:line: RT201 [error] device port: message``, like ruff's concise format).
``statistics``: counts per rule code instead of the findings. ``quiet``: findings only.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import click

from rocetune.model import Finding, Severity
from rocetune.report import display_path
from rocetune.report.coverage import CoverageNote, counts, headline, notes, real_findings
from rocetune.rules_docs import doc_url

if TYPE_CHECKING:
    from rocetune.model import AuditResult

_COLOURS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
_INDENT = " " * 10
DEFAULT_WIDTH = 100
"""Wrapping width when the output is not a terminal (files, pipes, CI logs)."""
MIN_WIDTH = 40


@dataclass(frozen=True)
class TextOptions:
    """How the text report is laid out (``--output-format``, ``--statistics``, ``-q``)."""

    style: Literal["grouped", "concise"] = "grouped"
    statistics: bool = False
    quiet: bool = False
    width: int | None = DEFAULT_WIDTH
    """Wrap messages to this many columns (None: never wrap)."""


def _style(text: str, colour: bool, **kw: object) -> str:
    return click.style(text, **kw) if colour else text  # type: ignore[arg-type]


def _link(text: str, url: str, colour: bool) -> str:
    """``text`` as a terminal hyperlink (OSC 8) when colour is on, else plain."""
    return f"\x1b]8;;{url}\x1b\\{text}\x1b]8;;\x1b\\" if colour else text


def _wrap(text: str, indent: str, width: int | None, hanging: str | None = None) -> list[str]:
    if width is None:
        return [indent + text]
    room = max(width, MIN_WIDTH)
    return textwrap.wrap(
        text,
        width=room,
        initial_indent=indent,
        subsequent_indent=indent if hanging is None else hanging,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [indent.rstrip()]


def _natural(text: str) -> tuple[object, ...]:
    return tuple((0, int(t)) if t.isdigit() else (1, t) for t in re.split(r"(\d+)", text))


def _order(f: Finding) -> tuple[object, ...]:
    """Most severe first, then device, link/port (natural order), code."""
    return (-f.severity.rank, f.device or "~", f.link or "", _natural(f.port or ""), f.code)


def _location(f: Finding) -> str | None:
    path = display_path(f.file)
    if not path:
        return None
    return f"{path}:{f.line}" if f.line else path


def _finding(f: Finding, colour: bool, width: int | None) -> list[str]:
    sev = _style(f"{f.severity.value:<7}", colour, fg=_COLOURS[f.severity], bold=True)
    code = _style(_link(f"{f.code} {f.name}", doc_url(f.code), colour), colour, bold=True)
    where = f.link or f.port or ""
    lines = [f"  {sev} {code}  {where}".rstrip()]
    lines += _wrap(f.message, _INDENT, width)
    if f.observed is not None or f.expected is not None:
        lines += _wrap(f"observed: {f.observed}   expected: {f.expected}", _INDENT, width)
    lines += _where_and_docs(f, colour, width)
    return lines


def _where_and_docs(f: Finding, colour: bool, width: int | None) -> list[str]:
    """``--> file:line  (rocetune explain RTxxx)``; the hint is a link to the rule's doc
    when colour is on, and goes on a line of its own when both do not fit the width."""
    hint = f"rocetune explain {f.code}"
    shown = _link(hint, doc_url(f.code), colour)
    loc = _location(f)
    if loc is None:
        return [_INDENT + _style(f"docs: {shown}", colour, dim=True)]
    arrow = f"--> {loc}"
    if width is None or len(_INDENT) + len(arrow) + len(hint) + 4 <= max(width, MIN_WIDTH):
        return [_INDENT + _style(f"{arrow}  ({shown})", colour, dim=True)]
    return [
        _INDENT + _style(arrow, colour, dim=True),
        _INDENT + _style(f"docs: {shown}", colour, dim=True),
    ]


def _group_key(f: Finding) -> str:
    if f.link is not None:
        return "links"
    return f.device or "fabric"


def _grouped(
    result: AuditResult, findings: list[Finding], colour: bool, width: int | None
) -> list[str]:
    groups: dict[str, list[Finding]] = defaultdict(list)
    for f in sorted(findings, key=_order):
        groups[_group_key(f)].append(f)

    def rank(key: str) -> tuple[object, ...]:
        worst = max(f.severity.rank for f in groups[key])
        return (-worst, key in {"links", "fabric"}, key)

    out: list[str] = []
    for key in sorted(groups, key=rank):
        status = result.devices.get(key)
        title = key if status is None or status.platform is None else f"{key} ({status.platform})"
        out.append(_style(title, colour, bold=True, underline=True) + f"  {_counts(groups[key])}")
        for f in groups[key]:
            out.extend(_finding(f, colour, width))
        out.append("")
    return out


def concise_line(f: Finding) -> str:
    """``file:line: RT201 [error] device port: message`` (one line, never wrapped)."""
    loc = _location(f) or f.device or "fabric"
    where = f.link or " ".join(p for p in (f.device, f.port) if p) or "fabric"
    text = f"{loc}: {f.code} [{f.severity.value}] {where}: {f.message}"
    if f.observed is not None or f.expected is not None:
        text += f" (observed: {f.observed}; expected: {f.expected})"
    return " ".join(text.split())


def _concise(findings: list[Finding], colour: bool) -> list[str]:
    out = []
    for f in sorted(findings, key=_order):
        line = concise_line(f)
        if colour:
            tag = f"[{f.severity.value}]"
            line = line.replace(tag, _style(tag, colour, fg=_COLOURS[f.severity], bold=True), 1)
        out.append(line)
    return out


def statistics(findings: list[Finding]) -> list[str]:
    """One line per rule code: count, code, severity, name; most frequent first (like ruff)."""
    seen: Counter[tuple[str, str, str]] = Counter(
        (f.code, f.severity.value, f.name) for f in findings
    )
    rows = sorted(seen.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1]))
    width = max((len(str(n)) for _, n in rows), default=1)
    return [f"{n:>{width}}  {code}  {'[' + sev + ']':<9}  {name}" for (code, sev, name), n in rows]


def _counts(findings: list[Finding]) -> str:
    n = dict.fromkeys(Severity, 0)
    for f in findings:
        n[f.severity] += 1
    parts = [
        f"{n[s]} {s.value}" if s is Severity.INFO else _plural(n[s], s.value)
        for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        if n[s]
    ]
    return ", ".join(parts)


def _coverage(items: list[CoverageNote], colour: bool, width: int | None) -> list[str]:
    if not items:
        return []
    out = [_style(f"Coverage: {headline(items)}", colour, bold=True, underline=True)]
    by_device: dict[str, list[CoverageNote]] = defaultdict(list)
    for item in items:
        by_device[item.device or "fabric"].append(item)
    for device, mine in by_device.items():
        out.append(f"  {_style(device, colour, bold=True)}")
        for item in mine:
            if item.kind == "not-understood":
                text = item.detail
            else:
                text = f"not checked: {item.who}: {item.detail}"
            out += _wrap(text, "    ", width, hanging="      ")
    out.append("")
    return out


def _device_problems(result: AuditResult, colour: bool) -> list[str]:
    bad = [st for st in result.devices.values() if st.status == "error"]
    if not bad:
        return []
    lines = [_style("Devices not checked", colour, bold=True)]
    lines += [f"  {st.name}: {st.error}" for st in sorted(bad, key=lambda s: s.name)]
    lines.append("")
    return lines


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def summary_line(result: AuditResult) -> str:
    """The headline: real findings by severity and devices checked (RT000 not counted)."""
    s = counts(result.findings)
    checked = sum(1 for st in result.devices.values() if st.status == "ok")
    total = len(result.devices)
    head = f"{s['error']} error(s), {s['warning']} warning(s), {s['info']} info"
    return f"{head} in {checked} of {total} device(s) checked."


def next_steps(
    result: AuditResult, findings: list[Finding], items: list[CoverageNote]
) -> list[str]:
    """What to run next: the plan (audits), the docs of the top rule, the coverage notes."""
    steps = []
    if findings and result.inventory is not None:
        shown = display_path(result.inventory) or result.inventory
        steps.append(f"run `rocetune plan {shown}` to see the fixes")
    if findings:
        worst = max(f.severity.rank for f in findings)
        top = Counter(f.code for f in findings if f.severity.rank == worst).most_common(1)[0][0]
        steps.append(f"`rocetune explain {top}` explains the most frequent top-severity rule")
    if items:
        steps.append("collect the missing data to check the rules listed under Coverage")
    return [f"Next: {step}." for step in steps]


def render(result: AuditResult, colour: bool = False, options: TextOptions | None = None) -> str:
    """Render the text report."""
    opts = options or TextOptions()
    findings = real_findings(result.findings)
    items = notes(result.findings)
    out: list[str] = []
    if opts.statistics:
        out += statistics(findings)
        if not opts.quiet:
            out += ["", *_tail(result, findings, items)]
    elif opts.style == "concise":
        out += _concise(findings, colour)
        if not opts.quiet:
            out += ([""] if findings else []) + _tail(result, findings, items)
    else:
        out += _grouped(result, findings, colour, opts.width)
        if not opts.quiet:
            out += _coverage(items, colour, opts.width)
            out += _device_problems(result, colour)
            out += _tail(result, findings, items)
    return "".join(line + "\n" for line in out)


def _tail(result: AuditResult, findings: list[Finding], items: list[CoverageNote]) -> list[str]:
    line = summary_line(result)
    if items:
        line += f" Coverage: {headline(items)}."
    return [line, *next_steps(result, findings, items)]
