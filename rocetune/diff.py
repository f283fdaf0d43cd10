"""``rocetune diff``: what changed between two versions of a fabric's configs, and what it did.

Each side is an inventory, a snapshot directory, one or more saved config files, or a
directory of them. A HEAD that is one host setup script over a BASE that is one collected
host is read as that host after the script (``rocetune diff SNAPSHOT setup.sh``). Both
sides are parsed and checked exactly as ``audit``/``lint`` would;
then (a) :mod:`rocetune.statediff` lists the RoCE-relevant state that changed, on the
vendor-neutral model, and (b) findings are matched by fingerprint (the SARIF
``partialFingerprints``, :mod:`rocetune.fingerprint`) into new, fixed and unchanged.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rocetune import inputs
from rocetune.api import AuditResult, audit, lint, lint_script_over
from rocetune.checks.base import RuleOptions
from rocetune.discover import discover
from rocetune.engine import Selection
from rocetune.errors import RocetuneError
from rocetune.fingerprint import fingerprint, fingerprints
from rocetune.load import is_change_script, snapshot_file_names
from rocetune.model import Finding, Intent, Severity
from rocetune.statediff import Change, compare_fabrics
from rocetune.suppress import Policy

SCHEMA_VERSION = 1


@dataclass
class DiffResult:
    """Both sides' audits, the state changes and the findings matched across them."""

    base: AuditResult
    head: AuditResult
    changes: list[Change]
    new: list[Finding]
    fixed: list[Finding]
    unchanged: list[Finding]

    def exit_code(self, fail_on: Severity = Severity.ERROR) -> int:
        """2 on input errors on either side, 1 when HEAD adds a finding >= ``fail_on``, else 0."""
        if self.base.errors or self.head.errors:
            return 2
        return 1 if any(f.severity.rank >= fail_on.rank for f in self.new) else 0


def is_inventory(path: Path) -> bool:
    """True for a YAML file whose top level is a mapping with ``devices:``."""
    if not path.is_file() or path.suffix.lower() not in {".yaml", ".yml"}:
        return False
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data = YAML(typ="safe").load(inputs.read_text(path))
    except (YAMLError, ValueError, OSError, inputs.InputRefused):
        return False
    return isinstance(data, dict) and "devices" in data


@dataclass(frozen=True)
class SideOptions:
    """How both sides are read and checked (from the config file and the flags)."""

    selection: Selection = dataclasses.field(default_factory=Selection)
    options: dict[str, RuleOptions] = dataclasses.field(default_factory=dict)
    policy: Policy | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


def load_side(
    paths: Sequence[Path],
    how: SideOptions,
    intent: Intent | None = None,
    platform: str | None = None,
) -> AuditResult:
    """Audit an inventory, or lint config files / snapshot directories (one side).

    Directories are searched recursively as ``lint`` does (:mod:`rocetune.discover`)."""
    if not paths:
        raise RocetuneError("a diff side needs at least one path")
    if len(paths) == 1 and is_inventory(paths[0]):
        return audit(paths[0], how.selection, how.options, policy=how.policy)
    files = discover(paths, how.include, how.exclude, snapshot_files=snapshot_file_names())
    if not files:
        raise RocetuneError(f"no config files in {', '.join(map(str, paths))}")
    return lint(files, platform, intent, how.selection, how.options, policy=how.policy)


def _rename(result: AuditResult, old: str, new: str) -> AuditResult:
    """``result`` with device ``old`` called ``new`` (devices, findings, status, provenance)."""

    def name(n: str) -> str:
        return new if n == old else n

    fabric = result.fabric
    devices = {name(k): d.model_copy(update={"name": name(k)}) for k, d in fabric.devices.items()}
    findings = [
        f.model_copy(update={"device": name(f.device)}) if f.device else f for f in result.findings
    ]
    status = {name(k): dataclasses.replace(s, name=name(k)) for k, s in result.devices.items()}
    prov = {name(k): v for k, v in result.provenance.items()}
    return dataclasses.replace(
        result,
        fabric=fabric.model_copy(update={"devices": devices}),
        findings=findings,
        devices=status,
        provenance=prov,
    )


def align(base: AuditResult, head: AuditResult) -> AuditResult:
    """HEAD with its one device renamed to BASE's when each side has one device named apart."""
    if len(base.devices) == 1 and len(head.devices) == 1:
        (old,) = head.devices
        (new,) = base.devices
        if old != new:
            return _rename(head, old, new)
    return head


def match_findings(
    base: Sequence[Finding], head: Sequence[Finding]
) -> tuple[list[Finding], list[Finding], list[Finding]]:
    """(new, fixed, unchanged): findings matched by fingerprint, as often as they occur."""
    base_prints, head_prints = fingerprints(base), fingerprints(head)
    known = set(base_prints)
    new: list[Finding] = []
    unchanged: list[Finding] = []
    for f, fp in zip(head, head_prints, strict=True):
        (unchanged if fp in known else new).append(f)
    gone = known - set(head_prints)
    fixed = [f for f, fp in zip(base, base_prints, strict=True) if fp in gone]
    return new, fixed, unchanged


def diff_results(base: AuditResult, head: AuditResult) -> DiffResult:
    """Compare two audits: state changes and findings new/fixed/unchanged in HEAD."""
    head = align(base, head)
    changes = compare_fabrics(base.fabric, head.fabric)
    new, fixed, unchanged = match_findings(base.findings, head.findings)
    return DiffResult(base, head, changes, new, fixed, unchanged)


