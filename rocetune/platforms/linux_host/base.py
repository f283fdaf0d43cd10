"""What every per-command parser returns: values with their lines, and what it did not get.

A parser reads one :class:`~rocetune.platforms.linux_host.segments.Segment` and returns a
:class:`Found` (``NicPort`` field -> value, and the line each came from) or a small typed
result of its own. Lines it does not understand and that matter for QoS go to
:class:`Notes` (they become ``Unparsed`` items, RT001); tool error messages (``No such file or
directory``, ``command not found``) go to :attr:`Notes.errors` (device facts: the value stays
unknown, so the rules say RT000).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rocetune.model import Unparsed
from rocetune.model.device import Feature
from rocetune.platforms.common.cli_tree import features_of
from rocetune.platforms.linux_host.segments import Segment

_MAX_ITEM = 160
_ERROR = re.compile(
    r"(no such file or directory|command not found|permission denied|operation not permitted|"
    r"operation not supported|not supported on|cannot get|must be root|does not exist|"
    r"is not loaded|failed to|no such device|-e- )",
    re.IGNORECASE,
)


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
class Notes:
    """Unparsed items and tool errors of one file."""

    file: str
    items: list[Unparsed] = field(default_factory=list)
    errors: list[tuple[int | None, str]] = field(default_factory=list)
    ports: tuple[str, ...] | None = None
    """The NIC the output being read belongs to (None: not known or not one NIC)."""

    def unparsed(
        self,
        item: str,
        reason: str,
        line: int | None,
        *,
        features: tuple[Feature, ...] | None = None,
    ) -> None:
        """Record a QoS-relevant line (or value) the parser did not understand."""
        text = item.strip()
        if len(text) > _MAX_ITEM:
            text = text[:_MAX_ITEM] + "..."
        self.items.append(
            Unparsed(
                item=text,
                reason=reason,
                file=self.file,
                line=line,
                ports=self.ports,
                features=features_of(text) if features is None else features,
            )
        )

    def error(self, line: int | None, text: str) -> None:
        """Record a tool error message (the value it should have printed stays unknown)."""
        self.errors.append((line, text.strip()[:_MAX_ITEM]))


def is_error(text: str) -> bool:
    """True for a line that is a tool's error message rather than output."""
    return _ERROR.search(text) is not None


def take_errors(segment: Segment, notes: Notes) -> list[tuple[int, str]]:
    """The non-blank lines of ``segment`` that are not error messages (errors are noted)."""
    kept = []
    for number, text in segment.meaningful():
        if is_error(text):
            notes.error(number, text)
        else:
            kept.append((number, text))
    return kept


def to_int(text: str, low: int, high: int) -> int | None:
    """A decimal integer in ``low..high``, or None."""
    value = text.strip()
    if not re.fullmatch(r"[+-]?\d{1,12}", value):
        return None
    number = int(value)
    return number if low <= number <= high else None
