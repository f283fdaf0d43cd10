"""Rule profiles (``rules/profiles.yaml``): minimal ⊂ recommended ⊂ strict.

Each profile lists rule selectors (codes, code prefixes, names or ``ALL``) and may
``extends`` another profile; its selection is the union along the chain. The file is read
from the installed data or the source checkout, the same place as the rule docs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from rocetune.errors import ConfigError
from rocetune.rules_docs import rules_dir

PROFILES_FILE = "profiles.yaml"


@dataclass(frozen=True)
class Profile:
    """One profile as written: its own selectors and the profile it extends."""

    name: str
    description: str
    rules: tuple[str, ...]
    extends: str | None = None


@cache
def load_profiles() -> dict[str, Profile]:
    """Every profile of ``rules/profiles.yaml`` by name (ConfigError when unreadable)."""
    base = rules_dir()
    item = base.joinpath(PROFILES_FILE) if base is not None else None
    if item is None or not item.is_file():
        raise ConfigError("rule profiles are not available (rules/profiles.yaml not found)")
    try:
        raw = YAML(typ="safe").load(item.read_text(encoding="utf-8"))
    except YAMLError as exc:
        raise ConfigError(f"invalid YAML: {exc}", file=PROFILES_FILE) from exc
    if not isinstance(raw, dict):
        raise ConfigError("profiles must be a mapping of name -> profile", file=PROFILES_FILE)
    return {str(name): _profile(str(name), body) for name, body in raw.items()}


def _profile(name: str, body: Any) -> Profile:
    if not isinstance(body, dict) or not isinstance(body.get("rules"), list):
        raise ConfigError(f"profile {name!r} needs a rules: list", file=PROFILES_FILE)
    unknown = set(body) - {"description", "rules", "extends"}
    if unknown:
        raise ConfigError(f"profile {name!r}: unknown key {sorted(unknown)[0]!r}")
    extends = body.get("extends")
    return Profile(
        name=name,
        description=str(body.get("description") or ""),
        rules=tuple(str(r) for r in body["rules"]),
        extends=None if extends is None else str(extends),
    )


def profile_selectors(name: str) -> tuple[str, ...]:
    """The selectors of profile ``name`` including everything it extends."""
    profiles = load_profiles()
    out: list[str] = []
    seen: list[str] = []
    current: str | None = name
    while current is not None:
        if current in seen:
            chain = " -> ".join([*seen, current])
            raise ConfigError(f"profile cycle: {chain}", file=PROFILES_FILE)
        profile = profiles.get(current)
        if profile is None:
            known = ", ".join(profiles)
            where = f" (extended by {seen[-1]!r})" if seen else ""
            raise ConfigError(f"unknown profile {current!r}{where}; known: {known}")
        seen.append(current)
        out = [*profile.rules, *out]
        current = profile.extends
    if any(sel.upper() == "ALL" for sel in out):
        return ("ALL",)
    return tuple(dict.fromkeys(out))
