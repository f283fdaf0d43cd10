"""Every platform parser has the same stages under the same names (issue #15 item 3).

``rocetune.platforms.base.PARSE_STAGES`` names them: each platform's ``parse`` module defines
``read``, ``bind`` and ``build`` itself and ``parse_snapshot`` runs them, then the shared
``account`` (``rocetune.platforms.common.unparsed``), in this order. The order is followed
through the calls ``parse_snapshot`` makes (evaluation order: arguments before the call).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import textwrap
from pathlib import Path
from types import FunctionType, ModuleType

import pytest

from rocetune.platforms import PLATFORMS
from rocetune.platforms.base import PARSE_STAGES
from rocetune.platforms.common.unparsed import account


def _parse_module(platform: str) -> ModuleType:
    return importlib.import_module(f"rocetune.platforms.{platform}.parse")


class _Calls(ast.NodeVisitor):
    """Names called in a function body, in evaluation order."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> None:
        for generator in node.generators:  # the iterable is evaluated before the element
            self.visit(generator)
        self.visit(node.elt)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = _comprehension

    def visit_Call(self, node: ast.Call) -> None:
        for arg in node.args:
            self.visit(arg)
        for keyword in node.keywords:
            self.visit(keyword)
        func = node.func
        if isinstance(func, ast.Name):
            self.names.append(func.id)
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            self.names.append(f"{func.value.id}.{func.attr}")  # module.function
        else:
            self.visit(func)


def _stage_order(module: ModuleType) -> list[str]:
    stages: dict[int, str] = {id(getattr(module, s)): s for s in PARSE_STAGES[:3]}
    stages[id(account)] = "account"
    order: list[str] = []
    visited: set[int] = set()

    def visit(fn: FunctionType) -> None:
        if id(fn) in visited:
            return
        visited.add(id(fn))
        calls = _Calls()
        calls.visit(ast.parse(textwrap.dedent(inspect.getsource(fn))))
        for name in calls.names:
            head, _, attr = name.partition(".")
            target = fn.__globals__.get(head)
            if attr:
                target = getattr(target, attr, None) if isinstance(target, ModuleType) else None
            if not isinstance(target, FunctionType):
                continue
            stage = stages.get(id(target))
            if stage is not None and stage not in order:
                order.append(stage)
            if target.__module__.startswith("rocetune.platforms"):
                visit(target)

    visit(module.parse_snapshot)
    return order


def test_the_stages_are_named_once() -> None:
    assert PARSE_STAGES == ("read", "bind", "build", "account")


@pytest.mark.parametrize("platform", PLATFORMS)
def test_platform_defines_its_stages(platform: str) -> None:
    module = _parse_module(platform)
    for stage in PARSE_STAGES[:3]:
        fn = getattr(module, stage, None)
        assert isinstance(fn, FunctionType), f"{module.__name__} has no {stage}()"
        assert fn.__module__ == module.__name__, f"{module.__name__}.{stage} is not its own"
        doc = fn.__doc__ or ""
        assert doc.startswith(f"{stage.capitalize()} stage"), (
            f"{module.__name__}.{stage}: the docstring says which stage it is"
        )


@pytest.mark.parametrize("platform", PLATFORMS)
def test_parse_snapshot_runs_the_stages_in_order(platform: str) -> None:
    assert _stage_order(_parse_module(platform)) == list(PARSE_STAGES)


def test_order_check_can_fail(tmp_path: Path) -> None:
    """A parser that binds before it reads (and accounts nothing) is caught."""
    path = tmp_path / "fake_parse.py"
    path.write_text(
        textwrap.dedent(
            """
            def read(x): return x
            def bind(x): return x
            def build(x): return x
            def parse_snapshot(s): return build(read(bind(s)))
            """
        )
    )
    spec = importlib.util.spec_from_file_location("fake_parse", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert _stage_order(module) == ["bind", "read", "build"]
