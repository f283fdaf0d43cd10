"""rules/profiles.yaml: every entry names registered rules; minimal ⊂ recommended ⊂ strict."""

from __future__ import annotations

import pytest

from rocetune.checks.registry import all_rules
from rocetune.engine import Selection, select_rules
from rocetune.profiles import load_profiles, profile_selectors
from rocetune.suppress import rule_selector_known

ORDER = ("minimal", "recommended", "strict")


def codes(profile: str) -> set[str]:
    rules = select_rules(all_rules(), Selection(select=profile_selectors(profile)))
    return {r.meta.code for r in rules}


def test_the_three_profiles_exist_and_chain() -> None:
    profiles = load_profiles()
    assert tuple(profiles) == ORDER
    assert profiles["minimal"].extends is None
    assert profiles["recommended"].extends == "minimal"
    assert profiles["strict"].extends == "recommended"
    for p in profiles.values():
        assert p.description


@pytest.mark.parametrize("profile", ORDER)
def test_every_entry_names_registered_rules(profile: str) -> None:
    for selector in load_profiles()[profile].rules:
        assert selector == "ALL" or rule_selector_known(selector), f"{profile}: {selector}"


def test_each_profile_strictly_contains_the_previous() -> None:
    minimal, recommended, strict = (codes(p) for p in ORDER)
    assert minimal < recommended < strict
    assert strict == {r.meta.code for r in all_rules()}
    assert {"RT000", "RT201", "RT301", "RT701"} <= minimal
    assert {"RT705", "RT706", "RT707", "RT708"} <= recommended - minimal
