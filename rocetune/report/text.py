"""Human text report.

One entry per root cause (:mod:`rocetune.report.rootcause`): a fault on one config object or
line is printed once with the ports or links it affects, and the findings that follow from
it (RT701-RT707 comparisons) are nested under it as consequences.

``grouped`` (default): root causes by device (fabric-wide last), most severe first, each with
its message wrapped to the width, observed/expected, ``--> file:line``, the rule's doc link,
``fix:`` with the remediation plan's native change (when the result carries the plan) and
its consequences; then the coverage block (RT000: what was not checked, per device), devices
that could not be checked, and a summary (root causes by severity, ports, findings) with the
next command. ``concise``: one line per root cause and per consequence (``file:line: RT201
[error] device ports: message``, like ruff's concise format). ``statistics``: counts per rule
code instead of the findings. ``quiet``: findings only.
"""

from __future__ import annotations

import textwrap
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

import click

from rocetune.model import Finding, Severity
from rocetune.report import display_path
from rocetune.report.coverage import CoverageNote, headline, notes
from rocetune.report.rootcause import RootCause, affected_ports, compact, root_causes
from rocetune.report.rootcause import counts as rc_counts
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
    if len(indent) + len(text) <= room and _one_line(text):
        return [indent + text]  # what textwrap gives a line that fits, without its cost
    return list(_wrapped(text, indent, room, indent if hanging is None else hanging))


@lru_cache(maxsize=4096)
def _wrapped(text: str, indent: str, room: int, hanging: str) -> tuple[str, ...]:
    """``textwrap.wrap`` of a line that does not fit (remembered: the hosts of a fleet have
    the same long coverage lines in the same words, and wrapping them was a fifth of the
    report's rendering)."""
    lines = textwrap.wrap(
        text,
        width=room,
        initial_indent=indent,
        subsequent_indent=hanging,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return tuple(lines) or (indent.rstrip(),)


def _one_line(text: str) -> bool:
    """Whether textwrap leaves ``text`` as it is when it fits on one line: printable (no tab
    or line break to expand or turn into a space) and not ending in a space (dropped). Most
    lines of a big report fit: wrapping them cost a third of its rendering."""
    return bool(text) and text.isprintable() and not text.endswith(" ")


def _location(f: Finding) -> str | None:
    path = display_path(f.file)
    if not path:
        return None
    return f"{path}:{f.line}" if f.line else path


def _places(rc: RootCause) -> str:
    """``Ethernet8``, or ``4 ports: swp1, swp2, swp31, swp32`` (links likewise)."""
    places = rc.places
    if len(places) <= 1:
        return places[0] if places else ""
    kind = "links" if rc.links else "ports"
    return f"{len(places)} {kind}: {compact(places)}"


def _cause(rc: RootCause, colour: bool, width: int | None) -> list[str]:
    f = rc.finding
    sev = _style(f"{f.severity.value:<7}", colour, fg=_COLOURS[f.severity], bold=True)
    code = _style(_link(f"{f.code} {f.name}", doc_url(f.code), colour), colour, bold=True)
    head = f"  {sev} {code}  "
    lines = _wrap(head + _places(rc), "", width, hanging=_INDENT)
    if width is None or colour:
        lines = [(head + _places(rc)).rstrip()]
    lines += _wrap(f.message, _INDENT, width)
    if f.observed is not None or f.expected is not None:
        lines += _wrap(f"observed: {f.observed}   expected: {f.expected}", _INDENT, width)
    lines += _where_and_docs(f, colour, width)
    lines += _fix_lines(rc, colour)
    for sub in rc.consequences:
        lines += _consequence(sub, colour, width)
    return lines


MAX_FIXES = 3
"""Changes printed per root cause (``rocetune plan`` prints them all)."""
MAX_FIX_LINE = 200
"""Characters of one change line printed (a JSON Patch value can be very long)."""


def _fix_lines(rc: RootCause, colour: bool) -> list[str]:
    """``fix: <native change>`` per change of the plan (config text is never wrapped; at
    most :data:`MAX_FIXES` changes and :data:`MAX_FIX_LINE` characters a line are shown)."""
    out = []
    for text in rc.fix[:MAX_FIXES]:
        first, *rest = [_clip(line) for line in text.splitlines()] or [""]
        out.append(_INDENT + _style("fix: ", colour, fg="green", bold=True) + first)
        out += [_INDENT + "     " + line for line in rest]
    more = len(rc.fix) - MAX_FIXES
    if more > 0:
        tail = f"fix: and {more} more change(s): `rocetune plan` shows them all"
        out.append(_INDENT + _style(tail, colour, dim=True))
    return out


def _clip(line: str) -> str:
    if len(line) <= MAX_FIX_LINE:
        return line
    return f"{line[:MAX_FIX_LINE]}... ({len(line)} characters: `rocetune plan` shows it whole)"


def _consequence(rc: RootCause, colour: bool, width: int | None) -> list[str]:
    f = rc.finding
    label = _style("consequence:", colour, dim=True)
    text = f"{f.code} {f.name} [{f.severity.value}]"
    places = rc.places
    if places:
        kind = "links" if rc.links else "ports"
        text += f" on {places[0]}" if len(places) == 1 else f" on {len(places)} {kind}: "
        if len(places) > 1:
            text += compact(places)
    return _wrap(f"{label} {text}", _INDENT, width, hanging=_INDENT + "  ")


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


def _grouped(
    result: AuditResult, causes: list[RootCause], colour: bool, width: int | None
) -> list[str]:
    groups: dict[str, list[RootCause]] = defaultdict(list)
    for rc in causes:
        groups[rc.device or "fabric"].append(rc)

    def rank(key: str) -> tuple[object, ...]:
        worst = max(rc.severity.rank for rc in groups[key])
        return (-worst, key == "fabric", key)

    out: list[str] = []
    for key in sorted(groups, key=rank):
        status = result.devices.get(key)
        title = key if status is None or status.platform is None else f"{key} ({status.platform})"
        out.append(_style(title, colour, bold=True, underline=True) + f"  {_counts(groups[key])}")
        for rc in groups[key]:
            out.extend(_cause(rc, colour, width))
        out.append("")
    return out


def concise_line(f: Finding, places: tuple[str, ...] = ()) -> str:
    """``file:line: RT201 [error] device port: message`` (one line, never wrapped); a root
    cause names all its ``places`` (``leaf4 swp1, swp2: ...``)."""
    loc = _location(f) or f.device or "fabric"
    if len(places) > 1:
        where = " ".join(p for p in (f.device, compact(places)) if p)
    else:
        where = f.link or " ".join(p for p in (f.device, f.port) if p) or "fabric"
    text = f"{loc}: {f.code} [{f.severity.value}] {where}: {f.message}"
    if f.observed is not None or f.expected is not None:
        text += f" (observed: {f.observed}; expected: {f.expected})"
    return " ".join(text.split())


def _concise(causes: list[RootCause], colour: bool) -> list[str]:
    out = []
    for rc in causes:
        entries = [(rc, ""), *((sub, f" [consequence of {rc.code}]") for sub in rc.consequences)]
        for entry, tail in entries:
            f = entry.finding
            line = concise_line(f, entry.places) + tail
            if colour:
                tag = f"[{f.severity.value}]"
                line = line.replace(tag, _style(tag, colour, fg=_COLOURS[f.severity], bold=True), 1)
            out.append(line)
    return out


def statistics(causes: list[RootCause]) -> list[str]:
    """One line per rule code: how many root causes (and nested consequences) it reported,
    code, severity, name; most frequent first (like ruff)."""
    entries = [e for rc in causes for e in (rc, *rc.consequences)]
    seen: Counter[tuple[str, str, str]] = Counter(
        (e.code, e.severity.value, e.finding.name) for e in entries
    )
    rows = sorted(seen.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1]))
    width = max((len(str(n)) for _, n in rows), default=1)
    return [f"{n:>{width}}  {code}  {'[' + sev + ']':<9}  {name}" for (code, sev, name), n in rows]


