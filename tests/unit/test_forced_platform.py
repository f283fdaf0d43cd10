"""A forced platform (``--platform``, inventory ``platform:``) that the content contradicts is
an input error, exit 2, one line naming the file (issue 19 item 4); a partial file of that
platform, or a file no platform recognises, is read as forced."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocetune.errors import SnapshotError
from rocetune.load import read_dir, read_file
from rocetune.model import Device
from rocetune.platforms import detect as detect_module
from rocetune.platforms import drivers
from rocetune.platforms.base import ParseResult, Platform, Provenance, fixed_commands
from rocetune.platforms.detect import detect
from rocetune.snapshot import Command, Snapshot
from tests.cli.conftest import run_cli
from tests.paths import ROOT

REALWORLD = ROOT / "tests" / "realworld" / "configs"
SCRIPT = ROOT / "tests" / "corpus" / "host" / "scripts" / "imperial_rcs_cx3_configure_roce.sh"
NXOS = REALWORLD / "nxos" / "msft_sdn_n3132_tor1.cfg"


def test_cli_platform_mismatch_is_exit_2_with_one_line_naming_the_file() -> None:
    res = run_cli("lint", "--platform", "eos", SCRIPT)
    assert res.code == 2
    errors = [ln for ln in res.err.splitlines() if ln.strip()]
    assert len(errors) == 1
    assert str(SCRIPT.name) in errors[0]
    assert "does not match the content" in errors[0]
    assert "linux_host" in errors[0]


def test_inventory_platform_mismatch_is_exit_2(tmp_path: Path) -> None:
    inv = tmp_path / "inventory.yaml"
    inv.write_text(
        "devices:\n"
        f"  sw1: {{host: 10.0.0.1, platform: sonic, snapshot: {NXOS}}}\n"
        f"  gpu1: {{host: 10.0.0.2, platform: linux_host, snapshot: {SCRIPT}}}\n"
    )
    res = run_cli("audit", inv)
    assert res.code == 2
    assert NXOS.name in res.err
    assert "platform 'sonic' does not match the content" in res.err


@pytest.mark.parametrize(
    ("platform", "text"),
    [
        ("nxos", "interface Ethernet1/1\n  priority-flow-control mode on\n"),  # partial
        ("eos", "hostname leaf9\n"),  # recognised by no platform
        ("linux_host", "9000\n"),  # a bare MTU value
        ("sonic", '{"PORT_QOS_MAP": {}}\n'),
    ],
)
def test_partial_or_unrecognised_files_are_read_as_forced(
    tmp_path: Path, platform: str, text: str
) -> None:
    path = tmp_path / "partial.cfg"
    path.write_text(text)
    got = read_file(path, platform)
    assert not isinstance(got, str)
    assert got[0].name == platform


def _platform_of(path: Path) -> str:
    return path.relative_to(REALWORLD).parts[0]


REAL = sorted(p for p in REALWORLD.rglob("*") if p.is_file())


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.relative_to(REALWORLD).as_posix())
def test_real_files_own_platform_accepted_others_refused_when_recognised(path: Path) -> None:
    own = _platform_of(path)
    assert not isinstance(read_file(path, own), str)
    found = detect(str(path), path.read_text(errors="replace"))
    recognised = found.driver is not None and found.driver.name == own
    for other in drivers():
        if other == own:
            continue
        if recognised:
            with pytest.raises(SnapshotError, match="does not match the content"):
                read_file(path, other)


def test_snapshot_directory_without_meta_forced_to_another_platform(tmp_path: Path) -> None:
    snap = tmp_path / "leafX"
    snap.mkdir()
    (snap / "show_running_config.txt").write_text(NXOS.read_text())
    with pytest.raises(SnapshotError, match="its files read as nxos"):
        read_dir(snap, "eos")
    got = read_dir(snap, "nxos")
    assert not isinstance(got, str)
    assert got[0].name == "nxos"


_FAKE_COMMAND = Command(id="running_config", command="show fake running-config")


def _fake_sniff(path: str, text: str) -> Command | None:
    del path
    return _FAKE_COMMAND if text.startswith("! fakeos") else None


def _fake_parse(snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
    del snapshot
    return ParseResult(Device(name=name, kind="switch", platform="fakeos", role=role), Provenance())


FAKE = Platform(
    name="fakeos",
    kind="switch",
    description="a platform added later: only sniff (and optionally evidence) is needed",
    commands=fixed_commands((_FAKE_COMMAND,)),
    sniff=_fake_sniff,
    parser=_fake_parse,
    device_type="generic",
    evidence=re.compile(r"^fake qos \S+"),
)


def test_new_platforms_get_detection_and_the_mismatch_check_from_their_sniff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = {**drivers(), "fakeos": FAKE}
    monkeypatch.setattr(detect_module, "drivers", lambda: table)
    monkeypatch.setattr("rocetune.load.get_driver", table.get)
    fake = tmp_path / "fake.cfg"
    fake.write_text("! fakeos 1.0\nfake qos roce\nfake qos lossless\nfake qos pfc\n")
    assert detect_module.evidence(fake.read_text())["fakeos"] == 3
    found = detect(str(fake), fake.read_text())
    assert found.driver is not None
    assert found.driver.name == "fakeos"
    with pytest.raises(SnapshotError, match="reads as fakeos"):
        read_file(fake, "eos")
    with pytest.raises(SnapshotError, match="reads as nxos"):
        read_file(NXOS, "fakeos")
