"""Shared helpers for the Cumulus driver tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

from rocetune.model import Device
from rocetune.platforms.base import ParseResult
from rocetune.platforms.cumulus import PLATFORM as CUMULUS
from rocetune.platforms.cumulus.commands import NV_CONFIG
from rocetune.snapshot import Snapshot, SourceFile, read_single_file
from tests.paths import CORPUS as CORPUS_ROOT

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "cumulus"
CORPUS = CORPUS_ROOT / "cumulus"
DRIVER = CUMULUS

DSCP_DEFAULT = {dscp: dscp >> 3 for dscp in range(64)}
IDENTITY8 = {n: n for n in range(8)}
ROCE_SP_TO_TC = {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 6, 7: 0}


def parse_fixture(name: str, device: str = "sw1") -> ParseResult:
    """Sniff and parse one fixture file as a single-file snapshot."""
    return parse_path(FIXTURES / name, device)


def parse_path(path: Path, device: str = "sw1") -> ParseResult:
    """Sniff and parse any saved file as a single-file snapshot."""
    command = DRIVER.sniff(str(path), path.read_text(encoding="utf-8"))
    assert command is not None, f"{path} was not recognised as Cumulus"
    return DRIVER.parse(read_single_file(path, command), device, "leaf")


def parse_text(text: str, name: str = "mem.yaml") -> ParseResult:
    """Parse configuration text (YAML or `nv set` lines) as `nv config show -o yaml`."""
    snapshot = Snapshot(files={NV_CONFIG.filename: SourceFile(path=name, text=text)})
    return DRIVER.parse(snapshot, "sw1", None)


def device(text: str) -> Device:
    """Parse configuration text and return the device."""
    return parse_text(text).device


def nvue(body: str) -> str:
    """Wrap a ``set`` body (keys at column 0) into an NVUE revision list.

    The body's first line is line 4 of the result (a leading newline is dropped).
    """
    inner = textwrap.indent(textwrap.dedent(body).lstrip("\n"), "    ")
    return "- header:\n    rev-id: 1.0\n- set:\n" + inner
