"""Neutralise control characters before any report prints text taken from input files.

Finding messages quote config lines, device names and remote error output, all of which
an attacker may control. Left as they are, control characters break JUnit XML (XML 1.0
allows no C0 controls but tab and newline), move the cursor or recolour a terminal (ANSI
escapes in text and GitHub annotation output), and bidirectional overrides make a line
read differently from what it is ("Trojan source"). Each such character is shown as a
visible escape (``\\x1b``, ``\\u202e``) instead; tab and newline stay.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rocetune.model import AuditResult

_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ufeff\ufffe\uffff\ud800-\udfff]"
)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def neutralise(text: str) -> str:
    """``text`` with every unsafe character replaced by its visible escape."""
    return _UNSAFE.sub(_visible, text)


def _clean(value: Any) -> Any:
    return neutralise(value) if isinstance(value, str) else value


def _clean_fields(obj: Any, names: tuple[str, ...], seen: dict[str, bool] | None = None) -> Any:
    """``obj`` with the strings of ``names`` neutralised (itself when all are safe).
    ``seen``: string -> whether it is unsafe, for objects that share strings (a fleet's
    findings share their words, device and file names)."""
    if seen is None:
        seen = {}
    for n in names:
        value = getattr(obj, n)
        if isinstance(value, str):
            unsafe = seen.get(value)
            if unsafe is None:
                unsafe = seen[value] = _UNSAFE.search(value) is not None
            if unsafe:
                break
    else:
        return obj  # nothing to neutralise
    changes = {n: _clean(getattr(obj, n)) for n in names}
    changes = {
        n: v for n, v in changes.items() if v is not getattr(obj, n) and v != getattr(obj, n)
    }
    if not changes:
        return obj
    if dataclasses.is_dataclass(obj):
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    return obj.model_copy(update=changes)


_FINDING = ("device", "port", "link", "message", "observed", "expected", "file", "path")


def neutralise_result(result: AuditResult) -> AuditResult:
    """A copy of ``result`` whose reportable strings are neutralised."""
    verify = result.verify
    if verify is not None:
        verify = tuple(_clean_fields(p, ("client", "server", "error")) for p in verify)
    seen: dict[str, bool] = {}
    findings = [_clean_fields(f, _FINDING, seen) for f in result.findings]
    return dataclasses.replace(
        result,
        findings=findings,
        fixes=_clean_fixes(result, findings),
        devices={
            neutralise(k): _clean_fields(v, ("name", "platform", "error"))
            for k, v in result.devices.items()
        },
        verify=verify,
    )


def _clean_fixes(result: AuditResult, findings: list[Any]) -> dict[str, tuple[str, ...]]:
    """The fix texts neutralised, keyed by the fingerprints of the neutralised findings."""
    if not result.fixes:
        return {}
    from rocetune.fingerprint import fingerprint

    renamed = {
        fingerprint(old): fingerprint(new)
        for old, new in zip(result.findings, findings, strict=True)
        if old is not new
    }
    return {
        renamed.get(fp, fp): tuple(neutralise(t) for t in texts)
        for fp, texts in result.fixes.items()
    }