def _counts(causes: list[RootCause]) -> str:
    n = dict.fromkeys(Severity, 0)
    for rc in causes:
        n[rc.severity] += 1
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


def summary_line(result: AuditResult, causes: list[RootCause] | None = None) -> str:
    """The headline: root causes by severity, devices checked, then (when there are any)
    how many root causes, ports and findings that is (RT000 not counted)."""
    causes = root_causes(result.findings, result.fixes) if causes is None else causes
    s = rc_counts(causes)
    checked = sum(1 for st in result.devices.values() if st.status == "ok")
    total = len(result.devices)
    head = f"{s['error']} error(s), {s['warning']} warning(s), {s['info']} info"
    line = f"{head} in {checked} of {total} device(s) checked."
    if causes:
        found = sum(len(rc.all_findings()) for rc in causes)
        ports = affected_ports(causes)
        line = line[:-1] + (
            f" ({_plural(len(causes), 'root cause')} on {_plural(ports, 'port')};"
            f" {_plural(found, 'finding')})."
        )
    return line


def next_steps(
    result: AuditResult, causes: list[RootCause], items: list[CoverageNote]
) -> list[str]:
    """What to run next: the plan (audits), the docs of the top rule, the coverage notes."""
    steps = []
    if causes and result.inventory is not None:
        shown = display_path(result.inventory) or result.inventory
        steps.append(f"run `rocetune plan {shown}` to see the fixes")
    if causes:
        worst = max(rc.severity.rank for rc in causes)
        top = Counter(rc.code for rc in causes if rc.severity.rank == worst).most_common(1)[0][0]
        steps.append(f"`rocetune explain {top}` explains the most frequent top-severity rule")
    if items:
        steps.append("collect the missing data to check the rules listed under Coverage")
    return [f"Next: {step}." for step in steps]


def render(result: AuditResult, colour: bool = False, options: TextOptions | None = None) -> str:
    """Render the text report."""
    opts = options or TextOptions()
    causes = root_causes(result.findings, result.fixes)
    items = notes(result.findings)
    out: list[str] = []
    if opts.statistics:
        out += statistics(causes)
        if not opts.quiet:
            out += ["", *_tail(result, causes, items)]
    elif opts.style == "concise":
        out += _concise(causes, colour)
        if not opts.quiet:
            out += ([""] if causes else []) + _tail(result, causes, items)
    else:
        out += _grouped(result, causes, colour, opts.width)
        if not opts.quiet:
            out += _coverage(items, colour, opts.width)
            out += _device_problems(result, colour)
            out += _tail(result, causes, items)
    return "".join(line + "\n" for line in out)


def _tail(result: AuditResult, causes: list[RootCause], items: list[CoverageNote]) -> list[str]:
    line = summary_line(result, causes)
    if items:
        line += f" Coverage: {headline(items)}."
    return [line, *next_steps(result, causes, items)]
