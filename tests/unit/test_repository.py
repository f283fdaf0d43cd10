"""The repository stands on its own: no machine paths, the docs the code cites exist, the
generated rule catalogue is current, and the corpus the tests read is in ``tests/corpus``."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

from tests.paths import CORPUS, ROOT

# Paths of a developer machine or CI box. Device transcripts in the test data legitimately
# show remote shell prompts (user@switch, then its home directory); data files are not scanned.
_MACHINE_PATH = re.compile(r"(?<![\w.@:~-])/(?:work|root|home|Users)/[\w.-]")
_DATA_DIRS = ("tests/corpus/", "tests/fixtures/", "inventories/", "tests/checks/cases/")
_TEXT = (".py", ".md", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".j2", ".txt", ".sh", "")


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
        names = out.splitlines()
    except (OSError, subprocess.CalledProcessError):  # not a git checkout (an sdist)
        skip = {".venv", ".git", "node_modules", ".mypy_cache", ".ruff_cache", ".pytest_cache"}
        names = [
            str(p.relative_to(ROOT))
            for p in ROOT.rglob("*")
            if p.is_file() and not skip.intersection(p.relative_to(ROOT).parts)
        ]
    return [ROOT / n for n in names if (ROOT / n).is_file()]


def _scanned() -> list[Path]:
    out = []
    for path in _tracked():
        rel = path.relative_to(ROOT).as_posix()
        data = rel.startswith(_DATA_DIRS) and not rel.endswith("SOURCES.md")
        if data or rel == "CHANGELOG.md" or path.suffix not in _TEXT:
            continue
        out.append(path)
    return out


def test_no_absolute_machine_paths() -> None:
    found = []
    for path in _scanned():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if _MACHINE_PATH.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert found == []


def test_the_machine_path_pattern_catches_what_it_should() -> None:
    work, home = "/" + "work", "/" + "home"  # spelt apart so this file passes its own test
    assert _MACHINE_PATH.search(f'CORPUS = Path("{work}/shared/corpus")')
    assert _MACHINE_PATH.search(f"see {home}/alice/rocetune")
    assert not _MACHINE_PATH.search(f"root@sonic:{home}/admin# show pfc counters")
    assert not _MACHINE_PATH.search(f"docs{work}/notes.md")  # relative: not a machine path


def _generator() -> object:
    spec = importlib.util.spec_from_file_location(
        "rule_catalogue", ROOT / "tools/rule_catalogue.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rule_catalogue_is_generated_and_current() -> None:
    module = _generator()
    text = module.generate()  # type: ignore[attr-defined]
    assert (ROOT / "docs/rule-catalogue.md").read_text(encoding="utf-8") == text, (
        "docs/rule-catalogue.md is out of date: run python tools/rule_catalogue.py"
    )
    assert text.count("| [RT") == len(list((ROOT / "rules").glob("RT*.md")))


_DOC_REF = re.compile(r"\bdocs/([\w-]+\.md)")


def test_docs_the_code_cites_exist() -> None:
    missing = set()
    for path in _scanned():
        for name in _DOC_REF.findall(path.read_text(encoding="utf-8", errors="replace")):
            if not (ROOT / "docs" / name).is_file():
                missing.add(f"docs/{name} (cited in {path.relative_to(ROOT)})")
    assert sorted(missing) == []


def test_every_cited_source_id_is_listed() -> None:
    listed = set(re.findall(r"^\| (S\d+) \|", (ROOT / "docs/sources.md").read_text(), re.M))
    cited: set[str] = set()
    for path in _scanned():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("rocetune/", "rules/", "templates/", "docs/")):
            cited |= set(re.findall(r"\bS([1-9]\d?)\b", path.read_text(errors="replace")))
    assert sorted({f"S{n}" for n in cited} - listed, key=lambda s: int(s[1:])) == []


def test_every_cited_fact_id_is_defined_in_the_domain_notes() -> None:
    notes = (ROOT / "docs/roce-knowledge.md").read_text(encoding="utf-8")
    defined = set(re.findall(r"\*\*((?:R-[A-Z0-9]+-\d+)|N\d+)\*\*", notes))
    cited: set[str] = set()
    for path in _scanned():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("rocetune/", "rules/", "templates/")):
            text = path.read_text(errors="replace")
            cited |= set(re.findall(r"\bR-(?:SW|NIC|E2E|CNT|PERF)-\d+\b", text))
    assert sorted(cited - defined) == []


@pytest.mark.parametrize(
    "platform", ["sonic", "cumulus", "eos", "nxos", "host", "onyx", "juniper", "perftest"]
)
def test_corpus_is_in_the_repository(platform: str) -> None:
    files = [p for p in (CORPUS / platform).rglob("*") if p.is_file()]
    assert files, f"tests/corpus/{platform} is empty"


def test_every_corpus_file_has_a_sources_row() -> None:
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([^`]+)` \|", sources, re.M))
    files = {
        p.relative_to(CORPUS).as_posix()
        for p in CORPUS.rglob("*")
        if p.is_file() and p.name != "SOURCES.md"
    }
    assert sorted(files - rows) == []
