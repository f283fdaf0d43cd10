"""Sharded runs: ``--shard i/n`` splits a fabric's devices between several controllers.

A device belongs to shard ``int(sha1(name).hexdigest(), 16) % n`` (shards are numbered 0 to
n-1, like a Slurm array's ``SLURM_ARRAY_TASK_ID`` with ``--array=0-<n-1>``). The hash of the
device name alone decides, so the split is stable: it does not depend on the order of the
inventory, on the other devices, or on the Python process (no salted ``hash()``); adding a
device never moves another one. The shards' outputs are different device directories, so
they merge into one snapshot directory.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from rocetune.errors import RocetuneError

_SPEC = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, name: str) -> bool:
        """True when device ``name`` belongs to this shard."""
        return shard_of(name, self.count) == self.index

    def select(self, names: Iterable[str]) -> list[str]:
        """The names of this shard, in the given order."""
        return [n for n in names if self.owns(n)]


def shard_of(name: str, count: int) -> int:
    """The shard (0 to count-1) of device ``name``."""
    digest = hashlib.sha1(name.encode("utf-8"), usedforsecurity=False).hexdigest()
    return int(digest, 16) % count


def parse_shard(text: str) -> Shard:
    """``"i/n"`` with 0 <= i < n; RocetuneError (exit 2) otherwise."""
    match = _SPEC.fullmatch(text)
    if match is None:
        raise RocetuneError(f"--shard {text!r}: expected i/n, e.g. 0/4 (shards 0 to n-1)")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or index >= count:
        raise RocetuneError(f"--shard {text!r}: need n >= 1 and 0 <= i < n (shards 0 to n-1)")
    return Shard(index, count)
