"""User configuration: ``rocetune.toml``, ``[tool.rocetune]`` in pyproject.toml, ``--config``.

Discovery: from the working directory upwards, the first directory with a
``rocetune.toml``, or with a ``pyproject.toml`` that has a ``[tool.rocetune]`` table, wins
(``rocetune.toml`` first within one directory). ``--config FILE`` skips the search.

Keys (the same in both files)::

    profile = "recommended"          # rules/profiles.yaml: minimal, recommended, strict
    select = ["RT1", "RT2"]          # replaces the profile's list (default: ALL)
    extend-select = ["RT708"]        # adds to it
    ignore = ["RT203"]               # removes from it
    fail-on = "warning"              # error (default) | warning | info
    baseline = "rocetune-baseline.json"   # relative to this file; --baseline overrides
    include = ["*.json", "*.yaml"]   # lint/diff of directories: only these files (globs)
    exclude = ["inventory.yaml"]     # ...and never these (added to the built-in list)

    [rules.RT705]                    # a rule code or name
    severity = "error"               # replaces the rule's severity in every finding
    [rules.RT705.options]            # validated by the rule's own options model
    group_by = "platform"

    [[ignores]]                      # suppressions (the inventory's `suppressions:` alike)
    rule = "RT201"                   # code, prefix or name
    device = "leaf1*"                # glob
    port = "Ethernet8"               # optional glob (or link = "leaf1:*--*")
    reason = "uplink being migrated" # required
    expires = 2025-12-31             # optional: after this date the finding shows again

Any problem is a :class:`ConfigError` naming the file and the key (exit 2). Precedence:
defaults → profile → config file → command-line flags (:func:`resolve`).
"""

from __future__ import annotations

import difflib
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rocetune import inputs
from rocetune.checks.base import Rule, RuleOptions
from rocetune.engine import Selection
from rocetune.errors import ConfigError
from rocetune.model import Severity
from rocetune.suppress import Policy, Suppression, read_baseline

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

CONFIG_NAME = "rocetune.toml"
PYPROJECT = "pyproject.toml"


class _Config(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class RuleConfig(_Config):
    """Per-rule settings: a severity override and the rule's options."""

    severity: Severity | None = None
    options: dict[str, Any] = Field(default_factory=dict)


class RocetuneConfig(_Config):
    """The configuration file, as written."""

    profile: str | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = Field(default=(), alias="extend-select")
    ignore: tuple[str, ...] = ()
    fail_on: Severity | None = Field(default=None, alias="fail-on")
    baseline: str | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    rules: dict[str, RuleConfig] = Field(default_factory=dict)
    ignores: tuple[Suppression, ...] = ()


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config and the file it came from (None: no config file)."""

    config: RocetuneConfig = field(default_factory=RocetuneConfig)
    path: Path | None = None
    options: dict[str, RuleOptions] = field(default_factory=dict)
    """Rule code -> validated options."""
    severities: dict[str, Severity] = field(default_factory=dict)
    """Rule code -> severity override."""


# --- reading -----------------------------------------------------------------------------


def find_config(start: Path) -> Path | None:
    """The first ``rocetune.toml`` or ``pyproject.toml`` with ``[tool.rocetune]`` upwards."""
    for folder in (start.resolve(), *start.resolve().parents):
        own = folder / CONFIG_NAME
        if own.is_file():
            return own
        pyproject = folder / PYPROJECT
        if pyproject.is_file() and "rocetune" in _read_toml(pyproject).get("tool", {}):
            return pyproject
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(inputs.read_bytes(path).decode("utf-8"))
    except inputs.InputRefused as exc:
        raise ConfigError(f"cannot read config: {exc}", file=path) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config is not UTF-8: {exc.reason}", file=path) from None
    except OSError as exc:
        raise ConfigError(f"cannot read config: {exc.strerror}", file=path) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", file=path) from exc


def load_config(explicit: Path | None = None, cwd: Path | None = None) -> LoadedConfig:
    """Load ``explicit`` (``--config``) or the discovered config; empty when there is none."""
    path = explicit
    if path is None:
        path = find_config(cwd or Path.cwd())
        if path is None:
            return LoadedConfig()
    elif not path.is_file():
        why = "not a regular file" if path.exists() else "config file does not exist"
        raise ConfigError(why, file=path)
    raw: Any = _read_toml(path)
    if path.name == PYPROJECT:
        raw = raw.get("tool", {}).get("rocetune")
        if raw is None:
            raise ConfigError("no [tool.rocetune] table", file=path)
        prefix = "tool.rocetune."
    else:
        prefix = ""
    return validate_config(raw, path, prefix)


def validate_config(raw: Any, path: Path, prefix: str = "") -> LoadedConfig:
    """Validate a parsed config mapping (keys in errors are prefixed with ``prefix``)."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{prefix or 'the config'} must be a table", file=path)
    try:
        config = RocetuneConfig.model_validate(raw)
    except ValidationError as exc:
        raise _error(exc, path, prefix, RocetuneConfig) from None
    options: dict[str, RuleOptions] = {}
    severities: dict[str, Severity] = {}
    for key, rule_conf in config.rules.items():
        rule = _rule(key, path, f"{prefix}rules.{key}")
        if rule_conf.severity is not None:
            severities[rule.meta.code] = rule_conf.severity
        if rule_conf.options:
            where = f"{prefix}rules.{key}.options."
            try:
                options[rule.meta.code] = rule.options_model.model_validate(rule_conf.options)
            except ValidationError as exc:
                raise _error(exc, path, where, rule.options_model, "option") from None
    _check_selectors(config, path, prefix)
    return LoadedConfig(config, path, options, severities)


