"""rules/ and the registry stay 1:1; every doc has the fixed sections and its examples work."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from rocetune.checks.registry import all_rules, rule_by_code
from rocetune.engine import run_checks
from rocetune.model import DeviceProblem
from tests.checks.test_rule_cases import build_fabric

RULES_DIR = Path(__file__).resolve().parents[2] / "rules"
SECTIONS = [
    "What it checks",
    "Why it matters for lossless RoCE",
    "How to fix",
    "Options",
    "Examples",
    "References",
]
_yaml = YAML(typ="safe")


def split_doc(path: Path) -> tuple[dict[str, Any], str]:
    text = path.read_text()
    match = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.S)
    assert match, f"{path.name}: no front matter"
    return _yaml.load(match.group(1)), match.group(2)


def examples(body: str) -> dict[str, dict[str, Any]]:
    section = body.split("## Examples", 1)[1].split("\n## ", 1)[0]
    found = {}
    for label, block in re.findall(r"(Failing|Passing)[^\n]*\n+```yaml\n(.*?)```", section, re.S):
        found[label.lower()] = _yaml.load(block)
    return found


def all_examples(body: str) -> list[tuple[str, dict[str, Any]]]:
    """Every Failing/Passing example of a rule doc, in order (a doc may have several)."""
    section = body.split("## Examples", 1)[1].split("\n## ", 1)[0]
    found = re.findall(r"(Failing|Passing)[^\n]*\n+```yaml\n(.*?)```", section, re.S)
    return [(label.lower(), _yaml.load(block)) for label, block in found]


def test_registry_and_docs_are_one_to_one() -> None:
    docs = {p.stem for p in RULES_DIR.glob("RT*.md")}
    codes = {r.meta.code for r in all_rules()}
    assert docs == codes


@pytest.mark.parametrize("code", [r.meta.code for r in all_rules()])
def test_front_matter_and_sections(code: str) -> None:
    rule = rule_by_code(code)
    assert rule is not None
    meta, body = split_doc(RULES_DIR / f"{code}.md")
    assert meta["code"] == rule.meta.code
    assert meta["name"] == rule.meta.name
    assert meta["severity"] == rule.meta.severity.value
    assert meta["scope"] == rule.meta.scope
    assert tuple(meta["tags"]) == rule.meta.tags
    assert str(meta["since"]) == rule.meta.since
    assert body.startswith(f"# {code} {rule.meta.name}\n")
    headings = re.findall(r"^## (.+)$", body, re.M)
    assert headings == SECTIONS


@pytest.mark.parametrize("code", [r.meta.code for r in all_rules() if r.meta.code != "RT000"])
def test_examples_behave_as_documented(code: str) -> None:
    rule = rule_by_code(code)
    assert rule is not None
    _, body = split_doc(RULES_DIR / f"{code}.md")
    cases = all_examples(body)
    labels = {label for label, _ in cases}
    assert labels == {"failing", "passing"}, f"{code}: needs a Failing and a Passing example"
    for label, case in cases:
        fabric = build_fabric(case)
        problems = tuple(DeviceProblem(**p) for p in case.get("problems") or [])
        fabric = fabric.model_copy(update={"problems": problems})
        got = [f.code for f in run_checks(fabric, [rule])]
        if label == "failing":
            assert code in got, f"{code} failing example produced {got}"
        else:
            assert got == [], f"{code} passing example produced {got}"


def test_rt000_examples() -> None:
    rule = rule_by_code("RT201")
    assert rule is not None
    cases = examples(split_doc(RULES_DIR / "RT000.md")[1])
    assert [f.code for f in run_checks(build_fabric(cases["failing"]), [rule])] == ["RT000"]
    assert run_checks(build_fabric(cases["passing"]), [rule]) == []
