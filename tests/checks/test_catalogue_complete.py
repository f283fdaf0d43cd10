"""The registry ships exactly the rules of the v1 contract (codes, names, severities, scopes),
and ``rocetune rules --format json`` lists every one of them.

The contract is ``tests/checks/catalogue_v1.md`` (a copy of the published catalogue); the
browsable ``docs/rule-catalogue.md`` is generated from ``rules/`` and checked elsewhere.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from rocetune.checks.registry import all_rules
from rocetune.cli import cli

CATALOGUE = Path(__file__).resolve().parent / "catalogue_v1.md"
_ROW = re.compile(r"^\|\s*(RT\d{3})\s*\|\s*([a-z0-9-]+)\s*\|\s*(\w+)\s*\|\s*(\w+)\s*\|", re.M)


def _catalogue() -> dict[str, tuple[str, str, str]]:
    rows = _ROW.findall(CATALOGUE.read_text())
    assert len(rows) == len({code for code, *_ in rows}), "a code is listed twice"
    return {code: (name, scope, sev) for code, name, scope, sev in rows}


def test_catalogue_rows_parse() -> None:
    rows = _catalogue()
    assert rows["RT000"] == ("missing-data", "device", "info")
    assert rows["RT904"] == ("perftest-failed", "verify", "error")
    table_lines = [ln for ln in CATALOGUE.read_text().splitlines() if ln.startswith("| RT")]
    assert len(rows) == len(table_lines), "every table row of the catalogue is parsed"


def test_registry_matches_the_catalogue() -> None:
    rows = _catalogue()
    shipped = {r.meta.code: (r.meta.name, r.meta.scope, r.meta.severity.value) for r in all_rules()}
    assert sorted(set(rows) - set(shipped)) == [], "catalogue rules not implemented"
    assert sorted(set(shipped) - set(rows)) == [], "registered rules not in the catalogue"
    differ = {c: (shipped[c], rows[c]) for c in rows if shipped[c] != rows[c]}
    assert differ == {}, "(registry, catalogue) differ"


def test_rules_command_lists_every_catalogue_code() -> None:
    rows = _catalogue()
    result = CliRunner().invoke(cli, ["rules", "--format", "json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)
    assert sorted(r["code"] for r in listed) == sorted(rows)
