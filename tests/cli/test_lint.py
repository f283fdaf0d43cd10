"""`rocetune lint` on saved config files, including every SONiC/Cumulus corpus file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocetune import api
from rocetune.model import Intent
from tests.cli.conftest import ROOT, run_cli
from tests.paths import CORPUS as CORPUS_ROOT

CORPUS = CORPUS_ROOT
FIXTURES = ROOT / "tests" / "fixtures"


def corpus_files() -> list[Path]:
    return sorted(p for d in ("sonic", "cumulus") for p in (CORPUS / d).rglob("*") if p.is_file())


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_every_sonic_and_cumulus_corpus_file_lints_with_exit_0_or_1(path: Path) -> None:
    result = api.lint([path])
    assert not result.errors, [str(e) for e in result.errors]
    assert result.exit_code() in {0, 1}


def test_corpus_via_the_real_cli() -> None:
    files = corpus_files()
    assert files, f"no corpus files under {CORPUS}"
    res = run_cli("lint", *files, "--format", "json")
    assert res.code in {0, 1}
    assert "Traceback" not in res.err
    data = json.loads(res.out)
    assert len(data["devices"]) == len(files)


def test_device_named_after_hostname_and_platform_detected() -> None:
    res = run_cli(
        "lint",
        FIXTURES / "cumulus" / "roce_leaf.yaml",
        FIXTURES / "sonic" / "su_config_qos.json",
        "--format",
        "json",
    )
    data = json.loads(res.out)
    assert data["devices"]["leaf01"]["platform"] == "cumulus"
    assert data["devices"]["su_config_qos"]["platform"] == "sonic"  # no hostname in the file


def test_undetectable_file_is_rt002_not_a_crash(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("hello\n")
    res = run_cli("lint", junk, "--format", "json")
    assert res.code == 1
    data = json.loads(res.out)
    assert [f["code"] for f in data["findings"]] == ["RT002"]
    assert data["findings"][0]["file"] == str(junk)
    assert data["devices"]["notes"]["status"] == "error"


def test_invalid_json_is_exit_2_with_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "config_db.json"
    bad.write_text('{\n  "PORT": {\n    "Ethernet0": {"mtu": "9100",}\n  }\n}\n')
    res = run_cli("lint", bad)
    assert res.code == 2
    assert f"{bad}:3:" in res.err
    assert "Traceback" not in res.err


def test_intent_file_changes_the_verdict(tmp_path: Path) -> None:
    cfg = FIXTURES / "sonic" / "su_dbmigrator_qos_oldref_format_3_0_1.json"
    default = api.lint([cfg], selection=None)
    assert any(f.code == "RT102" for f in default.findings)
    # The Azure plan classifies DSCP 3 and 4 into lossless TCs 3 and 4.
    intent = tmp_path / "intent.yaml"
    intent.write_text("roce_dscp: [3, 4]\nlossless_priorities: [3, 4]\n")
    res = run_cli("lint", cfg, "--intent", intent, "--select", "RT102", "--format", "json")
    data = json.loads(res.out)
    assert [f for f in data["findings"] if f["code"] == "RT102"] == []
    azure = api.lint([cfg], intent=Intent(roce_dscp=(3, 4), lossless_priorities=(3, 4)))
    assert not any(f.code == "RT102" for f in azure.findings)


def test_unknown_platform_option_is_a_usage_error() -> None:
    res = run_cli("lint", "x.json", "--platform", "ios")
    assert res.code == 2
    assert "Invalid value for '--platform'" in res.err
