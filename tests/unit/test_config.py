"""rocetune.toml / [tool.rocetune]: discovery, validation errors and precedence."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.checks.deadlock import PfcDeadlockRiskOptions
from rocetune.checks.fabric_uniform import FabricUniformOptions
from rocetune.config import CliFlags, find_config, load_config, resolve
from rocetune.errors import ConfigError
from rocetune.model import Severity
from rocetune.profiles import profile_selectors


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- discovery -----------------------------------------------------------------------


def test_search_goes_upwards_and_skips_pyprojects_without_the_table(tmp_path: Path) -> None:
    top = write(tmp_path / "rocetune.toml", 'select = ["RT2"]\n')
    write(tmp_path / "a" / "pyproject.toml", '[project]\nname = "x"\n')
    deep = tmp_path / "a" / "b"
    deep.mkdir()
    assert find_config(deep) == top
    assert load_config(cwd=deep).config.select == ("RT2",)


def test_nearest_wins_and_rocetune_toml_before_pyproject(tmp_path: Path) -> None:
    write(tmp_path / "rocetune.toml", 'select = ["RT2"]\n')
    inner = write(tmp_path / "a" / "pyproject.toml", '[tool.rocetune]\nselect = ["RT3"]\n')
    assert find_config(tmp_path / "a") == inner
    own = write(tmp_path / "a" / "rocetune.toml", 'select = ["RT6"]\n')
    assert find_config(tmp_path / "a") == own


def test_pyproject_table_and_no_config(tmp_path: Path) -> None:
    path = write(tmp_path / "pyproject.toml", '[tool.rocetune]\nfail-on = "warning"\n')
    loaded = load_config(path)
    assert loaded.path == path
    assert loaded.config.fail_on is Severity.WARNING
    assert load_config(cwd=tmp_path).path == path


def test_explicit_pyproject_without_table_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n')
    with pytest.raises(ConfigError, match=r"no \[tool.rocetune\] table"):
        load_config(path)


# --- validation: one line naming file and key ------------------------------------------


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ('selct = ["RT2"]\n', "selct: unknown key (did you mean 'select'?)", 1),
        ('fail-on = "fatal"\n', "fail-on: Input should be 'info', 'warning' or 'error'", 1),
        ("[rules.RT999]\nseverity = 'error'\n", "rules.RT999: unknown rule", 1),
        (
            "\n[rules.RT705.options]\ngroup_bye = 'role'\n",
            "rules.RT705.options.group_bye: unknown option (did you mean 'group_by'?)",
            3,
        ),
        (
            "[rules.fabric-uniform.options]\ngroup_by = 'rack'\n",
            "rules.fabric-uniform.options.group_by: Input should be 'fabric', 'role' or 'platform'",
            2,
        ),
        ("[rules.RT201]\nlevel = 'error'\n", "rules.RT201.level: unknown key", 2),
        ('ignore = ["RT2", "RT9999"]\n', "ignore[1]: unknown rule selector 'RT9999'", None),
        (
            "[[ignores]]\nrule = 'RT201'\ndevice = 'leaf1'\n",
            "ignores.0.reason: Field required",
            None,
        ),
        (
            "[[ignores]]\nrule = 'RT2O1'\ndevice = 'x'\nreason = 'r'\n",
            "ignores.0.rule: unknown rule 'RT2O1'",
            2,
        ),
        ("select = [\n", "invalid TOML", None),
    ],
)
def test_errors_name_the_file_and_the_key(
    tmp_path: Path, text: str, message: str, line: int | None
) -> None:
    path = write(tmp_path / "rocetune.toml", text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    err = info.value
    assert err.file == str(path)
    assert err.message.startswith(message), err.message
    assert "\n" not in str(err)
    if line is not None:
        assert err.line == line


def test_pyproject_errors_use_the_full_key(tmp_path: Path) -> None:
    path = write(tmp_path / "pyproject.toml", "[tool.rocetune.rules.RT708.options]\nx = 1\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.message == "tool.rocetune.rules.RT708.options.x: unknown option"
    assert info.value.line == 2


def test_options_and_severities_are_validated_and_keyed_by_code(tmp_path: Path) -> None:
    path = write(
        tmp_path / "rocetune.toml",
        "[rules.fabric-uniform]\nseverity = 'error'\n"
        "[rules.fabric-uniform.options]\ngroup_by = 'platform'\n"
        "[rules.RT708.options]\ntier_order = ['host', ['tor', 'leaf'], 'spine']\n",
    )
    loaded = load_config(path)
    assert loaded.severities == {"RT705": Severity.ERROR}
    assert loaded.options["RT705"] == FabricUniformOptions(group_by="platform")
    opts = loaded.options["RT708"]
    assert isinstance(opts, PfcDeadlockRiskOptions)
    assert opts.tier_order == ("host", ("tor", "leaf"), "spine")


# --- precedence: defaults -> profile -> config -> flags ------------------------------------


def _settings(tmp_path: Path, text: str, flags: CliFlags) -> tuple[tuple[str, ...], ...]:
    loaded = load_config(write(tmp_path / "rocetune.toml", text))
    s = resolve(loaded, flags)
    return s.selection.select, s.selection.ignore


def test_defaults_select_everything(tmp_path: Path) -> None:
    s = resolve(load_config(cwd=tmp_path), CliFlags())
    assert s.selection.select == ("ALL",)
    assert s.fail_on is Severity.ERROR


def test_profile_then_config_then_flags(tmp_path: Path) -> None:
    minimal = profile_selectors("minimal")
    select, ignore = _settings(tmp_path, 'profile = "minimal"\n', CliFlags())
    assert select == minimal
    select, _ = _settings(
        tmp_path, 'profile = "minimal"\nextend-select = ["RT708"]\n', CliFlags(ignore=("RT0",))
    )
    assert select == (*minimal, "RT708")
    select, ignore = _settings(
        tmp_path,
        'profile = "minimal"\nselect = ["RT2"]\nignore = ["RT203"]\n',
        CliFlags(extend_select=("RT7",), ignore=("RT0",)),
    )
    assert (select, ignore) == (("RT2", "RT7"), ("RT203", "RT0"))
    select, _ = _settings(tmp_path, 'select = ["RT2"]\n', CliFlags(select=("RT3",)))
    assert select == ("RT3",)
    select, _ = _settings(tmp_path, 'profile = "minimal"\n', CliFlags(profile="strict"))
    assert select == ("ALL",)


def test_fail_on_precedence(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path / "rocetune.toml", 'fail-on = "info"\n'))
    assert resolve(loaded, CliFlags()).fail_on is Severity.INFO
    assert resolve(loaded, CliFlags(fail_on=Severity.WARNING)).fail_on is Severity.WARNING


def test_baseline_from_config_is_relative_to_it_and_the_flag_wins(tmp_path: Path) -> None:
    good = '{"version": 1, "fingerprint": "rocetune/v1", "findings": [{"fingerprint": "%s"}]}'
    write(tmp_path / "sub" / "b.json", good % "cd")
    other = write(tmp_path / "o.json", good % "ab")
    loaded = load_config(write(tmp_path / "rocetune.toml", 'baseline = "sub/b.json"\n'))
    assert resolve(loaded, CliFlags()).policy.baseline == frozenset({"cd"})
    assert resolve(loaded, CliFlags(baseline=other)).policy.baseline == frozenset({"ab"})
    broken = write(tmp_path / "sub" / "b.json", '{"version": 1,')
    with pytest.raises(ConfigError) as info:
        resolve(loaded, CliFlags())
    assert info.value.file == str(broken)


def test_unknown_profile(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path / "rocetune.toml", 'profile = "paranoid"\n'))
    with pytest.raises(ConfigError, match="unknown profile 'paranoid'; known: minimal"):
        resolve(loaded, CliFlags())
