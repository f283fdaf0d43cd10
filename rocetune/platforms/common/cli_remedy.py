"""Shared helpers of the EOS and NX-OS remediations: recorded CLI changes and their inverses.

A change is a block of config-mode lines (section headers, then the indented line); its
rollback is the block that restores the old line (or ``no <line>`` when there was none).
Blocks are merged by text, so several findings that ask for the same line share one change.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rocetune.platforms.changes import Change, Fix, PlatformPlan
from rocetune.platforms.common.cli_edit import Node, apply_block


@dataclass
class CliPlan:
    """Changes recorded so far, by block text."""

    unit: int
    single: tuple[str, ...]
    blocks: dict[str, Change] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(
        self,
        fix: Fix,
        headers: list[str],
        line: str,
        old: str | None,
        kind: str,
        *,
        port: str | None = None,
    ) -> None:
        """Enter ``line`` under ``headers``; ``old`` is the line it replaces (None: none)."""
        self.add_lines(fix, headers, [(line, old)], kind, port=port)

    def add_lines(
        self,
        fix: Fix,
        headers: list[str],
        pairs: list[tuple[str, str | None]],
        kind: str,
        *,
        port: str | None = None,
    ) -> None:
        """Enter several (line, old line) pairs under ``headers`` as one change."""
        pairs = [(ln, old) for ln, old in pairs if ln != old]
        if not pairs:
            return
        text = _block(headers, [ln for ln, _ in pairs], self.unit)
        olds = [old if old is not None else "no " + ln for ln, old in reversed(pairs)]
        back = _block(headers, olds, self.unit)
        merge_change(self.blocks, fix, text, back, kind=kind, port=port)

    def plan(self, hint: str) -> PlatformPlan:
        """The platform plan of the recorded changes."""
        return PlatformPlan(changes=list(self.blocks.values()), hint=hint, notes=self.notes)


def merge_change(
    blocks: dict[str, Change],
    fix: Fix,
    text: str,
    rollback: str,
    *,
    kind: str,
    port: str | None,
) -> None:
    """Record the change ``text`` for ``fix``; a block already recorded with the same text
    is one change that fixes both (fingerprints and codes merged, the first reason kept)."""
    got = blocks.get(text)
    fixes = set(got.fixes if got else ()) | ({fix.fingerprint} if fix.fingerprint else set())
    codes = set(got.codes if got else ()) | {fix.code}
    blocks[text] = Change(
        text,
        kind,
        port,
        rollback,
        tuple(sorted(fixes)),
        tuple(sorted(codes)),
        fix.because if got is None else got.because,
    )


def _block(headers: list[str], body: list[str], unit: int) -> str:
    lines = [" " * (unit * i) + h for i, h in enumerate(headers)]
    lines.extend(" " * (unit * len(headers)) + ln for ln in body)
    return "\n".join(lines)


def find(root: Node, *texts: str) -> Node | None:
    """The node reached by the exact line texts ``texts`` from ``root``."""
    node: Node | None = root
    for t in texts:
        if node is None:
            return None
        node = next((c for c in node.children if c.text == t), None)
    return node


def child_starting(node: Node | None, prefix: str) -> str | None:
    """The text of the first child line that is ``prefix`` or starts with ``prefix ``."""
    if node is None:
        return None
    for c in node.children:
        if c.text == prefix or c.text.startswith(prefix + " "):
            return c.text
    return None


def simulate_text(text: str, blocks: list[str], unit: int, single: tuple[str, ...]) -> str:
    """``text`` with every block entered in order."""
    for block in blocks:
        text = apply_block(text, block, unit, single)
    return text
