"""Ports built without validation (rocetune.platforms.common.construct) equal validated ones.

The switch builders construct ports from values they typed themselves and hand every port of
a device the same objects for the same binding. With ``construct.VERIFY`` every constructed
model is validated too and must be strictly equal (types included): these tests parse every
SONiC, NVUE and EOS file of the repository that way.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.fabricgen import cumulus_config, sonic_config
from benchmarks.memory import eos_config
from rocetune.load import load_device
from rocetune.model import EcnProfile, Port
from rocetune.model import construct as model_construct
from rocetune.platforms.common import construct
from rocetune.platforms.common.construct import ConstructMismatch, same
from tests.paths import ROOT

SUFFIXES = {".json", ".yaml", ".yml", ".txt", ".conf", ".cfg"}
FOLDERS = (
    "tests/corpus/sonic",
    "tests/corpus/cumulus",
    "tests/realworld/configs/sonic",
    "tests/realworld/configs/cumulus",
    "tests/platforms/goldens/sonic",
    "tests/platforms/goldens/cumulus",
    "tests/fixtures",
)


EOS_FOLDERS = (
    "tests/corpus/eos",
    "tests/realworld/configs/eos",
    "tests/platforms/goldens/eos",
    "tests/fixtures/eos",
    "tests/render/golden",
    "inventories/lab/snapshots/spine1",
)


def _files(folders: tuple[str, ...]) -> Iterator[Path]:
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES:
                yield path


FILES = list(_files(FOLDERS))
EOS_FILES = list(_files(EOS_FOLDERS))


@pytest.fixture
def verify(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(construct, "VERIFY", True)


def test_same_is_strict() -> None:
    assert same({1: 2}, {1: 2})
    assert not same({1: 2}, {1: 2.0})
    assert not same({1: 2}, {True: 2})
    assert not same({1: 2, 3: 4}, {3: 4, 1: 2})  # order is part of a dump
    assert not same((1,), [1])
    assert same(EcnProfile(name="a"), EcnProfile(name="a"))
    assert not same(EcnProfile(name="a"), EcnProfile(name="a", ecn_mark=None))  # fields set


@pytest.mark.usefixtures("verify")
def test_verify_catches_a_value_validation_would_change() -> None:
    with pytest.raises(ConstructMismatch):
        construct.construct(Port, {"name": "p", "cable_length_m": 40})  # validated: 40.0
    with pytest.raises(ConstructMismatch):
        construct.construct(Port, {"name": "p", "dscp_to_priority": {"3": 3}})  # key -> 3
    port = construct.construct(Port, {"name": "p", "cable_length_m": 40.0})
    assert same(port, Port(name="p", cable_length_m=40.0))


def test_the_check_is_reached_through_load_device(
    verify: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A mismatch in a builder is not swallowed as a parsed device (the test can fail)."""
    real = construct.unvalidated

    def wrong(cls: type[Port], values: dict[str, Any]) -> Port:
        return real(cls, {**values, "cable_length_m": 1})  # an int where validation: a float

    monkeypatch.setattr(construct, "unvalidated", wrong)
    path = tmp_path / "config_db.json"
    path.write_text(sonic_config("leaf0", {0: "gpu0"}), encoding="utf-8")
    loaded = load_device("leaf0", path, "sonic", "leaf")
    assert loaded.result is None


@pytest.mark.usefixtures("verify")
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_constructed_ports_equal_validated_ones(path: Path) -> None:
    for platform in ("sonic", "cumulus"):
        loaded = load_device(path.stem, path, platform, "leaf")
        if loaded.result is None:
            why = str(loaded.error or (loaded.problem and loaded.problem.message))
            assert "internal error" not in why, why


@pytest.mark.usefixtures("verify")
@pytest.mark.parametrize("path", EOS_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_constructed_eos_ports_equal_validated_ones(path: Path) -> None:
    loaded = load_device(path.stem, path, "eos", "leaf")
    if loaded.result is None:
        why = str(loaded.error or (loaded.problem and loaded.problem.message))
        assert "internal error" not in why, why


def test_eos_ports_are_checked_against_validated_ones(
    verify: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The EOS builder constructs its ports (and is checked): a generated 64-port switch."""
    made: list[str] = []
    real = construct.unvalidated

    def counted(cls: type[Port], values: dict[str, Any]) -> Port:
        made.append(values["name"])
        return real(cls, values)

    monkeypatch.setattr(construct, "unvalidated", counted)
    path = tmp_path / "spine.txt"
    path.write_text(eos_config(64), encoding="utf-8")
    loaded = load_device("spine", path, "eos", "spine")
    assert loaded.result is not None
    assert len(made) == len(loaded.result.device.ports) == 64


@pytest.mark.usefixtures("verify")
@pytest.mark.parametrize("platform", ["sonic", "cumulus"])
def test_generated_switch_ports_share_their_values(platform: str, tmp_path: Path) -> None:
    peers = {i: f"gpu{i}" for i in range(0, 64, 3)}
    if platform == "sonic":
        path = tmp_path / "config_db.json"
        path.write_text(sonic_config("leaf0", peers, no_pfc=5), encoding="utf-8")
    else:
        path = tmp_path / "nvue.yaml"
        path.write_text(cumulus_config("leaf0", peers), encoding="utf-8")
    loaded = load_device("leaf0", path, platform, "leaf")
    assert loaded.result is not None
    ports = list(loaded.result.device.ports.values())
    assert len(ports) >= 64
    for field in ("dscp_to_priority", "tc_to_queue", "ecn", "schedulers"):
        values = {id(getattr(p, field)) for p in ports}
        assert len(values) == 1, field  # one object for every port


@pytest.mark.parametrize(
    "values",
    [
        {"name": "p"},
        {"name": "p", "mtu": 9100, "dscp_to_priority": {3: 3}, "pfc_rx": (3,), "template": True},
        {"name": "p", "cable_length_m": None},  # given as None: in the fields set
        {"mtu": 9100},  # the required name missing: pydantic's own path
        {"name": "p", "not_a_field": 1},  # an unknown key: pydantic's own path (ignored)
    ],
)
def test_the_planned_construct_is_model_construct(values: dict[str, Any]) -> None:
    """Same ``__dict__`` (values, field order), fields set and instance as pydantic's."""
    made = construct.unvalidated(Port, dict(values))
    theirs = Port.model_construct(**dict(values))
    assert list(made.__dict__.items()) == list(theirs.__dict__.items())
    assert made.model_fields_set == theirs.model_fields_set
    assert same(made, theirs)
    assert repr(made) == repr(theirs)


def test_models_with_copied_defaults_keep_pydantic_construct() -> None:
    """A default pydantic copies (a list, a factory) is never shared by a plan."""
    from pydantic import BaseModel, Field

    class WithList(BaseModel):
        items: list[int] = Field(default_factory=list)
        tags: tuple[str, ...] = ()

    assert model_construct._plan(WithList) is None
    one, two = construct.unvalidated(WithList, {}), construct.unvalidated(WithList, {})
    assert one.items == []
    assert one.items is not two.items
    assert model_construct._plan(Port) is not None
