"""The robustness contract for snapshots of several outputs (a config plus optional ones).

:func:`tests.fuzz.mutations.check_parse` puts one output in a snapshot; optional outputs
(operational JSON, LLDP) only parse next to a configuration, so these helpers build the
snapshot from several files, one of which is mutated, and apply the same contract: the
driver returns a model or raises ParseError naming one of the files and a line, never
anything else. Sniffing a mutated file never raises either.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rocetune.errors import ParseError
from rocetune.platforms.base import ParseResult, Platform
from rocetune.snapshot import Command, Snapshot, SourceFile


def read(path: Path) -> str:
    """A file as the snapshot reader would see it (UTF-8, undecodable bytes replaced)."""
    return path.read_bytes().decode("utf-8", errors="replace")


def check_parse_files(
    driver: Platform, outputs: Mapping[Command, str], name: str = "dut"
) -> ParseResult | None:
    """Assert the contract for a snapshot of ``outputs``; return the result when it parsed."""
    files = {c.filename: SourceFile(path=f"/fuzz/{c.filename}", text=t) for c, t in outputs.items()}
    snap = Snapshot(files=files, origin="/fuzz")
    error: ParseError | None = None
    try:
        result = driver.parse(snap, name, None)
    except ParseError as exc:
        error = exc
    if error is not None:
        assert error.file is not None, f"ParseError without a file: {error}"
        assert str(error.file) in {f.path for f in files.values()}, f"unknown file: {error}"
        assert error.line is not None, f"ParseError without a line: {error}"
        assert error.line >= 1
        return None
    assert isinstance(result, ParseResult)
    assert result.device.name == name
    return result


def check_sniff(driver: Platform, command: Command, text: str) -> None:
    """Sniffing never raises and returns a command or None."""
    got = driver.sniff(f"/fuzz/{command.filename}", text)
    assert got is None or isinstance(got, Command)
