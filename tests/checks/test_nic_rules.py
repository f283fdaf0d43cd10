"""NIC rules beyond the case files: RT603's gid_index option, the ToS and MTU arithmetic,
the mlx5 XOFF estimate, and the nic family registry."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rocetune.checks.nic_cc import fw_int
from rocetune.checks.nic_port import RoceV2, RoceV2Options, mlx5_xoff_bytes, roce_mtu
from rocetune.engine import run_checks
from rocetune.model import Device, Fabric, NicPort


def _fabric(**fields: object) -> Fabric:
    port = NicPort.model_validate({"name": "eth2", **fields})
    dev = Device(name="gpu1", kind="host", platform="test", nics={"eth2": port})
    return Fabric(devices={"gpu1": dev})


def test_gid_index_option() -> None:
    fabric = _fabric(roce_mode="v2", gid_index_v2_ipv4=(3, 5))
    assert run_checks(fabric, [RoceV2]) == []
    assert run_checks(fabric, [RoceV2], options={"RT603": RoceV2Options(gid_index=5)}) == []
    (finding,) = run_checks(fabric, [RoceV2], options={"RT603": RoceV2Options(gid_index=0)})
    assert finding.code == "RT603"
    assert finding.expected == "an IPv4-mapped RoCE v2 GID at index 0"
    assert "GID index 0 (option gid_index), which is not an IPv4-mapped RoCE v2" in (
        finding.message
    )
    with pytest.raises(ValidationError):
        RoceV2Options(gid_index=-1)


@pytest.mark.parametrize(
    ("mtu", "roce"),
    [(1500, 1024), (4191, 2048), (4192, 4096), (9000, 4096), (351, None), (352, 256)],
)
def test_roce_mtu_from_netdev_mtu(mtu: int, roce: int | None) -> None:
    assert roce_mtu(mtu) == roce


def test_mlx5_xoff_estimate() -> None:
    # (301 + 216 * 7 // 100) * 400000 // 1000 + 272 * 9000 // 100
    assert mlx5_xoff_bytes(400_000, 7, 9000) == 316 * 400 + 24480
    # speeds below 40G count as 40G
    assert mlx5_xoff_bytes(25_000, 0, 1500) == 301 * 40 + 4080


def test_firmware_values() -> None:
    assert (fw_int("255"), fw_int("0"), fw_int("Array[0..7]"), fw_int(None)) == (
        255,
        0,
        None,
        None,
    )
