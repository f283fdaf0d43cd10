"""Every report format neutralises control characters taken from input files."""

from __future__ import annotations

import pytest

from rocetune.report import FORMATS, render
from rocetune.report.safe_text import neutralise
from tests.report.helpers import finding, result

HOSTILE = "port \x1b]0;pwned\x07 \x1b[2J\x00 \u202etxt.exe \x9b1m \u2066x\u2069"
RAW = ("\x1b", "\x07", "\x00", "\u202e", "\x9b", "\u2066", "\u2069")


def hostile_result():
    findings = [
        finding(
            "RT001",
            "warning",
            device="leaf1",
            port=HOSTILE,
            message=f"not understood: {HOSTILE}",
            observed=HOSTILE,
            expected=HOSTILE,
            file=f"cfg/{HOSTILE}.txt",
            line=3,
        )
    ]
    return result(findings, {"leaf1": None, "leaf2": f"parse error: {HOSTILE}"}, rules=("RT001",))


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_no_raw_control_character_reaches_any_format(fmt: str) -> None:
    body = render(fmt, hostile_result())
    for ch in RAW:
        assert ch not in body, (fmt, repr(ch))


def test_neutralise_shows_what_was_there_and_keeps_tab_and_newline() -> None:
    assert neutralise("a\x1bb") == "a\\x1bb"
    assert neutralise("a\u202eb") == "a\\u202eb"
    assert neutralise("a\tb\nc") == "a\tb\nc"
    assert neutralise("µs → 9216") == "µs → 9216"


def test_text_output_shows_the_escape_visibly() -> None:
    body = render("text", hostile_result())
    assert "\\x1b]0;pwned\\x07" in body
