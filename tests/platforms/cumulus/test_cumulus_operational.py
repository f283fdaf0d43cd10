"""A collected snapshot directory: configuration plus operational JSON outputs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rocetune.errors import ParseError
from rocetune.platforms.base import ParseResult
from rocetune.platforms.cumulus.commands import NV_CONFIG, NV_INTERFACE, NV_QOS_ROCE
from rocetune.snapshot import read_directory
from tests.platforms.cumulus.cumulus_helpers import DRIVER, FIXTURES


def _snapshot(tmp_path: Path, **texts: str) -> ParseResult:
    shutil.copy(FIXTURES / "roce_leaf.yaml", tmp_path / NV_CONFIG.filename)
    shutil.copy(FIXTURES / "roce_leaf_nv_show_interface.json", tmp_path / NV_INTERFACE.filename)
    shutil.copy(FIXTURES / "roce_leaf_nv_show_qos_roce.json", tmp_path / NV_QOS_ROCE.filename)
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
    return DRIVER.parse(read_directory(tmp_path), "leaf01", "leaf")


def test_operational_link_fills_what_config_leaves_open(tmp_path: Path) -> None:
    result = _snapshot(tmp_path)
    ports = result.device.ports
    assert list(ports) == ["swp1", "swp2", "swp3", "swp4", "swp31", "swp32", "swp33"]
    assert ports["swp1"].speed_mbps == 100_000  # configured
    assert ports["swp31"].speed_mbps == 400_000  # operational only
    assert ports["swp33"].speed_mbps == 100_000
    assert ports["swp33"].mtu == 1500
    assert ports["swp33"].admin_up is False
    assert ports["swp33"].pfc_tx == (3,)  # the global RoCE profile applies to every swp
    assert ports["swp3"].admin_up is True  # configured `state: up` wins over nothing else
    refs = result.provenance.refs
    assert refs["ports.swp31.speed_mbps"].file.endswith(NV_INTERFACE.filename)
    assert refs["ports.swp31.speed_mbps"].line == 8
    assert refs["ports.swp33"].file.endswith(NV_INTERFACE.filename)
    assert refs["ports.swp33"].line == 10
    assert refs["ports.swp1.speed_mbps"].file.endswith(NV_CONFIG.filename)
    assert result.device.unparsed == ()


def test_show_qos_roce_json_is_kept_as_facts(tmp_path: Path) -> None:
    facts = _snapshot(tmp_path).device.facts
    assert facts["nv_show_qos_roce.mode"] == "lossless"
    assert facts["nv_show_qos_roce.pfc.pfc-priority"] == "3"
    assert facts["nv_show_qos_roce.congestion-control.enabled-tc"] == "0,3"
    assert facts["nv_show_qos_roce.trust.trust-mode"] == "pcp,dscp"


def test_invalid_operational_json_raises_with_line(tmp_path: Path) -> None:
    with pytest.raises(ParseError) as caught:
        _snapshot(tmp_path, **{NV_INTERFACE.filename: '{\n  "swp1": {\n    "link": ,\n'})
    assert caught.value.line == 3
    assert caught.value.file is not None
    assert caught.value.file.endswith(NV_INTERFACE.filename)


def test_wrong_operational_values_are_unparsed(tmp_path: Path) -> None:
    text = '{"swp1": {"link": {"speed": "fast", "mtu": "big"}}, "swp2": {"link": 3}}'
    result = _snapshot(tmp_path, **{NV_INTERFACE.filename: text, NV_QOS_ROCE.filename: "[1]"})
    items = sorted(u.item for u in result.device.unparsed)
    assert items == ["(document)", "swp1.link.mtu", "swp1.link.speed", "swp2.link"]
    assert result.device.ports["swp1"].speed_mbps == 100_000  # configured value kept
