"""Enterprise SONiC snapshot (``show running-configuration`` of sonic-cli) -> Device.

The parse stages (:data:`~rocetune.platforms.base.PARSE_STAGES`): :func:`read`
(:mod:`.grammar` places every line in its CLI mode), :func:`bind` (:mod:`.reader` and
:mod:`.interfaces` turn the lines into the CONFIG_DB tables they write, with the CLI line
of every field), :func:`build` (the SONiC platform's own bind and build,
:mod:`rocetune.platforms.sonic.parse`, turn those tables into the vendor-neutral model
exactly as for a ``config_db.json``) and its ``account``, so both
front ends of the same switch software give the same verdicts. Buffer objects follow the
Broadcom model of Enterprise SONiC (``buffer init lossless`` / ``roce enable`` create the
platform's lossless defaults at runtime; they are not in the text, so the PG headroom is
unknown unless ``buffer priority-group`` bindings name explicit profiles; :mod:`.buffers`
adds those runtime objects with their unknown values named).

Provenance paths are those of the SONiC builder, pointing at CLI lines: ``ports.<p>`` ->
the ``interface`` line, ``ports.<p>.<field>`` -> the line that set it, ``unparsed.<i>``.
Reported lines (RT001) come first in ``Device.unparsed``, then what the builder reports.
Breakout parents with a ``interface breakout`` line are replaced by their children.
"""

from __future__ import annotations

from rocetune.errors import ParseError
from rocetune.platforms.base import ParseResult
from rocetune.platforms.enterprise_sonic.buffers import with_runtime_buffers
from rocetune.platforms.enterprise_sonic.commands import RUNNING_CONFIG
from rocetune.platforms.enterprise_sonic.grammar import Issues, Node, read_tree
from rocetune.platforms.enterprise_sonic.names import parent_of
from rocetune.platforms.enterprise_sonic.reader import read_config
from rocetune.platforms.enterprise_sonic.tables import KlishDb
from rocetune.platforms.sonic import parse as sonic_parse
from rocetune.platforms.sonic.values import Problems
from rocetune.snapshot import Snapshot

PLATFORM = "enterprise_sonic"


def parse_snapshot(snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
    """Parse the running configuration of a snapshot; ParseError when it is missing."""
    source = snapshot.get(RUNNING_CONFIG)
    if source is None:
        msg = f"no output of {RUNNING_CONFIG.command!r} in the snapshot"
        raise ParseError(msg, file=snapshot.origin or None)
    return parse_text(source.text, source.path, name, role)


def parse_text(text: str, file: str, name: str, role: str | None) -> ParseResult:
    """Parse sonic-cli configuration text (never raises on content)."""
    issues = Issues(file)
    return build(bind(read(text, issues), issues), issues, file, name, role)


def read(text: str, issues: Issues) -> list[Node]:
    """Read stage: the sonic-cli lines as a tree by CLI mode (Klish prompts understood)."""
    return read_tree(text, issues)


def bind(tree: list[Node], issues: Issues) -> KlishDb:
    """Bind stage: the lines -> the CONFIG_DB tables they write (broken-out panel ports
    dropped, the device metadata set)."""
    kdb = read_config(tree, issues)
    _drop_broken_out(kdb)
    _metadata(kdb)
    return kdb


def build(kdb: KlishDb, issues: Issues, file: str, name: str, role: str | None) -> ParseResult:
    """Build stage: the tables -> the device through the SONiC platform's bind and build
    (the reported CLI lines first in ``unparsed``)."""
    pr = Problems(file)
    config = sonic_parse.bind(kdb.db, pr)
    result = sonic_parse.build(
        [config], pr, file, name, role, platform=PLATFORM, extra=tuple(issues.items)
    )
    device = result.device
    hostname = kdb.hostname[0] if kdb.hostname else (device.hostname or issues.prompt_host)
    facts = {**device.facts, **kdb.facts}
    if kdb.hostname is not None:
        result.provenance.add("hostname", file, kdb.hostname[1])
    device = device.model_copy(update={"hostname": hostname, "facts": dict(sorted(facts.items()))})
    device = with_runtime_buffers(device, kdb.facts)
    return ParseResult(device=device, provenance=result.provenance)


def _metadata(kdb: KlishDb) -> None:
    """Enterprise SONiC is a Broadcom-based distribution: the traditional (static) buffer
    model (its HLD: buffers come from the platform's defaults at ``buffer init``)."""
    if kdb.hostname is not None:
        entry = kdb.entry("DEVICE_METADATA", "localhost", kdb.hostname[1])
        kdb.put(entry, "hostname", kdb.hostname[0], kdb.hostname[1])


def _drop_broken_out(kdb: KlishDb) -> None:
    """A panel port broken out (``interface breakout port 1/49 mode 4x25G``) whose children
    have blocks of their own carries no traffic itself."""
    children = {parent_of(p) for p in kdb.ports} - {None}
    for panel in kdb.breakouts:
        parent = f"Eth{panel}"
        if parent in children and parent in kdb.ports:
            del kdb.ports[parent]
            kdb.db.tables.get("PORT", {}).pop(parent, None)
