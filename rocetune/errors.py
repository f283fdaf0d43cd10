"""Exceptions the CLI turns into one-line messages and exit code 2."""

from __future__ import annotations

from pathlib import Path


class RocetuneError(Exception):
    """Base class: a user-facing problem with the input, never a bug."""

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        return f"{where}{self.message}"


class InventoryError(RocetuneError):
    """The inventory file is invalid. ``more`` holds further problems found in the same file
    (every problem is reported at once); they are printed on their own lines after this one."""

    more: tuple[InventoryError, ...] = ()

    def __str__(self) -> str:
        first = super().__str__()
        if not self.more:
            return first
        rest = "".join(f"\n  {RocetuneError.__str__(e)}" for e in self.more)
        return f"{first}{rest}\n  ({1 + len(self.more)} problems in this inventory)"


def combined(errors: list[InventoryError]) -> InventoryError:
    """One exception for several inventory problems (the first, with the others in ``more``)."""
    first = errors[0]
    first.more = tuple(errors[1:])
    return first


class ConfigError(RocetuneError):
    """Invalid command-line selection or configuration."""


class ParseError(RocetuneError):
    """A snapshot or config file cannot be read as the platform's format."""


class SnapshotError(RocetuneError):
    """A snapshot directory or file is missing or malformed."""
