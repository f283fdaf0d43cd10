"""Score rocetune against the real-world acceptance set (tests/realworld).

Run: ``python -m tests.realworld.score`` (or ``python tests/realworld/score.py``).
Definitions (recall, precision, violations) are in tests/realworld/README.md.
"""

from __future__ import annotations

import argparse
import re
import sys
import traceback
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib
import yaml

HERE = Path(__file__).resolve().parent
CONFIGS = HERE / "configs"
EXPECT = HERE / "expect"
GATE = HERE / "gate.toml"
PLATFORMS = ("sonic", "cumulus", "eos", "nxos", "onyx", "linux_host", "enterprise_sonic")
ACTIONABLE = ("warning", "error")
NOPORT = "NOPORT"
MAX_SHOWN = 6


@dataclass
class Item:
    codes: tuple[str, ...]
    port: str | None
    port_re: str | None
    line: int | None
    note: str

    def label(self) -> str:
        where = f"line {self.line}" if self.line is not None else (self.port_re or self.port)
        return f"{'|'.join(self.codes)}@{where}"


@dataclass
class FileResult:
    rel: str
    platform: str
    exit_code: int | None
    crash: str | None
    findings: list[dict[str, Any]]
    found: list[Item] = field(default_factory=list)
    missed: list[Item] = field(default_factory=list)
    violations: list[tuple[Item, dict[str, Any]]] = field(default_factory=list)
    matched_ids: set[int] = field(default_factory=set)
    false_ids: set[int] = field(default_factory=set)
    rt001: int = 0


def load_gate() -> dict[str, float]:
    """Thresholds of the acceptance gate (one place: gate.toml)."""
    with GATE.open("rb") as fh:
        data = tomllib.load(fh)
    return {k: float(v) for k, v in data["gate"].items()}


def _items(raw: Iterable[dict[str, Any]]) -> list[Item]:
    out = []
    for r in raw or ():
        code = r["code"]
        codes = tuple(code) if isinstance(code, list) else (str(code),)
        out.append(
            Item(codes, r.get("port"), r.get("port_re"), r.get("line"), r.get("expert_note", ""))
        )
    return out


