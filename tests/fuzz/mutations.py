"""Shared hypothesis strategies that mutate real configs, and the parser robustness contract.

Every parser must, for any mutation of a real input, either return a model or raise
rocetune.errors.ParseError naming the file and a line: never another exception.

Examples per test: ``ROCETUNE_FUZZ_EXAMPLES`` (default 200 in CI). The documented long run is
``ROCETUNE_FUZZ_EXAMPLES=10000 pytest tests/fuzz -q -p no:randomly``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from rocetune.errors import ParseError
from rocetune.platforms.base import ParseResult, Platform
from rocetune.snapshot import Command, Snapshot, SourceFile

EXAMPLES = int(os.environ.get("ROCETUNE_FUZZ_EXAMPLES", "200"))

FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=EXAMPLES <= 1000,
)
"""Deterministic in CI (derandomize) so a red run reproduces; random in the long run."""

JUNK = [
    "\x00",
    "\ufffd",
    "é",
    "☃",
    "\u202e",
    "\t",
    "\r",
    "{",
    "}",
    "[",
    "]",
    '"',
    ":",
    ",",
    "-",
    "|",
    "99999999999999999999999999",
    "-1",
    "1e309",
    "NaN",
    "null",
    "true",
    "0x1F",
    "3-",
    "  ",
]

Mutation = Callable[[list[str]], list[str]]


def _truncate(lines: list[str], cut: int) -> list[str]:
    text = "\n".join(lines)
    return text[: cut % (len(text) + 1)].split("\n")


@st.composite
def mutated(draw: st.DrawFn, originals: Sequence[str]) -> str:
    """A real input with one to four random edits: truncate, delete, duplicate, swap lines,
    insert junk tokens, replace numbers by huge/negative/odd values, flip types."""
    text = draw(st.sampled_from(list(originals)))
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines = [""]
        kind = draw(st.sampled_from(["trunc", "del", "dup", "swap", "junk", "num", "type"]))
        i = draw(st.integers(0, len(lines) - 1))
        if kind == "trunc":
            lines = _truncate(lines, draw(st.integers(0, 10**9)))
        elif kind == "del":
            del lines[i]
        elif kind == "dup":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "junk":
            pos = draw(st.integers(0, len(lines[i])))
            token = draw(st.sampled_from(JUNK) | st.text(max_size=8))
            lines[i] = lines[i][:pos] + token + lines[i][pos:]
        elif kind == "num":
            lines[i] = _replace_number(lines[i], draw(st.sampled_from(JUNK[16:])))
        else:
            lines[i] = lines[i].replace('"', "", 2) if '"' in lines[i] else lines[i] + ": []"
    return "\n".join(lines)


def _replace_number(line: str, new: str) -> str:
    for idx, ch in enumerate(line):
        if ch.isdigit():
            end = idx
            while end < len(line) and line[end].isdigit():
                end += 1
            return line[:idx] + new + line[end:]
    return line + " " + new


def check_parse(driver: Platform, command: Command, text: str, name: str = "dut") -> None:
    """Assert the robustness contract for one input."""
    path = f"/fuzz/{command.filename}"
    snap = Snapshot(files={command.filename: SourceFile(path=path, text=text)}, origin=path)
    error: ParseError | None = None
    try:
        result = driver.parse(snap, name, None)
    except ParseError as exc:
        error = exc
    if error is not None:
        assert error.file is not None, f"ParseError without a file: {error}"
        assert error.line is not None, f"ParseError without a line: {error}"
        assert error.line >= 1
        return
    assert isinstance(result, ParseResult)
    assert result.device.name == name
