"""The platform registry: one package per name, one Platform value per package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rocetune.platforms import KNOWN_PLATFORMS, PLANNED, PLATFORMS, drivers, get_driver, load
from rocetune.platforms.base import Platform

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ROOT / "rocetune" / "platforms"


def test_every_platform_package_is_registered() -> None:
    found = {p.name for p in PACKAGES.iterdir() if (p / "__init__.py").is_file()}
    assert found - {"common"} == set(PLATFORMS)
    assert not set(PLANNED) & set(PLATFORMS)
    assert (*PLATFORMS, *PLANNED) == KNOWN_PLATFORMS


@pytest.mark.parametrize("name", PLATFORMS)
def test_platform_value(name: str) -> None:
    platform = drivers()[name]
    assert isinstance(platform, Platform)
    assert platform.name == name
    assert platform.description
    assert platform.device_type
    assert platform.commands(), "a platform collects at least one command"
    if platform.render is not None:
        assert platform.render.platform == name
    if platform.kind == "switch":
        assert platform.error_marker is not None
        assert platform.limits.mtu_max is not None


def test_planned_platforms_have_no_driver() -> None:
    assert all(get_driver(name) is None for name in PLANNED)


def test_load_rejects_a_package_without_its_value() -> None:
    with pytest.raises(TypeError, match="is not the Platform value named 'common'"):
        load("common")


def test_parse_stamps_the_limits() -> None:
    from rocetune.model import Device

    eos = drivers()["eos"]
    dev = eos.stamp(Device(name="x", kind="switch", platform="eos"))
    assert dev.mtu_max == 9214
    assert dev.watchdog_limits == eos.limits.watchdog
    kept = eos.stamp(Device(name="x", kind="switch", platform="eos", mtu_max=9000))
    assert kept.mtu_max == 9000, "a value the parser read wins over the declared limit"


def test_checks_and_tune_name_no_platform() -> None:
    """Rules and the tuner read limits from the model, never a platform-keyed table."""
    names = set(PLATFORMS) | set(PLANNED)
    offenders = []
    for folder in ("checks", "tune", "model"):
        for path in sorted((ROOT / "rocetune" / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and node.value in names:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert offenders == []


def test_a_sniff_never_raises() -> None:
    from rocetune.platforms.base import never_raises

    def broken(text: str) -> None:
        raise ValueError(text)

    assert never_raises(broken)("anything") is None
    assert never_raises(broken).__name__ == "broken"
