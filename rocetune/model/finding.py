"""Findings: what a rule reports."""

from __future__ import annotations

from enum import Enum

from rocetune.model.base import Model


class Severity(str, Enum):
    """Finding severity, ordered info < warning < error."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        """Return 0 for info, 1 for warning, 2 for error."""
        return ("info", "warning", "error").index(self.value)


class Finding(Model):
    """One finding, in the shape of the JSON output contract (architecture.md)."""

    code: str
    name: str
    severity: Severity
    device: str | None = None
    port: str | None = None
    link: str | None = None
    message: str
    observed: str | None = None
    expected: str | None = None
    file: str | None = None
    line: int | None = None
    path: str | None = None
    """Model path the finding is about (e.g. ``ports.Ethernet0.pfc_rx``); resolved to
    file/line through the parser's provenance table. Not part of the JSON contract."""
