"""Citations of rule docs resolved from the shipped docs/sources.md and roce-knowledge.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from rocetune import rules_docs
from rocetune.cli import cli
from rocetune.report.citations import (
    anchor,
    catalogue,
    cited,
    parse_knowledge,
    parse_sources,
    sources_block,
)
from rocetune.rules_docs import doc_url, docs_file
from tests.report.helpers import ROOT

SOURCES = """| Id | Title | Where |
|----|-------|-------|
| S1 | Web page | <https://example.com/a>; <https://example.com/b> |
| S5 | Repo file | github.com/sonic-net/sonic-buildimage, `src/doc.md`, `other.md` |
| S45 | Secondary | several public notes |
"""
KNOWLEDGE = """# Notes
## §3 Invariants
### §3.5 Headroom (S9)
- **R-SW-04** PFC on the lossless priority, rx and tx (S1).
"""


def test_parse_sources_web_github_and_none() -> None:
    found = parse_sources(SOURCES)
    assert found["S1"].url == "https://example.com/a"
    assert found["S5"].url == "https://github.com/sonic-net/sonic-buildimage/blob/HEAD/src/doc.md"
    assert found["S45"].url is None
    assert found["S45"].title == "Secondary (several public notes)"
    assert "Id" not in found


def test_parse_knowledge_sections_and_facts() -> None:
    found = parse_knowledge(KNOWLEDGE, "https://x/k.md")
    assert found["§3.5"].ref == "roce-knowledge.md §3.5"
    assert found["§3.5"].title == "Headroom (S9)"
    assert found["§3.5"].url == "https://x/k.md#35-headroom-s9"
    assert found["R-SW-04"].url == found["§3.5"].url
    assert anchor("§1.2 NIC settings (NVIDIA ConnectX; Broadcom)") == (
        "12-nic-settings-nvidia-connectx-broadcom"
    )


def test_cited_skips_code_and_unknown_ids() -> None:
    known = {**parse_sources(SOURCES), **parse_knowledge(KNOWLEDGE, "https://x/k.md")}
    text = "See §3.5 and S5/S1, R-SW-04, S99.\n```\ninterface S45\n```\n`S45` too"
    assert [c.ref for c in cited(text, known)] == [
        "roce-knowledge.md §3.5",
        "R-SW-04",
        "S1",
        "S5",
    ]
    assert sources_block("nothing", known) == ""
    block = sources_block("S1", known, autolinks=False)
    assert block == "## Sources cited\n\n- **S1**: Web page https://example.com/a\n"


def test_repository_docs_resolve_every_source_id() -> None:
    known = catalogue()
    text = (ROOT / "docs" / "sources.md").read_text()
    ids = {line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| S")}
    assert len(ids) >= 40
    assert ids <= set(known)
    assert known["S9"].url is not None
    assert known["§3.5"].title == "Headroom"


def test_installed_docs_are_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "rocetune" / "_data" / "docs"
    data.mkdir(parents=True)
    (data / "sources.md").write_text(SOURCES)
    monkeypatch.setattr(rules_docs.resources, "files", lambda _pkg: tmp_path / "rocetune")
    assert docs_file("sources.md") == data / "sources.md"
    assert docs_file("roce-knowledge.md") == ROOT / "docs" / "roce-knowledge.md"  # checkout


def test_wheel_ships_the_cited_docs() -> None:
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert include["docs/sources.md"] == "rocetune/_data/docs/sources.md"
    assert include["docs/roce-knowledge.md"] == "rocetune/_data/docs/roce-knowledge.md"


def test_doc_url_pattern_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert doc_url("RT201").endswith("/blob/main/rules/RT201.md")
    monkeypatch.setenv("ROCETUNE_DOCS_URL", "https://git.example.com/docs/{code}.html")
    assert doc_url("RT201") == "https://git.example.com/docs/RT201.html"


def test_explain_markdown_and_rich() -> None:
    runner = CliRunner()
    md = runner.invoke(cli, ["explain", "RT201"]).stdout
    assert md.startswith("# RT201 pfc-on-lossless\n")
    tail = md.split("## Sources cited\n\n", 1)[1]
    assert "- **roce-knowledge.md §3.5**: Headroom <https://" in tail
    assert "- **S9**: SONiC design: dynamic headroom calculation" in tail
    rich = runner.invoke(cli, ["explain", "RT201", "--format", "rich"]).stdout
    assert "# RT201" not in rich  # rendered, not raw Markdown
    assert "RT201 pfc-on-lossless" in rich.splitlines()[0]
    assert "\x1b" not in rich
    assert " • S9: SONiC design: dynamic headroom calculation" in rich
    assert all(line == line.rstrip() for line in rich.splitlines())
    coloured = runner.invoke(
        cli, ["explain", "RT201", "--format", "rich"], env={"FORCE_COLOR": "1"}
    ).stdout
    assert "\x1b[" in coloured
    plain = runner.invoke(
        cli, ["explain", "RT201", "--format", "rich"], env={"FORCE_COLOR": "1", "NO_COLOR": "1"}
    ).stdout
    assert "\x1b" not in plain
