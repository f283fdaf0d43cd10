"""Every parser golden case parses to its expected_device.json (tools/parser_goldens.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
HINT = "regenerate with `python tools/parser_goldens.py` and review the diff"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "parser_goldens", ROOT / "tools/parser_goldens.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = _tool()
CASES = TOOL.cases()


def test_there_are_cases_for_every_platform() -> None:
    from rocetune.platforms import PLATFORMS

    assert {c.parent.name for c in CASES} == set(PLATFORMS)


def test_every_case_names_its_origin() -> None:
    """A row per case in goldens/SOURCES.md (the file its inputs were copied from)."""
    text = (TOOL.GOLDENS / "SOURCES.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| ")}
    assert {f"{c.parent.name}/{c.name}" for c in CASES} <= rows


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.parent.name}/{c.name}")
def test_parser_golden(case: Path) -> None:
    expected = case / TOOL.EXPECTED
    assert expected.is_file(), f"{expected} is missing; {HINT}"
    have = json.loads(expected.read_text(encoding="utf-8"))
    assert have["generated"] == TOOL.HEADER
    assert have["input_sha256"] == TOOL.input_hash(case), f"the inputs changed; {HINT}"
    now = TOOL.parse_case(case)
    assert now["device"] == have["device"], f"the parser's output changed; {HINT}"
    assert TOOL.render(now) == expected.read_text(encoding="utf-8"), HINT
