"""Value validation, capability checks and write-if-changed."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest

from rocetune.model import Intent, Port
from rocetune.platforms.cumulus.context import RENDER as CUMULUS
from rocetune.platforms.cumulus.context import compact, port_list
from rocetune.platforms.sonic.context import RENDER as SONIC
from rocetune.render.core import CapabilityError, render_target
from rocetune.render.env import to_json
from rocetune.render.validate import (
    TEXT_KEYS,
    UnsafeValueError,
    check_context,
    check_name,
    problem_of_name,
    problem_of_text,
)
from rocetune.render.writer import write_if_changed
from rocetune.tune.target import device_target
from tests.render.fabrics import fabric, switch


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("swp1\nnv config apply", "control character"),
        ("Ethernet0;reboot", "';'"),
        ("Ethernet0 reboot", "' '"),
        ("{{ 7*7 }}", "template syntax"),
        ("{% raw %}", "template syntax"),
        ("a$(id)", "'$'"),
        ("", "is empty"),
    ],
)
def test_unsafe_names_are_refused(value: str, why: str) -> None:
    with pytest.raises(UnsafeValueError, match="refusing to render") as exc:
        check_name(value, "interface name", "leaf1")
    assert why in str(exc.value)
    assert str(exc.value).startswith("leaf1: ")


def test_plain_names_pass() -> None:
    for name in ("swp1s0", "Ethernet1/1", "Ethernet0", "swp1-16,swp31-32", "Ethernet0|3"):
        assert check_name(name, "name") == name


def test_context_walk_finds_nested_values() -> None:
    check_context({"reasons": ["xoff = 1 B: a (b) x 2"], "ops": [{"path": "/PORT/Ethernet0"}]}, "d")
    with pytest.raises(UnsafeValueError, match=r"ops\[0\]\.value = 'a\\nb'"):
        check_context({"ops": [{"value": "a\nb"}]}, "d")
    with pytest.raises(UnsafeValueError, match="template syntax"):
        check_context({"reasons": ["{{ config }}"]}, "d")
    with pytest.raises(UnsafeValueError, match=r"\[key\]"):
        check_context({"evil key": 1}, "d")


def _target_with_port(name: str, platform: str = "sonic") -> object:
    dev = switch(platform, 100_000, asic="spectrum3")
    ports = {name: Port(name=name, speed_mbps=100_000, cable_length_m=3)}
    return device_target(dev.model_copy(update={"ports": ports}), Intent())


@pytest.mark.parametrize("bad", ["Ethernet0\nEthernet4", "Ethernet0;reboot", "swp1,swp2"])
def test_render_refuses_bad_interface_names(bad: str) -> None:
    for platform, spec in (("sonic", SONIC), ("cumulus", CUMULUS)):
        target = _target_with_port(bad, platform)
        with pytest.raises((UnsafeValueError, CapabilityError), match="interface name"):
            render_target(target, spec)  # type: ignore[arg-type]


def test_render_refuses_a_hostname_with_template_syntax() -> None:
    dev = switch("sonic", 100_000).model_copy(update={"hostname": "{{ cycler.__init__ }}"})
    with pytest.raises(UnsafeValueError, match=r"hostname .* template syntax"):
        render_target(device_target(dev, Intent(), fabric(dev, 3).links), SONIC)


def test_capability_sonic_two_lossless_at_most() -> None:
    intent = Intent(lossless_priorities=(2, 3, 4), max_lossless_priorities=3)
    dev = switch("sonic", 100_000)
    target = device_target(dev, intent, fabric(dev, 3).links)
    with pytest.raises(CapabilityError, match=r"3 lossless priorities \[2, 3, 4\]: sonic"):
        render_target(target, SONIC)
    cumulus = switch("cumulus", 100_000)
    files = render_target(device_target(cumulus, intent, fabric(cumulus, 3).links), CUMULUS)
    assert any("switch-priority 2-4" in f.text for f in files)


def test_capability_watchdog() -> None:
    intent = Intent(pfc_watchdog={"detection_ms": 300, "restoration_ms": 200, "action": "drop"})
    dev = switch("cumulus", 100_000)
    with pytest.raises(CapabilityError, match="whole multiple of the restoration time 200 ms"):
        render_target(device_target(dev, intent, fabric(dev, 3).links), CUMULUS)
    sonic = switch("sonic", 100_000)
    slow = Intent(pfc_watchdog={"detection_ms": 9000, "restoration_ms": 200, "action": "drop"})
    with pytest.raises(CapabilityError, match="detection time 9000 ms is outside 100-5000 ms"):
        render_target(device_target(sonic, slow, fabric(sonic, 3).links), SONIC)


def test_sonic_without_pools_cannot_be_rendered() -> None:
    dev = switch("sonic", 100_000).model_copy(update={"buffer_pools": None})
    with pytest.raises(CapabilityError, match="no BUFFER_POOL ingress_lossless_pool"):
        render_target(device_target(dev, Intent(), fabric(dev, 3).links), SONIC)


def test_nvue_ranges() -> None:
    assert compact([0, 1, 2, 4, 6, 7]) == "0-2,4,6-7"
    names = ["swp2", "swp1", "swp3", "swp10", "swp1s0", "swp1s1", "eth0"]
    assert port_list(names) == "eth0,swp1-3,swp10,swp1s0-1"


def test_write_if_changed(tmp_path: Path) -> None:
    path = tmp_path / "a" / "leaf1.nvue.yaml"
    assert write_if_changed(path, "one\n") is True
    os.utime(path, (1, 1))
    assert write_if_changed(path, "one\n") is False
    assert path.stat().st_mtime == 1
    assert write_if_changed(path, "two\n") is True
    assert path.read_text() == "two\n"
    assert [p.name for p in path.parent.iterdir()] == ["leaf1.nvue.yaml"]


# The one-scan checks against the plain ones they stand for (the checks as first written).
_ORACLE_NAME = re.compile(r"^[A-Za-z0-9_/][A-Za-z0-9_./:,@+|-]{0,127}$")
_ORACLE_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\u0085]")


def _oracle_text(value: str) -> str | None:
    if _ORACLE_CONTROL.search(value):
        return "contains a control character (newline, tab, ...)"
    if any(mark in value for mark in ("{{", "{%", "{#", "}}", "%}", "#}")):
        return "contains template syntax ({{, {%, {#)"
    return None


def _oracle_name(value: str) -> str | None:
    text = _oracle_text(value)
    if text is not None:
        return text
    if not value:
        return "is empty"
    if not _ORACLE_NAME.match(value):
        bad = sorted({ch for ch in value if not re.match(r"[A-Za-z0-9_./:,@+|-]", ch)})
        shown = " ".join(repr(ch) for ch in bad) or "a leading punctuation character"
        return f"contains characters not allowed in a name: {shown}"
    return None


def _strings() -> list[str]:
    rng = random.Random(17)
    alphabet = "aZ09_./:,@+|-{}%# ;$\n\t\x7f\u2028\u0085é"
    out = ["", "\n", "a\n", "Ethernet0\n", "x" * 128, "x" * 129, ".a", "/a", "a}}", "{a", "%}"]
    for _ in range(3000):
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))))
        out.append("Ethernet" + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 3))))
    return out


def test_the_one_scan_checks_say_what_the_plain_ones_say() -> None:
    for value in _strings():
        assert problem_of_text(value) == _oracle_text(value), repr(value)
        assert problem_of_name(value) == _oracle_name(value), repr(value)


def test_the_context_walk_refuses_what_it_refused_and_says_where() -> None:
    rng = random.Random(7)
    strings = _strings()
    for _ in range(500):
        key = rng.choice(["ops", "reasons", "name", rng.choice(strings)])
        inner = {"path": rng.choice(strings), "n": rng.choice([1, None, 2.5, True])}
        value = {"a": [inner, (rng.choice(strings),)], key: rng.choice(strings)}
        problems = [
            _oracle_text(s) if text else _oracle_name(s)
            for s, text in (
                ("a", False),
                (inner["path"], False),
                ("path", False),
                ("n", False),
                (value["a"][1][0], False),  # type: ignore[index]
                (key, False),
                (value[key], key in TEXT_KEYS),
            )
            if isinstance(s, str)
        ]
        if any(p is not None for p in problems):
            with pytest.raises(UnsafeValueError, match="refusing to render"):
                check_context(value, "d")
        else:
            check_context(value, "d")
    with pytest.raises(UnsafeValueError, match=r"has unsupported type object"):
        check_context({"ok": [object()]}, "d")


def test_to_json_writes_what_json_dumps_writes() -> None:
    values: list[object] = [
        "Ethernet0",
        'é\n"x"',
        {"b": 1, "a": [1, 2.5, None, True], "c": {"z": "y"}},
        [],
        {},
        12,
    ]
    for value in values:
        for indent in (None, 2, 4):
            for level in (0, 4):
                want = json.dumps(value, indent=indent, sort_keys=True, ensure_ascii=True)
                want = want.replace("\n", "\n" + " " * level) if level else want
                assert to_json(value, indent, level) == want
