"""Reasons: why a computed target value is what it is (formula and inputs), for explain output.

Every value :mod:`rocetune.tune.target` computes carries a :class:`Reason`; renderers print
them as comments where the syntax allows (NVUE YAML, ``nv set`` lists) and in a sidecar file
where it does not (JSON).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reason:
    """One computed value: what it is, its value, and how it was computed."""

    scope: str
    """``device``, a port name or a NIC name."""
    what: str
    """The setting, e.g. ``ECN Kmin (queue 3)``."""
    value: str
    """The value as rendered, with its unit (``1600000 B``)."""
    why: str
    """The formula with its inputs, or the intent key it comes from."""

    def line(self) -> str:
        """``what = value: why`` (one line, no scope)."""
        return f"{self.what} = {self.value}: {self.why}"

    def full(self) -> str:
        """``scope: what = value: why``."""
        return f"{self.scope}: {self.line()}"


def fmt_map(table: dict[int, int]) -> str:
    """``26->3, 48->6`` for the non-default entries of a map."""
    return ", ".join(f"{k}->{v}" for k, v in sorted(table.items()))
