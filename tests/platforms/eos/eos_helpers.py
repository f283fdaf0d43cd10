"""Shared helpers for the EOS driver tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

from rocetune.model import Device, Scheduler
from rocetune.platforms.base import ParseResult
from rocetune.platforms.eos import PLATFORM as EOS
from rocetune.platforms.eos.commands import LLDP_DETAIL, RUNNING_CONFIG
from rocetune.snapshot import Snapshot, SourceFile, read_directory, read_single_file
from tests.paths import CORPUS as CORPUS_ROOT

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "eos"
CORPUS = CORPUS_ROOT / "eos"
DRIVER = EOS

DSCP_DEFAULT = {dscp: dscp >> 3 for dscp in range(64)}
IDENTITY8 = {n: n for n in range(8)}
ALL_STRICT = {q: Scheduler(kind="strict") for q in range(8)}


def parse_path(path: Path, device: str = "sw1") -> ParseResult:
    """Sniff and parse a saved file (or a snapshot directory)."""
    if path.is_dir():
        return DRIVER.parse(read_directory(path), device, "spine")
    command = DRIVER.sniff(str(path), path.read_text(encoding="utf-8"))
    assert command is not None, f"{path} was not recognised as EOS"
    return DRIVER.parse(read_single_file(path, command), device, "leaf")


def parse_text(text: str, lldp: str | None = None, name: str = "run.txt") -> ParseResult:
    """Parse running-config text, optionally with LLDP detail JSON.

    The text is dedented and a leading newline dropped, so its first line is line 1.
    """
    body = textwrap.dedent(text).lstrip("\n")
    files = {RUNNING_CONFIG.filename: SourceFile(path=name, text=body)}
    if lldp is not None:
        files[LLDP_DETAIL.filename] = SourceFile(path="lldp.json", text=lldp)
    return DRIVER.parse(Snapshot(files=files, origin=name), "sw1", None)


def device(text: str) -> Device:
    """Parse running-config text and return the device."""
    return parse_text(text).device


def items(dev: Device) -> list[tuple[str, int | None]]:
    """The Unparsed items of a device as (item, line)."""
    return [(u.item, u.line) for u in dev.unparsed]
