"""RT203 too-many-lossless: the ``limit`` option overrides intent.max_lossless_priorities."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rocetune.checks.pfc import TooManyLossless, TooManyLosslessOptions
from rocetune.engine import run_checks
from rocetune.model import Device, Fabric, Port


def _fabric(pfc: tuple[int, ...]) -> Fabric:
    port = Port(name="Ethernet0", pfc_rx=pfc, pfc_tx=pfc)
    dev = Device(name="leaf1", kind="switch", platform="test", ports={"Ethernet0": port})
    return Fabric(devices={"leaf1": dev})


def test_limit_option_overrides_intent() -> None:
    fabric = _fabric((3, 4))
    assert run_checks(fabric, [TooManyLossless]) == []
    opts = {"RT203": TooManyLosslessOptions(limit=1)}
    (finding,) = run_checks(fabric, [TooManyLossless], options=opts)
    assert finding.code == "RT203"
    assert finding.expected == "<= 1 (option limit)"


def test_limit_option_can_raise_the_bound() -> None:
    opts = {"RT203": TooManyLosslessOptions(limit=3)}
    assert run_checks(_fabric((0, 3, 4)), [TooManyLossless], options=opts) == []


def test_limit_option_is_validated() -> None:
    with pytest.raises(ValidationError):
        TooManyLosslessOptions(limit=0)
    with pytest.raises(ValidationError):
        TooManyLosslessOptions.model_validate({"limt": 2})