def _rule(key: str, path: Path, where: str) -> type[Rule]:
    from rocetune.checks.registry import all_rules, rule_by_code

    rule = rule_by_code(key)
    if rule is None:
        names = [r.meta.code for r in all_rules()] + [r.meta.name for r in all_rules()]
        msg = f"{where}: unknown rule{_did_you_mean(key, names)}"
        raise ConfigError(msg, file=path, line=_line_of(path, key))
    return rule


def _check_selectors(config: RocetuneConfig, path: Path, prefix: str) -> None:
    from rocetune.suppress import rule_selector_known

    for key in ("select", "extend-select", "ignore"):
        values = getattr(config, key.replace("-", "_")) or ()
        for i, sel in enumerate(values):
            if sel.upper() != "ALL" and not rule_selector_known(sel):
                msg = f"{prefix}{key}[{i}]: unknown rule selector {sel!r}"
                raise ConfigError(msg, file=path)


def _did_you_mean(word: str, options: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(options), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _error(
    exc: ValidationError, path: Path, prefix: str, model: type[BaseModel], noun: str = "key"
) -> ConfigError:
    err = exc.errors()[0]
    loc = [str(p) for p in err["loc"]]
    key = prefix + ".".join(loc)
    if err["type"] == "extra_forbidden":
        known = [f.alias or n for n, f in model.model_fields.items()] if len(loc) == 1 else []
        msg = f"unknown {noun}{_did_you_mean(loc[-1], known)}"
    else:
        msg = err["msg"].removeprefix("Value error, ")
    return ConfigError(f"{key}: {msg}", file=path, line=_line_of(path, loc[-1] if loc else ""))


def _line_of(path: Path, key: str) -> int | None:
    """Best-effort line of ``key`` (as a key or a table name) in a TOML file."""
    if not key or key.isdigit():
        return None
    pattern = re.compile(rf"""^\s*(\[+[^\]]*\b)?["']?{re.escape(key)}["']?\s*(=|\])""")
    try:
        lines = inputs.read_text(path).splitlines()
    except (OSError, inputs.InputRefused):
        return None
    return next((n for n, text in enumerate(lines, 1) if pattern.search(text)), None)


# --- resolution --------------------------------------------------------------------------


@dataclass(frozen=True)
class CliFlags:
    """What the command line said (None / empty: not given)."""

    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    profile: str | None = None
    fail_on: Severity | None = None
    baseline: Path | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class Settings:
    """The effective run settings: what the CLI hands to :mod:`rocetune.api`."""

    selection: Selection
    options: dict[str, RuleOptions]
    policy: Policy
    fail_on: Severity
    config_path: Path | None = None
    include: tuple[str, ...] = ()
    """Globs: in directories given to lint/diff, only matching files (rocetune.discover)."""
    exclude: tuple[str, ...] = ()
    """Globs skipped in directories, besides rocetune.discover.DEFAULT_EXCLUDE."""


def resolve(loaded: LoadedConfig, flags: CliFlags) -> Settings:
    """Merge defaults → profile → config file → command-line flags."""
    conf = loaded.config
    profile = flags.profile or conf.profile
    select: tuple[str, ...] = ("ALL",)
    if profile:  # the profiles file (read with ruamel) only when one is named
        from rocetune.profiles import profile_selectors

        select = profile_selectors(profile)
    if conf.select is not None:
        select = conf.select
    select = (*select, *conf.extend_select)
    if flags.select:
        select = flags.select
    select = tuple(dict.fromkeys((*select, *flags.extend_select)))
    ignore = tuple(dict.fromkeys((*conf.ignore, *flags.ignore)))
    baseline_file = flags.baseline
    if baseline_file is None and conf.baseline is not None and loaded.path is not None:
        baseline_file = loaded.path.parent / conf.baseline
    policy = Policy(
        severities=loaded.severities,
        suppressions=conf.ignores,
        baseline=read_baseline(baseline_file) if baseline_file is not None else None,
    )
    return Settings(
        selection=Selection(select=select or ("ALL",), ignore=ignore),
        options=loaded.options,
        policy=policy,
        fail_on=flags.fail_on or conf.fail_on or Severity.ERROR,
        config_path=loaded.path,
        include=flags.include or conf.include,
        exclude=tuple(dict.fromkeys((*conf.exclude, *flags.exclude))),
    )
