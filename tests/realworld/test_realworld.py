"""Issue 11 items 1 and 8: every real-world file and every corpus file the tests use
(tests/corpus, tests/fixtures/**/corpus_*) lints without exit 2 or a traceback; the acceptance
gate (thresholds in gate.toml) on the set."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realworld import score

ROOT = Path(__file__).resolve().parents[2]
CORPUS_COPIES = sorted((ROOT / "tests" / "fixtures").rglob("corpus_*")) + sorted(
    p for p in (ROOT / "tests" / "corpus").rglob("*") if p.is_file() and p.name != "SOURCES.md"
)
EXPECTED = score.expectations()


def test_every_config_has_an_expectation_and_a_source_row() -> None:
    configs = {p.relative_to(score.CONFIGS).as_posix() for p in score.config_files()}
    expected = {doc["file"] for _, doc in EXPECTED}
    assert configs == expected
    sources = (score.HERE / "SOURCES.md").read_text()
    missing = [c for c in sorted(configs) if f"`{c}`" not in sources]
    assert not missing, f"no SOURCES.md row for {missing}"
    per = {p: sum(1 for c in configs if c.startswith(p + "/")) for p in score.PLATFORMS}
    assert len(configs) >= 40, per
    assert min(per.values()) >= 6, per


@pytest.mark.parametrize("path", [p for p, _ in EXPECTED] + CORPUS_COPIES, ids=lambda p: p.name)
def test_lints_without_exit_2_or_traceback(path: Path) -> None:
    code, crash, _ = score.lint_one(path, None)
    assert crash is None, crash
    assert code in (0, 1), f"{path.name}: exit {code}"


@pytest.fixture(scope="module")
def scored() -> tuple[dict[str, score.Totals], score.Totals, list[score.FileResult]]:
    return score.run()


def test_floor_no_regression(scored: tuple[dict[str, score.Totals], score.Totals, list]) -> None:
    """Strict: the set never scores below the level reached (gate.toml [floor])."""
    floor = score.tomllib.loads((score.HERE / "gate.toml").read_text())["floor"]
    _, total, _ = scored
    assert total.recall() >= floor["min_recall"], f"recall {total.recall():.1%}"
    assert total.violations <= floor["max_violations"], total.violations


def test_gate_recall(scored: tuple[dict[str, score.Totals], score.Totals, list]) -> None:
    _, total, _ = scored
    assert total.recall() >= score.load_gate()["min_recall"], f"recall {total.recall():.1%}"


def test_gate_no_must_not_find_violation(
    scored: tuple[dict[str, score.Totals], score.Totals, list],
) -> None:
    _, total, _ = scored
    assert total.violations <= score.load_gate()["max_violations"], total.violations


def _named_ports(doc: dict) -> list[str]:
    items = list(doc.get("must_find") or []) + list(doc.get("must_not_find") or [])
    return [i["port"] for i in items if i.get("port") not in (None, "*")]


@pytest.mark.parametrize("entry", EXPECTED, ids=lambda e: e[1]["file"])
def test_expectation_ports_occur_in_their_config(entry: tuple[Path, dict]) -> None:
    """Catch typos in expectations: the number of every named port is in the config text."""
    path, doc = entry
    text = path.read_text(errors="replace")
    for port in _named_ports(doc):
        number = port.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        assert number, port
        assert number in text, f"{doc['file']}: port {port} not in the config"
