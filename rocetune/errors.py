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
    """The inventory file is invalid."""


class ConfigError(RocetuneError):
    """Invalid command-line selection or configuration."""


class ParseError(RocetuneError):
    """A snapshot or config file cannot be read as the platform's format."""


class SnapshotError(RocetuneError):
    """A snapshot directory or file is missing or malformed."""
