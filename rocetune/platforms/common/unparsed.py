"""The one collector of what a parser did not understand: the Unparsed items (RT001) of a file.

Every platform parser records each line, key or table entry it could not read in one
:class:`UnparsedCollector` per input file (the *account* stage of docs/architecture.md). An
item carries the text (cut to :attr:`UnparsedCollector.MAX_ITEM` characters), the reason, the
file and line, the ports it may change (None: every port) and the features it may change, so
that rules depending on those facts say "could not verify" (RT000) instead of asserting a
default (:mod:`rocetune.platforms.common.unread`).

What differs between platforms is only how an item's ports and features are guessed when the
reader does not give them (:meth:`UnparsedCollector.scope`), how long an item may be and what
counts as the same item twice. The subclasses: ``common.cli_tree.Issues`` (indented CLI: EOS,
NX-OS, Onyx, Enterprise SONiC; the ports of the interface body being read, features by the
line's words), ``cumulus.tree.Issues`` (NVUE key paths), ``sonic.values.Problems`` (CONFIG_DB
table and key) and ``linux_host.base.Notes`` (host tool outputs). Collecting is linear: the
items already recorded are found through a set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from rocetune.model import Unparsed
from rocetune.model.device import Feature
from rocetune.model.provenance import Provenance

Scope = tuple[tuple[str, ...] | None, tuple[Feature, ...]]
"""(ports, features) of an item: the ports it may change (None: any) and the facts."""


@dataclass
class UnparsedCollector:
    """Collects the Unparsed items (RT001) of one input file, each once, in file order."""

    MAX_ITEM: ClassVar[int | None] = 200
    """Items are cut to this many characters (None: kept whole)."""
    UNIQUE: ClassVar[bool] = True
    """Whether an item recorded twice (same :meth:`key`) is kept once."""

    file: str
    items: list[Unparsed] = field(default_factory=list)
    ports: tuple[str, ...] | None = None
    """The ports of the body being read (set by the readers), None = global."""
    _seen: set[Hashable] = field(default_factory=set, repr=False)

    def add(
        self,
        item: str,
        reason: str,
        line: int | None,
        *,
        features: tuple[Feature, ...] | None = None,
        ports: tuple[str, ...] | None = None,
    ) -> None:
        """Record one item the parser did not understand (ports and features guessed by
        :meth:`scope` where not given)."""
        self.record(
            item, reason, line, features=features, ports=ports, guess=lambda: self.scope(item)
        )

    def record(
        self,
        item: str,
        reason: str,
        line: int | None,
        *,
        features: tuple[Feature, ...] | None,
        ports: tuple[str, ...] | None,
        guess: Callable[[], Scope],
    ) -> None:
        """:meth:`add` with the guess of the missing ports and features given (called only
        for an item not seen before that lacks one of them)."""
        text = self.clip(item)
        if self.seen(text, reason, line):
            return
        if ports is None or features is None:
            found_ports, found_features = guess()
            ports = found_ports if ports is None else ports
            features = found_features if features is None else features
        self.put(text, reason, line, ports, features)

    def clip(self, item: str) -> str:
        """The item text as recorded."""
        return item if self.MAX_ITEM is None else item[: self.MAX_ITEM]

    def key(self, text: str, reason: str, line: int | None) -> Hashable:
        """What makes two items the same."""
        return (text, reason, line)

    def seen(self, text: str, reason: str, line: int | None) -> bool:
        """True when this item was recorded before (then it is not recorded again)."""
        if not self.UNIQUE:
            return False
        key = self.key(text, reason, line)
        if key in self._seen:
            return True
        self._seen.add(key)
        return False

    def scope(self, item: str) -> Scope:
        """The ports and features of an item the reader gave none for: the ports of the body
        being read and the features its words name."""
        return self.ports, features_of(item)

    def put(
        self,
        text: str,
        reason: str,
        line: int | None,
        ports: tuple[str, ...] | None,
        features: tuple[Feature, ...],
    ) -> None:
        """Append one item as given (no clipping, no duplicate check)."""
        self.items.append(
            Unparsed(
                item=text, reason=reason, file=self.file, line=line, ports=ports, features=features
            )
        )


def account(
    provenance: Provenance,
    items: Iterable[Unparsed],
    *,
    first: int = 0,
    file: str | None = None,
) -> None:
    """The account stage's provenance: ``unparsed.<i>`` -> each item's own file and line.

    Numbering starts at ``first`` (items appended after those a device already has); ``file``
    stands for an item that names no file (an item without either gets no entry)."""
    for index, item in enumerate(items, start=first):
        where = item.file or file
        if where is not None:
            provenance.add(f"unparsed.{index}", where, item.line)


def features_of(text: str) -> tuple[Feature, ...]:
    """The facts a QoS line may change, by its words (``()`` when none is recognisable)."""
    low = text.lower()
    words = set(re.split(r"[\s,:=]+", low))
    found: list[Feature] = []
    for feature, keys, parts in _FEATURE_WORDS:
        if (words & keys or any(p in low for p in parts)) and feature not in found:
            found.append(feature)
    return tuple(found)


_FEATURE_WORDS: tuple[tuple[Feature, frozenset[str], tuple[str, ...]], ...] = (
    ("trust", frozenset({"trust", "service-profile", "--trust"}), ("type qos", "qos profile")),
    (
        "dscp_map",
        frozenset({"dscp", "qos-group", "traffic-class", "match", "set", "cos", "dscp2prio"}),
        ("type qos", "cos-dscp"),
    ),
    (
        "pfc",
        frozenset({"pfc", "pause", "no-drop", "flowcontrol", "pfc-cos"}),
        ("flow-control", "pfc"),
    ),
    ("watchdog", frozenset({"watchdog"}), ("watch-dog",)),
    ("ecn", frozenset({"ecn", "random-detect", "wred", "red"}), ("congestion-control",)),
    (
        "scheduler",
        frozenset({"bandwidth", "shape", "tx-queue", "wrr", "ets", "tsa", "strict", "--tsa"}),
        ("type queuing", "priority level", "priority strict"),
    ),
    ("buffers", frozenset({"buffer", "queue-limit", "mmu", "headroom", "pool"}), ("buffer",)),
    ("mtu", frozenset({"mtu", "jumbomtu"}), ()),
    ("speed", frozenset({"speed"}), ("breakout",)),
    ("ports", frozenset(), ("breakout",)),
    ("lldp", frozenset({"lldp"}), ()),
    ("cnp", frozenset({"cnp"}), ("cnp_",)),
    ("dscp_map", frozenset({"tos", "tclass", "traffic_class"}), ("roce_tos",)),
    ("dcqcn", frozenset({"dcqcn"}), ("roce_np", "roce_rp", "rpg_", "dce_tcp")),
    ("roce_mode", frozenset(), ("roce_mode", "roce v")),
)
