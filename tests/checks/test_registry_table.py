"""The registry is one sorted table, code -> rule class, and it lists every rule class."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil

from click.testing import CliRunner

import rocetune.checks
from rocetune.checks.base import Rule
from rocetune.checks.registry import RULES, all_rules, rule_by_code
from rocetune.cli import cli


def _defined_rule_classes() -> set[type[Rule]]:
    found: set[type[Rule]] = set()
    for info in pkgutil.iter_modules(rocetune.checks.__path__, "rocetune.checks."):
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(obj, Rule)
                and obj.__module__ == module.__name__
                and not inspect.isabstract(obj)
                and "meta" in vars(obj)
            ):
                found.add(obj)
    return found


def test_table_is_sorted_and_keyed_by_each_rules_own_code() -> None:
    assert list(RULES) == sorted(RULES)
    assert all(code == rule.meta.code for code, rule in RULES.items())
    assert all_rules() == tuple(RULES.values())


def test_every_rule_class_of_the_checks_package_is_registered() -> None:
    missing = sorted(r.__name__ for r in _defined_rule_classes() - set(RULES.values()))
    assert missing == [], "rule classes not in rocetune/checks/registry.py RULES"


def test_lookup_by_code_and_name() -> None:
    assert rule_by_code("rt201") is RULES["RT201"]
    assert rule_by_code("pfc-on-lossless") is RULES["RT201"]
    assert rule_by_code("RT999") is None


def test_rules_json_and_explain_name_the_module() -> None:
    runner = CliRunner()
    listed = json.loads(runner.invoke(cli, ["rules", "--format", "json"]).output)
    modules = {row["code"]: row["module"] for row in listed}
    assert modules["RT201"] == "rocetune.checks.pfc"
    assert all(m == RULES[c].__module__ for c, m in modules.items())
    text = runner.invoke(cli, ["explain", "RT201"]).output
    assert "module: rocetune.checks.pfc" in text
