"""What every per-command parser returns: values with their lines, and what it did not get.

A parser reads one :class:`~rocetune.platforms.linux_host.segments.Segment` and returns a
:class:`Found` (``NicPort`` field -> value, and the line each came from) or a small typed
result of its own. Lines it does not understand and that matter for QoS go to
:class:`Notes` (``notes.add``: they become ``Unparsed`` items, RT001); tool error messages
(``No such file or directory``, ``command not found``) go to :attr:`Notes.errors` (device
facts: the value stays unknown, so the rules say RT000).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar

from rocetune.platforms.common.unparsed import Scope, UnparsedCollector, features_of
from rocetune.platforms.linux_host.segments import Segment

_MAX_ITEM = 160
_ERROR = re.compile(
    r"(no such file or directory|command not found|permission denied|operation not permitted|"
    r"operation not supported|not supported on|cannot get|must be root|does not exist|"
    r"is not loaded|failed to|no such device|-e- )",
    re.IGNORECASE,
)
_ERROR_ASCII = re.compile(_ERROR.pattern)
""":data:`_ERROR` for lower-cased ASCII text (IGNORECASE searches are many times slower; on
ASCII text they match exactly where the lower-cased text matches)."""
_INT = re.compile(r"[+-]?\d{1,12}")


@dataclass
class Found:
    """Values one output contributes to a NIC port (field -> value, field -> line)."""

    values: dict[str, object] = field(default_factory=dict)
    lines: dict[str, int | None] = field(default_factory=dict)
    name: str | None = None
    """The NIC/device name the output itself shows (``Settings for eth2:``), if any."""
    facts: dict[str, str] = field(default_factory=dict)

    def put(self, name: str, value: object, line: int | None) -> None:
        """Set one field (a later value replaces an earlier one)."""
        self.values[name] = value
        self.lines[name] = line


@dataclass
class Notes(UnparsedCollector):
    """Unparsed items (:class:`UnparsedCollector`) and tool errors of one host output file.

    Items are stripped and cut to :data:`_MAX_ITEM` characters (``...`` marks the cut); the
    same item twice is kept twice (outputs repeat per NIC); :attr:`ports` is the NIC the
    output being read belongs to (None: not known or not one NIC)."""

    MAX_ITEM: ClassVar[int | None] = _MAX_ITEM
    UNIQUE: ClassVar[bool] = False

    errors: list[tuple[int | None, str]] = field(default_factory=list)

    def clip(self, item: str) -> str:
        """The stripped item, cut with ``...``."""
        text = item.strip()
        return text[:_MAX_ITEM] + "..." if len(text) > _MAX_ITEM else text

    def scope(self, item: str) -> Scope:
        """The NIC being read and the features the recorded (cut) text names."""
        return self.ports, features_of(self.clip(item))

    def error(self, line: int | None, text: str) -> None:
        """Record a tool error message (the value it should have printed stays unknown)."""
        self.errors.append((line, text.strip()[:_MAX_ITEM]))


def is_error(text: str) -> bool:
    """True for a line that is a tool's error message rather than output."""
    if text.isascii():
        return _ERROR_ASCII.search(text.lower()) is not None
    return _ERROR.search(text) is not None


def take_errors(segment: Segment, notes: Notes) -> list[tuple[int, str]]:
    """The non-blank lines of ``segment`` that are not error messages (errors are noted)."""
    lines = segment.meaningful()
    if not is_error("\n".join(text for _, text in lines)):
        return lines  # no error message (none of them spans a line break)
    kept = []
    for number, text in lines:
        if is_error(text):
            notes.error(number, text)
        else:
            kept.append((number, text))
    return kept


@lru_cache(maxsize=4096)
def to_int(text: str, low: int, high: int) -> int | None:
    """A decimal integer in ``low..high``, or None.

    Memoised: a host's outputs repeat the same few cells (DSCP and priority numbers, 0/1
    flags) about a thousand times per host; the call is pure (str and ints in, int out)."""
    value = text.strip()
    if not _INT.fullmatch(value):
        return None
    number = int(value)
    return number if low <= number <= high else None
