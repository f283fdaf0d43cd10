"""The light follow-up reader gives exactly the full parse's follow-up commands.

``followup_commands`` reads only ``ibdev2netdev``, ``ethtool -i`` and the file names of a
first-round snapshot (what collection holds when it asks for follow-ups) and takes the full
parse for anything else. Compared with the full parse on every host snapshot and saved host
capture of the repository: as read, without ``meta.json`` (as collection sees them), cut to
the first-round files, and with each capture's text put in place of each first-round output
of the lab hosts (transcripts, prompts, odd names inside a collected output).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rocetune.platforms.linux_host import commands as c
from rocetune.platforms.linux_host.followups import (
    followup_commands,
    full_followups,
    light_followups,
)
from rocetune.snapshot import Snapshot, SourceFile, read_directory, read_single_file
from tests.lab.secrets import host_output
from tests.platforms.linux_host.host_helpers import CORPUS, DRIVER, FIXTURES

ROOT = Path(__file__).resolve().parents[3]
SNAPSHOT_DIRS = sorted(
    p.parent
    for top in ("inventories", "tests", "examples")
    for p in (ROOT / top).glob("**/meta.json")
    if '"linux_host"' in p.read_text(encoding="utf-8")
)
LAB_HOSTS = [d for d in SNAPSHOT_DIRS if d.parts[-3:-1] == ("lab", "snapshots")]
CAPTURE_ROOTS = (ROOT / "tests" / "realworld" / "configs" / "linux_host", CORPUS, FIXTURES)


_SUFFIXES = (".txt", ".md", ".sh", ".yaml", ".yml", ".log", ".cfg")


def _captures() -> list[Path]:
    found = []
    for root in CAPTURE_ROOTS:
        for path in sorted(root.rglob("*")):
            inside = any(path.is_relative_to(d) for d in SNAPSHOT_DIRS)
            if path.is_file() and not inside and path.suffix in _SUFFIXES:
                found.append(path)
    return found


CAPTURES = _captures()


def _files_only(snap: Snapshot) -> Snapshot:
    return Snapshot(files=dict(snap.files))


def _first_round(snap: Snapshot, nics: tuple[str, ...]) -> Snapshot:
    wanted = {cmd.filename for cmd in c.commands(nics)}
    return Snapshot(files={n: f for n, f in snap.files.items() if n in wanted})


def _nics(snap: Snapshot) -> tuple[str, ...]:
    out = []
    for name in sorted(snap.files):
        found = c.identify_file(name)
        if found is not None and found[0] is c.MLNX_QOS and found[1] is not None:
            out.append(found[1])
    return tuple(out)


def _same(snap: Snapshot) -> bool:
    """Asserts the light reader (when it decides) and the entry point equal the full parse;
    True when the light reader decided."""
    full = full_followups(snap)
    light = light_followups(snap)
    if light is not None:
        assert light == full
    assert followup_commands(snap) == full
    return light is not None


def test_snapshot_dirs_found() -> None:
    assert len(LAB_HOSTS) >= 4
    assert len(CAPTURES) >= 15


@pytest.mark.parametrize("directory", SNAPSHOT_DIRS, ids=lambda p: str(p.relative_to(ROOT)))
def test_host_snapshots(directory: Path) -> None:
    snap = read_directory(directory)
    _same(snap)
    _same(_files_only(snap))
    first = _first_round(snap, _nics(snap))
    assert _same(first), "collection's first round is read without the full parse"
    assert followup_commands(first), "the lab hosts have follow-ups"


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_captures_alone_and_inside_collected_outputs(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    command = DRIVER.sniff(str(path), text)
    if command is not None:
        alone = read_single_file(path, command)
        _same(alone)
        _same(_files_only(alone))
    host = _first_round(read_directory(FIXTURES / "gpu01"), ("eth2", "eth3"))
    for name in host.files:
        files = dict(host.files)
        files[name] = SourceFile(path=name, text=text)
        _same(Snapshot(files=files))


def test_planted_secret_host_takes_the_full_parse() -> None:
    host = _first_round(read_directory(FIXTURES / "gpu01"), ("eth2", "eth3"))
    files = dict(host.files)
    files["mlnx_qos_i_eth2.txt"] = SourceFile(path="x", text=host_output())
    snap = Snapshot(files=files)
    assert not _same(snap)  # a transcript after the output: its commands may name NICs


def _gpu01_first(**texts: str) -> Snapshot:
    host = _first_round(read_directory(FIXTURES / "gpu01"), ("eth2", "eth3"))
    files = dict(host.files)
    for name, text in texts.items():
        files[name] = SourceFile(path=name, text=text)
    return Snapshot(files=files)


_TWO_TO_ETH2 = "mlx5_1 port 1 ==> eth2 (Up)\nmlx5_0 port 1 ==> eth2 (Up)\n"
_EDGES: list[tuple[dict[str, str], bool]] = [
    # (outputs put in place of gpu01's first-round files, decided by the light reader)
    ({"ibdev2netdev.txt": ""}, False),  # two PCI-only NICs: display names from the outputs
    ({"ibdev2netdev.txt": "", "ethtool_eth3.txt": "Settings for ETH3:\n"}, False),
    ({"ibdev2netdev.txt": "", "ethtool_i_eth3.txt": ""}, True),  # one NIC: no order
    ({"ibdev2netdev.txt": "mlx5_1 port 1 ==> eth3 (Up)\n"}, False),
    ({"ibdev2netdev.txt": _TWO_TO_ETH2}, False),
    ({"ibdev2netdev.txt": _TWO_TO_ETH2 + "mlx5_2 port 1 ==> eth3 (Up)\n"}, True),
    (
        {
            "ibdev2netdev.txt": "mlx5_0 port 1 ==> eth2\nmlx5_1 port 1 ==> eth3\n"
            "mlx5_0 port 1 ==> eth3\n",
            "ethtool_i_eth2.txt": "",
        },
        True,
    ),
    ({"ibdev2netdev.txt": "mlx5_0 port 1 ==> ETH3 (Up)\nmlx5_1 port 2 ==> eth2 (Up)\n"}, True),
    ({"ibdev2netdev.txt": "mlx5_0 port 1 ==> eth9 (Up)\nbad;name port 1 ==> eth3 (Up)\n"}, False),
    ({"ethtool_i_eth2.txt": "driver: mlx5_core\nbus-info: 0000:AB:00.1\n"}, True),
    ({"ethtool_i_eth3.txt": "bus-info: not-a-pci\n"}, True),
    ({"ethtool_i_eth3.txt": "bus-info: 0000:01:00.0\nbus-info: 0000:02:00.0\n"}, True),
    ({"ethtool_i_eth2_.txt": "bus-info: 0000:42:00.0\n"}, True),
    ({"ethtool_i_eth2.txt": "$ ethtool -i eth7\nbus-info: 0000:99:00.0\n"}, False),
    ({"mlnx_qos_i_eth5.txt": "DCBX mode: OS controlled\n"}, True),
    ({"show_gids_mlx5_0.txt": "DEV PORT INDEX GID IPv4 VER DEV\n"}, False),
    ({"saved_host_transcript.txt": "$ ibdev2netdev\nmlx5_0 port 1 ==> eth2 (Up)\n"}, False),
    ({"hostname.txt": "gpu01\n# ibdev2netdev\nmlx5_7 port 1 ==> eth2 (Up)\n"}, False),
    ({"notes.txt": "$ ibdev2netdev\nmlx5_7 port 1 ==> eth2 (Up)\n"}, True),  # not read
]


@pytest.mark.parametrize(("texts", "decided"), _EDGES)
def test_edge_cases(texts: dict[str, str], decided: bool) -> None:
    assert _same(_gpu01_first(**texts)) == decided