def expectations() -> list[tuple[Path, dict[str, Any]]]:
    """Every expectation file with its config path, sorted by config path."""
    out = []
    for path in sorted(EXPECT.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        out.append((CONFIGS / doc["file"], doc))
    return out


def config_files() -> list[Path]:
    return sorted(p for p in CONFIGS.rglob("*") if p.is_file())


def lint_one(path: Path, intent: dict[str, Any] | None) -> tuple[int | None, str | None, list]:
    """Lint one file through the public API; returns (exit code, traceback or None, findings)."""
    from rocetune import api
    from rocetune.model import Intent

    try:
        result = api.lint([path], intent=Intent(**intent) if intent else None)
    except Exception:  # the gate counts crashes; it must not stop the run
        return None, traceback.format_exc(), []
    findings = [f.model_dump(mode="json") for f in result.findings]
    for err in result.errors:
        findings.append({"code": "EXIT2", "severity": "error", "message": str(err)})
    return result.exit_code(), None, findings


def _port_ok(item: Item, finding: dict[str, Any]) -> bool:
    port = finding.get("port")
    if item.port_re is not None:
        return port is not None and re.fullmatch(item.port_re, port) is not None
    if item.port in (None, "*"):
        return True
    return port == item.port


def _matches(item: Item, finding: dict[str, Any]) -> bool:
    code = finding.get("code")
    if "*" not in item.codes and code not in item.codes:
        return False
    if item.line is not None:
        return finding.get("line") == item.line
    return _port_ok(item, finding)


def score_file(path: Path, doc: dict[str, Any]) -> FileResult:
    exit_code, crash, findings = lint_one(path, doc.get("intent"))
    res = FileResult(doc["file"], doc["platform"], exit_code, crash, findings)
    res.rt001 = sum(1 for f in findings if f.get("code") == "RT001")
    for item in _items(doc.get("must_find")):
        if NOPORT in item.codes:
            hit = [i for i, f in enumerate(findings) if f.get("severity") in ACTIONABLE]
            ok = bool(hit) or (exit_code not in (0, None))
        else:
            hit = [i for i, f in enumerate(findings) if _matches(item, f)]
            ok = bool(hit)
        (res.found if ok else res.missed).append(item)
        res.matched_ids.update(hit)
    for item in _items(doc.get("must_not_find")):
        for i, f in enumerate(findings):
            if f.get("severity") in ACTIONABLE and _matches(item, f):
                res.violations.append((item, f))
                res.false_ids.add(i)
    return res


@dataclass
class Totals:
    files: int = 0
    expected: int = 0
    found: int = 0
    true_pos: int = 0
    false_pos: int = 0
    violations: int = 0
    rt001: int = 0
    crashes: int = 0
    exit2: int = 0
    distinct_true: set[tuple[str, str]] = field(default_factory=set)
    distinct_false: set[tuple[str, str]] = field(default_factory=set)

    def recall(self) -> float:
        return self.found / self.expected if self.expected else 1.0

    def precision(self) -> float:
        judged = self.true_pos + self.false_pos
        return self.true_pos / judged if judged else 1.0

    def distinct_precision(self) -> float:
        """Precision over distinct (file, code) pairs instead of finding instances."""
        true = self.distinct_true - self.distinct_false
        judged = len(true) + len(self.distinct_false)
        return len(true) / judged if judged else 1.0


def _add(t: Totals, r: FileResult) -> None:
    t.files += 1
    t.expected += len(r.found) + len(r.missed)
    t.found += len(r.found)
    actionable = {i for i, f in enumerate(r.findings) if f.get("severity") in ACTIONABLE}
    true_ids = (r.matched_ids - r.false_ids) & actionable
    t.true_pos += len(true_ids)
    t.false_pos += len(r.false_ids & actionable)
    t.distinct_true |= {(r.rel, str(r.findings[i].get("code"))) for i in true_ids}
    t.distinct_false |= {(r.rel, str(r.findings[i].get("code"))) for i in r.false_ids}
    t.violations += len(r.violations)
    t.rt001 += r.rt001
    t.crashes += r.crash is not None
    t.exit2 += r.exit_code == 2


def run(only: str | None = None) -> tuple[dict[str, Totals], Totals, list[FileResult]]:
    """Score every expectation (or those whose file contains ``only``)."""
    per: dict[str, Totals] = defaultdict(Totals)
    total = Totals()
    results = []
    for path, doc in expectations():
        if only is not None and only not in doc["file"]:
            continue
        r = score_file(path, doc)
        results.append(r)
        _add(per[r.platform], r)
        _add(total, r)
    return per, total, results


def report(
    per: dict[str, Totals], total: Totals, results: list[FileResult], shown: int = MAX_SHOWN
) -> str:
    lines = [
        "platform          files  recall            precision        distinct  viol  RT001 crash"
        " exit2"
    ]

    def row(name: str, t: Totals) -> str:
        rec = f"{t.recall():6.1%} ({t.found}/{t.expected})"
        judged = t.true_pos + t.false_pos
        prec = f"{t.precision():6.1%} ({t.true_pos}/{judged})"
        return (
            f"{name:<17} {t.files:>5}  {rec:<17} {prec:<16} {t.distinct_precision():>8.1%}"
            f"  {t.violations:>4} "
            f"{t.rt001:>5} {t.crashes:>5} {t.exit2:>5}"
        )

    for p in PLATFORMS:
        if p in per:
            lines.append(row(p, per[p]))
    lines.append(row("overall", total))
    lines.append("")
    lines.append("per file: exit code, RT001 lines, misses and must_not_find violations")
    miss_cls: Counter[str] = Counter()
    viol_cls: Counter[str] = Counter()
    for r in results:
        head = f"  {r.rel}: exit={r.exit_code} RT001={r.rt001}"
        if r.crash:
            head += "  TRACEBACK: " + r.crash.strip().splitlines()[-1]
        lines.append(head)
        for m in r.missed:
            lines.append(f"    MISS {m.label()}: {m.note}")
            miss_cls[m.codes[0][:3]] += 1
        for n, (_, f) in enumerate(r.violations):
            viol_cls[str(f.get("code"))[:3]] += 1
            if n < shown:
                msg = str(f.get("message", ""))[:90]
                lines.append(f"    FALSE {f.get('code')}@{f.get('port') or f.get('line')}: {msg}")
        if len(r.violations) > shown:
            lines.append(f"    ... {len(r.violations) - shown} more must_not_find violations")
    lines.append("")
    lines.append(
        "misses by rule class: " + ", ".join(f"{k}xx={v}" for k, v in miss_cls.most_common())
    )
    lines.append(
        "violations by rule class: " + ", ".join(f"{k}xx={v}" for k, v in viol_cls.most_common())
    )
    gate = load_gate()
    ok = total.recall() >= gate["min_recall"] and total.violations <= gate["max_violations"]
    lines.append(
        f"gate: recall >= {gate['min_recall']:.0%} and violations <= {gate['max_violations']:.0f}"
        f" -> {'PASS' if ok else 'FAIL'}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Score rocetune on tests/realworld.")
    parser.add_argument("--file", help="only expectation files whose config path contains this")
    parser.add_argument("--all", action="store_true", help="list every violation")
    args = parser.parse_args(argv)
    per, total, results = run(args.file)
    print(report(per, total, results, shown=10**9 if args.all else MAX_SHOWN))
    return 0


if __name__ == "__main__":
    sys.exit(main())
