"""Shared helpers for the Linux host driver tests."""

from __future__ import annotations

from pathlib import Path

from rocetune.model import Device
from rocetune.platforms.base import ParseResult
from rocetune.platforms.linux_host import PLATFORM as LINUX_HOST
from rocetune.platforms.linux_host.base import Notes
from rocetune.platforms.linux_host.segments import Segment, split
from rocetune.snapshot import Snapshot, SourceFile, read_directory, read_single_file
from tests.paths import CORPUS as CORPUS_ROOT

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "linux_host"
SNAPSHOT = FIXTURES / "gpu01"
CORPUS = CORPUS_ROOT / "host"
DRIVER = LINUX_HOST


def segment(text: str, file: str = "out.txt") -> Segment:
    """The whole text as one output (no transcript splitting)."""
    return split(text, file, transcript=False)[0]


def notes(file: str = "out.txt") -> Notes:
    """An empty notes collector."""
    return Notes(file)


def parse_snapshot_dir(path: Path = SNAPSHOT, name: str = "gpu01") -> ParseResult:
    """Parse a snapshot directory."""
    return DRIVER.parse(read_directory(path), name, "host")


def parse_file(path: Path, name: str = "h1") -> ParseResult:
    """Sniff and parse one saved file."""
    command = DRIVER.sniff(str(path), path.read_text(encoding="utf-8"))
    assert command is not None, f"{path} not recognised as a host file"
    return DRIVER.parse(read_single_file(path, command), name, None)


def fixture_files() -> dict[str, str]:
    """The gpu01 snapshot: file name -> text (meta.json excluded)."""
    return {
        p.name: p.read_text(encoding="utf-8")
        for p in sorted(SNAPSHOT.iterdir())
        if p.name != "meta.json"
    }


def parse_files(files: dict[str, str], name: str = "gpu01") -> ParseResult:
    """Parse an in-memory snapshot (no meta.json: names come from the file names)."""
    snap = Snapshot(
        files={n: SourceFile(path=f"/mem/{n}", text=t) for n, t in files.items()},
        origin="/mem",
    )
    return DRIVER.parse(snap, name, "host")


def device(files: dict[str, str]) -> Device:
    """The device of an in-memory snapshot."""
    return parse_files(files).device
