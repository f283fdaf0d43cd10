"""`rocetune apply` command line: usage errors (exit 2), --status, bad plans."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from rocetune.cli import cli
from tests.apply.helpers import Lab


def _run(*args: str) -> tuple[int, str]:
    got = CliRunner().invoke(cli, ["apply", *args])
    return got.exit_code, got.output


def test_needs_a_change_id(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text('{"format": "rocetune-plan/1", "devices": []}', encoding="utf-8")
    code, out = _run(str(plan), "--now", "-i", "x.yaml")
    assert code == 2
    assert "--change-id" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "plan.json:1: not JSON"),
        ('{"format": "other"}', "not a rocetune-plan/1 plan"),
        ('{"format": "rocetune-plan/1", "devices": [{"device": "a"}]}', "platform is missing"),
    ],
)
def test_bad_plan_names_the_file(tmp_path: Path, text: str, message: str) -> None:
    from rocetune.apply.planfile import PlanFileError, load_plan

    plan = tmp_path / "plan.json"
    plan.write_text(text, encoding="utf-8")
    with pytest.raises(PlanFileError) as err:
        load_plan(plan)
    assert message in str(err.value)


def test_bad_window_is_a_usage_error(tmp_path: Path) -> None:
    code, out = _run(str(tmp_path / "p.json"), "--change-id", "C", "--window", "tomorrow")
    assert code == 2
    assert "START/DURATION" in out


def test_status_prints_the_record(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    lab.add("leaf1")
    got = lab.run()
    code, out = _run("--status", got.run_id, "--runs-dir", str(tmp_path / "runs"))
    assert code == 0
    assert f"run {got.run_id}: COMPLETE" in out
    assert "leaf1" in out
    assert "DONE" in out
