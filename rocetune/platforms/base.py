"""The platform contract: one :class:`Platform` value per platform package.

A platform package (``rocetune/platforms/<p>/``) is the only code that knows a vendor's
syntax. Its ``__init__.py`` builds one ``PLATFORM`` value that carries everything the rest of
rocetune needs to know about the platform: how to collect (commands, follow-ups, netmiko
device type, redactor, CLI error marker), how to read (sniff, parse into a vendor-neutral
:class:`~rocetune.model.Device` plus provenance), its limits (stamped on every parsed device,
where rules read them), how to render and plan changes, and how to apply them
(:mod:`rocetune.platforms.transaction`). The registry (:mod:`rocetune.platforms`) lists the
packages by name.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from rocetune.model.limits import PlatformLimits
from rocetune.model.provenance import Provenance, SourceRef
from rocetune.platforms.common.redact import redact_fallback

if TYPE_CHECKING:
    from rocetune.model import Device
    from rocetune.platforms.changes import Planner
    from rocetune.platforms.counters import CounterReader
    from rocetune.platforms.spec import RenderSpec
    from rocetune.platforms.transaction import Transaction, TxContext
    from rocetune.snapshot import Command, Snapshot


# Provenance and SourceRef belong to the model; parsers import them from the contract too.
__all__ = [
    "PARSE_STAGES",
    "ParseResult",
    "Platform",
    "PlatformDriver",
    "Provenance",
    "Redactor",
    "SourceRef",
    "fixed_commands",
]


@dataclass(frozen=True)
class ParseResult:
    """A parsed device and where its values came from."""

    device: Device
    provenance: Provenance


class Commands(Protocol):
    """The commands to collect, in collection order; ``nics`` are a host's inventory NIC
    names (validated netdev names; ValueError for a bad one); switches ignore them."""

    def __call__(self, nics: Sequence[str] = ()) -> tuple[Command, ...]: ...


Parser = Callable[["Snapshot", str, "str | None"], ParseResult]
"""``(snapshot, device name, role) -> ParseResult``; ParseError(file, line) on unreadable input."""
PARSE_STAGES = ("read", "bind", "build", "account")
"""The stages of every platform parser, in this order, under these names. Each platform's
``parse`` module defines ``read``, ``bind`` and ``build`` and calls the shared ``account``
(:mod:`rocetune.platforms.common.unparsed`); ``parse_snapshot`` runs them:

- ``read``: an output's text -> the vendor's raw shape, nothing interpreted yet (a tree of CLI
  lines by mode, statements, an NVUE key tree, CONFIG_DB tables, host output segments);
  prompts, comments and transcript noise are removed here;
- ``bind``: the raw shape -> the vendor configuration (policies, maps, profiles and pools by
  name, bound to the interfaces that use them); what cannot be read is recorded in the file's
  :class:`~rocetune.platforms.common.unparsed.UnparsedCollector` (RT001);
- ``build``: the vendor configuration -> the vendor-neutral :class:`~rocetune.model.Device`
  ports (or NICs) and facts, with provenance, vendor defaults where no line set a value and
  unknown where an unread line may change it (:mod:`rocetune.platforms.common.unread`);
- ``account``: every Unparsed item of every file the platform read goes to
  ``Device.unparsed`` with its ``unparsed.<i>`` provenance.
"""
Sniffer = Callable[[str, str], "Command | None"]
"""``(path, text) -> the command a saved file stands for``, or None if it is not this
platform's; never raises."""
Followups = Callable[["Snapshot"], "tuple[Command, ...]"]
"""Commands whose arguments come from outputs already collected (a host's RDMA devices)."""
_CARET = re.compile(r"^\s*\^\s*$")
"""The caret line NX-OS prints above its error line."""
Redactor = Callable[["Command", str], str]
"""``(command, output) -> the output with every secret replaced`` (line numbers kept)."""
TxFactory = Callable[["TxContext"], "Transaction"]
"""Builds the apply driver of one device."""


def fixed_commands(commands: tuple[Command, ...]) -> Commands:
    """The command list of a switch platform: fixed, known up front, NIC names ignored."""

    def listed(nics: Sequence[str] = ()) -> tuple[Command, ...]:
        del nics
        return commands

    return listed


def no_followups(snapshot: Snapshot) -> tuple[Command, ...]:
    """No follow-up commands: every command is known up front."""
    del snapshot
    return ()


