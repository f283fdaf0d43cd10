"""Recognising saved Onyx files, and not claiming anyone else's."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.platforms.detect import detect
from tests.paths import CORPUS, ROOT
from tests.platforms.onyx.onyx_helpers import DRIVER, REALWORLD

_FIXTURES = ROOT / "tests" / "fixtures"
_REALWORLD_ALL = ROOT / "tests" / "realworld" / "configs"
OTHERS = sorted(
    p
    for base in (CORPUS, _FIXTURES, _REALWORLD_ALL)
    for p in base.rglob("*")
    if p.is_file()
    and p.name != "SOURCES.md"
    and "onyx" not in p.relative_to(base).parts
    and p.stat().st_size < 3_000_000
)
OURS = sorted(p for p in REALWORLD.iterdir() if p.is_file())


@pytest.mark.parametrize("path", OTHERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_never_claims_another_platforms_file(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    assert DRIVER.sniff(str(path), text) is None


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.name)
def test_real_onyx_files_are_detected_as_onyx(path: Path) -> None:
    found = detect(str(path), path.read_text(encoding="utf-8"))
    assert found.driver is not None
    assert found.driver.name == "onyx"


@pytest.mark.parametrize(
    "text",
    [
        "switch (config) # interface ethernet 1/1 qos trust L3\n",
        "sw1 [standalone: master] (config) # roce\n",
        "   dcb priority-flow-control enable force\n",
        "traffic pool roce type lossless\n",
        "qos trust L3\n",
        '##\n## Running database "initial"\n##\n',
    ],
)
def test_onyx_markers(text: str) -> None:
    assert DRIVER.sniff("x", text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "interface Ethernet1/1\n   qos trust dscp\n",  # EOS
        "interface ethernet1/1/1\n no shutdown\n flowcontrol receive on\n",  # Dell OS10
        "interface Eth1/1\n priority-flow-control priority 3\n",  # Enterprise SONiC
        "nv set qos roce mode lossless\n",
        "",
        "\x00\xff garbage",
    ],
)
def test_not_onyx(text: str) -> None:
    assert DRIVER.sniff("x", text) is None