def diff(
    base: Sequence[Path],
    head: Sequence[Path],
    how: SideOptions | Selection | None = None,
    intent: Intent | None = None,
    platform: str | None = None,
) -> DiffResult:
    """Load both sides (see :func:`load_side`) and compare them; ``how``: the selection,
    rule options, policy and directory globs (a bare Selection: only that). A HEAD that is
    one setup script over a BASE that is one collected host is that host after the script."""
    if not isinstance(how, SideOptions):
        how = SideOptions(selection=how or Selection())
    before = load_side(base, how, intent, platform)
    if _script_over(base, head):
        after = lint_script_over(
            base[0],
            head[0],
            platform,
            intent,
            how.selection,
            options=how.options,
            policy=how.policy,
        )
    else:
        after = load_side(head, how, intent, platform)
    return diff_results(before, after)


def _script_over(base: Sequence[Path], head: Sequence[Path]) -> bool:
    """HEAD is one setup script and BASE one collected host: HEAD is BASE after the script."""
    if len(base) != 1 or len(head) != 1 or is_inventory(base[0]):
        return False
    return is_change_script(head[0]) and not is_change_script(base[0])


def _finding_data(f: Finding) -> dict[str, Any]:
    from rocetune.report import display_path
    from rocetune.report.json import FINDING_KEYS

    row = f.model_dump(mode="json")
    row["file"] = display_path(f.file)
    out = {k: row[k] for k in FINDING_KEYS}
    out["fingerprint"] = fingerprint(f)
    return out


def to_data(result: DiffResult) -> dict[str, Any]:
    """The diff as plain data (``--format json``)."""
    changes = [{**dataclasses.asdict(c), "text": str(c)} for c in result.changes]
    return {
        "version": SCHEMA_VERSION,
        "changes": changes,
        "findings": {
            "new": [_finding_data(f) for f in result.new],
            "fixed": [_finding_data(f) for f in result.fixed],
            "unchanged": [_finding_data(f) for f in result.unchanged],
        },
        "summary": summary(result),
        "errors": [str(e) for e in (*result.base.errors, *result.head.errors)],
    }


def summary(result: DiffResult) -> dict[str, int]:
    """Counts: changes, new, fixed and unchanged findings."""
    return {
        "changes": len(result.changes),
        "new": len(result.new),
        "fixed": len(result.fixed),
        "unchanged": len(result.unchanged),
    }


def _finding_lines(f: Finding) -> list[str]:
    from rocetune.report import display_path

    where = f.link or " ".join(p for p in (f.device, f.port) if p) or "fabric"
    lines = [f"  {f.severity.value:<7} {f.code} {f.name}  {where}", f"          {f.message}"]
    path = display_path(f.file)
    if path:
        lines.append(f"          --> {path}:{f.line}" if f.line else f"          --> {path}")
    return lines


def _unchecked(result: DiffResult) -> list[str]:
    lines = []
    for side, res in (("base", result.base), ("head", result.head)):
        lines += [
            f"  {side} {st.name}: {st.error}"
            for st in sorted(res.devices.values(), key=lambda s: s.name)
            if st.status == "error"
        ]
    return ["Devices not checked:", *lines, ""] if lines else []


def render_text(result: DiffResult) -> str:
    """The human diff report."""
    out = ["Configuration changes (base → head):"]
    out += [f"  {c}" for c in result.changes] or ["  none"]
    out.append("")
    for title, items in (("New findings in head", result.new), ("Fixed in head", result.fixed)):
        out.append(f"{title} ({len(items)}):")
        for f in items:
            out += _finding_lines(f)
        out.append("")
    out += _unchecked(result)
    counts = Counter(f.severity.value for f in result.new)
    s = summary(result)
    out.append(
        f"{s['changes']} change(s); findings: {s['new']} new ({counts['error']} error(s), "
        f"{counts['warning']} warning(s)), {s['fixed']} fixed, {s['unchanged']} unchanged."
    )
    from rocetune.report.safe_text import neutralise

    return neutralise("\n".join(out) + "\n")


def render_markdown(result: DiffResult) -> str:
    """The diff as GitHub-flavoured Markdown (a job summary or a pull-request comment)."""
    from rocetune.report.markdown import code, finding_rows
    from rocetune.report.safe_text import neutralise

    s = summary(result)
    new_errors = sum(1 for f in result.new if f.severity is Severity.ERROR)
    verdict = "❌" if new_errors else "✅"
    out = [
        f"{verdict} **rocetune diff**: {s['new']} new finding(s) ({new_errors} error(s)), "
        f"{s['fixed']} fixed, {s['unchanged']} unchanged; {s['changes']} configuration "
        "change(s)",
        "",
    ]
    for title, items in (
        ("New in this change", result.new),
        ("Fixed by this change", result.fixed),
    ):
        if items:
            out += [f"### {title} ({len(items)})", "", *finding_rows(items), ""]
    if result.changes:
        out += [
            f"<details><summary>Configuration changes ({len(result.changes)})</summary>",
            "",
        ]
        out += [f"- {code(str(c))}" for c in result.changes]
        out += ["", "</details>", ""]
    unchecked = _unchecked(result)
    if unchecked:
        out += ["**Devices not checked:**", ""]
        out += [f"- {code(line.strip())}" for line in unchecked[1:] if line.strip()]
        out.append("")
    return neutralise("\n".join(out).rstrip("\n") + "\n")