@dataclass(frozen=True, kw_only=True)
class Platform:
    """Everything rocetune knows about one platform (see the module docstring)."""

    name: str
    """Inventory platform key, e.g. ``sonic``."""
    kind: Literal["switch", "host"]
    description: str
    """One line for humans, e.g. ``SONiC (config_db.json)``."""
    commands: Commands
    sniff: Sniffer
    parser: Parser
    device_type: str
    """netmiko device type used to collect (overridable per device with ``device_type``)."""
    followup_commands: Followups = no_followups
    redactor: Redactor = redact_fallback
    error_marker: re.Pattern[str] | None = None
    """Pattern of an error line the CLI prints first when it rejects a command (collection
    over an interactive shell has no exit status); None = no check."""
    enable_mode: bool = False
    """The CLI starts in a user mode that cannot show the configuration: an interactive
    session enters ``enable`` first (netmiko's ``enable()``; Onyx lands at ``switch >``)."""
    shell_setup: tuple[str, ...] | None = None
    """Terminal set-up commands an interactive session sends after login, before the
    first command (paging off, a wide terminal), as netmiko's session preparation for the
    device type does; ``()`` = none needed. None: collection keeps to netmiko for this
    platform (rocetune's own asyncio shell does not know how to prepare its CLI)."""
    limits: PlatformLimits = field(default_factory=PlatformLimits)
    render: RenderSpec | None = None
    """How to render the platform's config from the tuned target (None: no templates)."""
    planner: Planner | None = None
    """How to plan native changes (None: ``rocetune plan`` skips the platform)."""
    transaction_factory: TxFactory | None = None
    """The apply driver (None: ``rocetune apply`` does not support the platform yet)."""
    counter_reader: CounterReader | None = None
    """How ``rocetune apply`` reads the PFC pause, lossless-drop and watchdog counters
    (:mod:`rocetune.platforms.counters`); None: the platform has no switch counter reader."""
    evidence: re.Pattern[str] | None = None
    """Lines only this platform writes (matched per line, prompt removed), weighed by
    :mod:`rocetune.platforms.detect` beside ``sniff``; None: ``sniff`` alone (or the built-in
    table of detect.py) decides."""

    def parse(self, snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
        """Parse a snapshot and stamp the platform's limits on the device."""
        result = self.parser(snapshot, name, role)
        return ParseResult(self.stamp(result.device), result.provenance)

    def stamp(self, device: Device) -> Device:
        """``device`` with the platform's limits where the parser did not set them."""
        update: dict[str, object] = {}
        if device.mtu_max is None and self.limits.mtu_max is not None:
            update["mtu_max"] = self.limits.mtu_max
        if device.watchdog_limits is None and self.limits.watchdog is not None:
            update["watchdog_limits"] = self.limits.watchdog
        return device.model_copy(update=update) if update else device

    def transaction(self, context: TxContext) -> Transaction | None:
        """The apply driver for one device, or None when apply does not support the platform."""
        factory = self.transaction_factory
        return None if factory is None else factory(context)

    def command_error(self, output: str) -> str | None:
        """The error line when ``output`` says the command failed, else None: the first of
        its first three non-empty lines (a caret line skipped) that ``error_marker`` matches."""
        if self.error_marker is None:
            return None
        lines = [line.strip() for line in output.splitlines() if line.strip()][:3]
        for line in lines:
            if _CARET.match(line):
                continue
            if self.error_marker.match(line):
                return line[:200]
        return None


PlatformDriver = Platform
"""The former name of the contract (a Protocol the driver classes implemented)."""


def text_sniffer(sniff: Callable[[str], Command | None]) -> Sniffer:
    """A :data:`Sniffer` from a sniff that reads only the text (the path is not evidence)."""

    def sniffer(path: str, text: str) -> Command | None:
        del path
        return sniff(text)

    return sniffer


def never_raises(sniff: Callable[[str], Command | None]) -> Callable[[str], Command | None]:
    """A text sniff that answers None instead of raising: sniffing never fails, whatever a
    saved file holds (the :data:`Sniffer` contract)."""

    @functools.wraps(sniff)
    def safe(text: str) -> Command | None:
        try:
            return sniff(text)
        except Exception:  # the driver contract: sniffing never fails
            return None

    return safe


def lazy_transaction(module: str, name: str) -> Callable[[TxContext], Transaction]:
    """A transaction factory that imports ``module``'s driver class ``name`` on first use, so
    loading a platform does not load its apply driver."""

    def factory(context: TxContext) -> Transaction:
        from importlib import import_module

        driver: Callable[[TxContext], Transaction] = getattr(import_module(module), name)
        return driver(context)

    return factory
