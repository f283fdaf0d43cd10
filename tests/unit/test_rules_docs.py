"""Rule docs are found in a source checkout and in an installed wheel (rocetune/_data/rules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune import rules_docs
from rocetune.checks.registry import all_rules
from rocetune.rules_docs import doc_url, load_doc, load_docs, parse_doc, rules_dir

ROOT = Path(__file__).resolve().parents[2]
DOC = """---
code: RT900
name: example
---
# RT900 example

## What it checks

Something.

## How to fix

- Do this.

## Options

None.
"""


def test_checkout_docs_are_found_for_every_rule() -> None:
    found = rules_dir()
    assert found is not None
    codes = [r.meta.code for r in all_rules()]
    docs = load_docs(codes)
    # test_rule_docs.py keeps rules/ and the registry 1:1; here: the loader finds each file
    assert set(docs) == {c for c in codes if (ROOT / "rules" / f"{c}.md").is_file()}
    assert "RT201" in docs
    rt201 = docs["RT201"]
    assert rt201.title == "RT201 pfc-on-lossless"
    assert "pfc_enable" in rt201.fix
    assert rt201.what.startswith("PFC is enabled on every intent lossless priority")


def test_parse_doc_drops_front_matter_and_splits_sections() -> None:
    doc = parse_doc("RT900", DOC)
    assert doc.title == "RT900 example"
    assert list(doc.sections) == ["What it checks", "How to fix", "Options"]
    assert doc.what == "Something."
    assert doc.fix == "- Do this."


def test_installed_layout_is_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "rocetune" / "_data" / "rules"
    data.mkdir(parents=True)
    (data / "RT900.md").write_text(DOC)
    monkeypatch.setattr(rules_docs.resources, "files", lambda _pkg: tmp_path / "rocetune")
    assert rules_dir() == data
    doc = load_doc("RT900")
    assert doc is not None
    assert doc.fix == "- Do this."
    assert load_doc("RT201") is None  # only what the installed directory has


def test_bad_or_unknown_codes_give_none() -> None:
    assert load_doc("RT9999") is None
    assert load_doc("../pyproject") is None
    assert load_doc("RT998") is None
    assert doc_url("RT201").endswith("/blob/main/rules/RT201.md")


def test_wheel_ships_the_rule_docs_where_the_loader_looks() -> None:
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert include["rules"] == "rocetune/_data/rules"
