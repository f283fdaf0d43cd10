"""CLI: config files, profiles, suppressions, baselines and `rocetune explain`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from rocetune.cli import cli
from tests.cli.conftest import ROOT

LAB = ROOT / "inventories" / "lab" / "inventory.yaml"


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def findings(res: Result) -> list[dict[str, Any]]:
    return json.loads(res.stdout)["findings"]  # type: ignore[no-any-return]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_explain_prints_the_rule_doc() -> None:
    res = invoke("explain", "RT201")
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert lines[0] == "# RT201 pfc-on-lossless"
    assert lines[2] == (
        "severity: error | scope: port | tags: pfc | since 0.1.0 | module: rocetune.checks.pfc"
    )
    assert "## How to fix" in lines
    assert "---" not in lines[:3]
    by_name = invoke("explain", "pfc-deadlock-risk")
    assert by_name.stdout.startswith("# RT708 pfc-deadlock-risk\n")


def test_explain_unknown_rule() -> None:
    res = invoke("explain", "pfc-on-losless")
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr == (
        "rocetune: error: unknown rule 'pfc-on-losless' (did you mean pfc-on-lossless?);"
        " `rocetune rules` lists them\n"
    )


def test_config_file_severity_ignores_and_fail_on(here: Path) -> None:
    (here / "rocetune.toml").write_text(
        'select = ["RT2"]\nfail-on = "warning"\n'
        "[rules.RT205]\nseverity = 'info'\n"
        "[[ignores]]\nrule = 'RT201'\ndevice = 'leaf1'\nport = 'Ethernet8'\nreason = 'move'\n"
        "[[ignores]]\nrule = 'RT207'\ndevice = 'nothing'\nreason = 'old'\n"
    )
    res = invoke("audit", LAB, "--format", "json")
    got = {(f["code"], f["device"], f["port"], f["severity"]) for f in findings(res)}
    assert ("RT201", "leaf1", "Ethernet8", "error") not in got
    assert {f[3] for f in got if f[0] == "RT205"} == {"info"}
    assert ("RT207", "spine1", None, "warning") in got
    assert res.exit_code == 1  # fail-on warning from the config, RT207 is a warning
    assert res.stderr.splitlines() == [
        "rocetune: unused suppression: RT207 on nothing (old)",
        "rocetune: 1 finding(s) suppressed",
    ]
    assert invoke("audit", LAB, "--fail-on", "error", "--select", "RT207").exit_code == 0


def test_config_errors_are_one_line_exit_2(here: Path) -> None:
    cfg = here / "rocetune.toml"
    cfg.write_text("[rules.RT705.options]\ngroup_bye = 'role'\n")
    res = invoke("audit", LAB)
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr == (
        f"rocetune: error: {cfg.resolve()}:2: rules.RT705.options.group_bye: unknown option"
        " (did you mean 'group_by'?)\n"
    )


def test_explicit_config_and_profile_flag(here: Path) -> None:
    other = here / "elsewhere.toml"
    other.write_text('profile = "strict"\nignore = ["RT0"]\n')
    strict = {
        f["code"] for f in findings(invoke("audit", LAB, "--format", "json", "--config", other))
    }
    assert "RT706" in strict
    assert not any(c.startswith("RT0") for c in strict)
    minimal = invoke("audit", LAB, "--format", "json", "--config", other, "--profile", "minimal")
    codes = {f["code"] for f in findings(minimal)}
    assert codes
    assert codes <= {"RT101", "RT102", "RT103", "RT201", "RT204", "RT205", "RT301", "RT303"} | {
        "RT501",
        "RT502",
        "RT601",
        "RT701",
        "RT702",
        "RT703",
    }
    missing = invoke("audit", LAB, "--config", here / "nope.toml")
    assert missing.exit_code == 2
    assert "config file does not exist" in missing.stderr


def test_pyproject_table_is_found_from_a_subdirectory(
    here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (here / "pyproject.toml").write_text('[tool.rocetune]\nselect = ["RT207"]\n')
    sub = here / "a" / "b"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    res = invoke("audit", LAB, "--format", "json")
    assert {f["code"] for f in findings(res)} == {"RT207"}


def test_write_baseline_then_baseline_hides_everything_known(here: Path) -> None:
    base = here / "baseline.json"
    res = invoke("audit", LAB, "--write-baseline", base)
    assert res.exit_code == 0
    assert res.stdout == ""
    count = len(json.loads(base.read_text())["findings"])
    assert res.stderr == f"rocetune: wrote {count} finding fingerprint(s) to {base}\n"
    again = invoke("audit", LAB, "--format", "json", "--baseline", base)
    assert again.exit_code == 0
    assert findings(again) == []
    assert again.stderr == f"rocetune: {count} finding(s) hidden by the baseline\n"
    # a baseline of fewer findings shows the rest
    data = json.loads(base.read_text())
    dropped = data["findings"].pop()
    base.write_text(json.dumps(data))
    third = invoke("audit", LAB, "--format", "json", "--baseline", base)
    assert [(f["code"], f["device"] or "") for f in findings(third)] == [
        (dropped["code"], dropped["device"])
    ]


def test_inventory_suppressions(here: Path) -> None:
    text = LAB.read_text()
    lab_dir = LAB.parent.as_posix()
    text = text.replace("snapshot: snapshots/", f"snapshot: {lab_dir}/snapshots/")
    text = text.replace("snapshot: configs/", f"snapshot: {lab_dir}/configs/")
    text += (
        "suppressions:\n"
        "  - {rule: RT207, device: spine1, reason: forward is deliberate here}\n"
        "  - {rule: RT601, device: leaf4, port: swp32, reason: fixed next window,"
        " expires: 2001-01-01}\n"
    )
    inv = here / "inventory.yaml"
    inv.write_text(text)
    res = invoke("audit", inv, "--format", "json", "--select", "RT207,RT601")
    assert {(f["code"], f["device"]) for f in findings(res)} == {("RT601", "leaf4")}
    assert res.stderr.splitlines() == [
        "rocetune: expired suppression (2001-01-01): RT601 on leaf4 port swp32",
        "rocetune: 1 finding(s) suppressed",
    ]
