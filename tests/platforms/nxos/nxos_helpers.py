"""Shared helpers for the NX-OS driver tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

from rocetune.model import Device, Port
from rocetune.platforms.base import ParseResult
from rocetune.platforms.nxos import PLATFORM as NXOS
from rocetune.platforms.nxos.commands import INTERFACES, LLDP, RUNNING_CONFIG
from rocetune.snapshot import Command, Snapshot, SourceFile, read_single_file
from tests.paths import CORPUS as CORPUS_ROOT

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "nxos"
CORPUS = CORPUS_ROOT / "nxos"
DRIVER = NXOS
IDENTITY8 = {n: n for n in range(8)}
ALL_ZERO = dict.fromkeys(range(64), 0)


def parse_path(path: Path, device: str = "sw1") -> ParseResult:
    """Sniff and parse a saved file as a single-file snapshot."""
    command = DRIVER.sniff(str(path), path.read_text(encoding="utf-8"))
    assert command is not None, f"{path} was not recognised as NX-OS"
    return DRIVER.parse(read_single_file(path, command), device, None)


def parse_outputs(outputs: dict[Command, str], device: str = "sw1") -> ParseResult:
    """Parse a snapshot of several outputs (texts)."""
    files = {c.filename: SourceFile(path=c.filename, text=t) for c, t in outputs.items()}
    return DRIVER.parse(Snapshot(files=files), device, "leaf")


def parse_text(text: str) -> ParseResult:
    """Parse running-config text (dedented) as ``show running-config`` (file ``run.cfg``)."""
    snapshot = Snapshot(
        files={RUNNING_CONFIG.filename: SourceFile(path="run.cfg", text=textwrap.dedent(text))}
    )
    return DRIVER.parse(snapshot, "sw1", None)


def device(text: str) -> Device:
    """Parse running-config text and return the device."""
    return parse_text(text).device


def port(text: str, name: str = "Ethernet1/1") -> Port:
    """Parse running-config text and return one port."""
    return device(text).ports[name]


def unparsed(text: str) -> list[tuple[int | None, str]]:
    """(line, item) of every Unparsed item of a running-config text."""
    return [(u.line, u.item) for u in device(text).unparsed]


def spine_outputs() -> dict[Command, str]:
    """The three outputs of the RoCE spine fixture."""
    return {
        RUNNING_CONFIG: (FIXTURES / "roce_spine_running_config.txt").read_text(),
        INTERFACES: (FIXTURES / "roce_spine_show_interface.json").read_text(),
        LLDP: (FIXTURES / "roce_spine_lldp.json").read_text(),
    }


BLUEPRINT_QOS = """\
class-map type qos match-any ROCEv2
  match dscp 26
class-map type qos match-any CNP
  match dscp 48
policy-map type qos QOS_CLASSIFICATION
  class ROCEv2
    set qos-group 3
  class CNP
    set qos-group 7
policy-map type network-qos NQ
  class type network-qos c-8q-nq3
    pause pfc-cos 3
    mtu 9216
system qos
  service-policy type network-qos NQ
"""
"""A minimal lossless configuration (lines 1-15) that tests append interfaces to."""
