"""Text output options: --output-format, --statistics, -q, --exit-zero, colour switches."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from rocetune.cli import cli
from rocetune.cli.common import text_width, use_colour
from tests.cli.conftest import ROOT

LEAF4 = str(ROOT / "inventories" / "lab" / "configs" / "leaf4.yaml")
RED = "\x1b[31m"


def lint(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, ["lint", LEAF4, *args], env=env or {})
    return res.exit_code, res.stdout, res.stderr


def test_concise_is_one_line_per_root_cause() -> None:
    code, out, _ = lint("--output-format", "concise", "-q")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 2  # 1 error + 1 warning (one DSCP map, 18 ports), no summary
    assert lines[0].startswith("inventories/lab/configs/leaf4.yaml:40: RT601 [error] leaf4 swp32: ")
    assert lines[1].startswith(
        "inventories/lab/configs/leaf4.yaml:60: RT104 [warning] leaf4 swp1-16, swp31, swp32: "
    )


def test_statistics_and_exit_zero() -> None:
    code, out, _ = lint("--statistics", "--exit-zero")
    assert code == 0
    assert out.splitlines()[:2] == [
        "1  RT104  [warning]  stray-dscp-lossless",
        "1  RT601  [error]    switch-mtu",
    ]
    assert "Coverage: 6 rules not checked on 1 device" in out


def test_statistics_needs_text_format() -> None:
    code, out, err = lint("--format", "json", "--statistics")
    assert code == 2
    assert out == ""
    assert err == "rocetune: error: --statistics applies to --format text only\n"


def test_exit_zero_keeps_input_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    res = CliRunner().invoke(cli, ["lint", str(tmp_path / "nope.json"), "--exit-zero"])
    assert res.exit_code == 2


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        ((), {}, False),  # not a terminal
        ((), {"FORCE_COLOR": "1"}, True),
        ((), {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
        (("--color", "always"), {"NO_COLOR": "1"}, True),
        (("--color", "never"), {"FORCE_COLOR": "1"}, False),
    ],
)
def test_colour_switches(args: tuple[str, ...], env: dict[str, str], coloured: bool) -> None:
    _, out, _ = lint(*args, env=env)
    assert (RED in out) is coloured


def test_colour_and_width_rules() -> None:
    assert use_colour("auto", True, {}) is True
    assert use_colour("auto", True, {"NO_COLOR": "1"}) is False
    assert use_colour("auto", True, {"NO_COLOR": ""}) is True  # empty: not set (no-color.org)
    assert use_colour("auto", False, {"FORCE_COLOR": "1"}) is True
    assert text_width(False, {}) is None
    assert text_width(False, {"COLUMNS": "72"}) == 72
    assert isinstance(text_width(True, {}), int)
