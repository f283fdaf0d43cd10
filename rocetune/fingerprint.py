"""Stable finding fingerprints, shared by the SARIF report and ``rocetune diff``.

A fingerprint identifies "the same problem" across runs and across edits of unrelated lines:
it hashes the rule code, the device, the port or link, and the normalised observed value. It
deliberately leaves out the file, the line and the message wording, so moving a config
stanza or rewording a message does not reopen an alert, while a different wrong value does.

RT000 (missing data) always observes "not in snapshot"; its value part is the list of rules
that could not run (its ``expected``), so each RT000 group keeps its own fingerprint.

Two findings of one run can still share these four parts (two RT000 notes on one device, say);
:func:`fingerprints` then appends an occurrence number (``:2``, ``:3``, ...) in report order,
the way GitHub's own line hashes do, so every result of a run has a distinct fingerprint.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rocetune.model import Finding

FINGERPRINT_KEY = "rocetune/v1"
"""Name of the fingerprint in SARIF ``partialFingerprints``; bump the version when the recipe
changes so GitHub does not match old and new hashes."""

MISSING_CODE = "RT000"
_SEP = "\x1f"


def normalise_observed(observed: str | None) -> str:
    """Observed value with case and runs of whitespace folded (``None`` -> ``""``)."""
    if observed is None:
        return ""
    return " ".join(observed.split()).lower()


def fingerprint_parts(finding: Finding) -> tuple[str, str, str, str, str]:
    """The parts a fingerprint hashes: code, device, port, link, normalised observed."""
    value = finding.expected if finding.code == MISSING_CODE else finding.observed
    return (
        finding.code,
        finding.device or "",
        finding.port or "",
        finding.link or "",
        normalise_observed(value),
    )


def fingerprint(finding: Finding) -> str:
    """Hex SHA-256 (first 32 digits) of :func:`fingerprint_parts`."""
    text = _SEP.join(fingerprint_parts(finding))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def fingerprints(findings: Iterable[Finding]) -> list[str]:
    """Fingerprints of a run's findings, made unique by an occurrence suffix ``:n``."""
    seen: dict[str, int] = {}
    out = []
    for f in findings:
        base = fingerprint(f)
        seen[base] = seen.get(base, 0) + 1
        n = seen[base]
        out.append(base if n == 1 else f"{base}:{n}")
    return out
