"""Linux host snapshot -> :class:`~rocetune.model.Device` (kind ``host``) plus provenance.

The parse stages (:data:`~rocetune.platforms.base.PARSE_STAGES`): :func:`read` (:mod:`.outputs`
reads every file into typed per-command results), :func:`bind` (:mod:`.assemble` joins them onto
NIC ports; see its docstring for the netdev / RDMA device / PCI joins), :func:`build` (the
model's NIC ports and facts) and ``account``. A setup script in the snapshot is laid over the
result (:mod:`.script`).

Provenance paths: ``""`` -> the snapshot, ``nics.<if>`` -> where the NIC port is first named,
``nics.<if>.<field>`` -> the output line of that value, ``hostname``, ``lldp`` / ``lldp.<i>``
and ``unparsed.<i>``.

Nothing here raises on odd input: what is not understood becomes an Unparsed item (RT001),
a failed command leaves its values unknown (RT000 from the rules) and is kept as a device
fact. An ``lldpctl -f json`` output that is not JSON is reported as Unparsed (the NIC data
of the host is still checked) instead of failing the whole device.
"""

from __future__ import annotations

import re
from dataclasses import replace

from rocetune.errors import ParseError
from rocetune.model import Device, LldpNeighbor, NicPort, Unparsed
from rocetune.platforms.base import ParseResult, Provenance
from rocetune.platforms.common.lldpctl import read_lldpctl_json
from rocetune.platforms.common.unparsed import account
from rocetune.platforms.linux_host.assemble import Assembled, Nic, assemble
from rocetune.platforms.linux_host.commands import is_script_file
from rocetune.platforms.linux_host.outputs import Outputs, read_outputs
from rocetune.snapshot import Snapshot

PLATFORM = "linux_host"


def parse_snapshot(snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
    """Parse a host snapshot (a collected directory, one saved output or a transcript).

    A setup script in the snapshot (:mod:`.script`) is laid over what the other files say.
    """
    scripts = [f for n, f in sorted(snapshot.files.items()) if is_script_file(n)]
    if not scripts:
        return _parse_outputs(snapshot, name, role)
    from rocetune.platforms.linux_host.script import apply_scripts  # the script reader: lazily

    rest = {n: f for n, f in snapshot.files.items() if not is_script_file(n)}
    base = None
    if rest:
        base = _parse_outputs(replace(snapshot, files=rest), name, role)
    return apply_scripts(base, scripts, name, role)


def _parse_outputs(snapshot: Snapshot, name: str, role: str | None) -> ParseResult:
    out = read(snapshot)
    joined = bind(out)
    provenance = Provenance()
    provenance.add("", snapshot.origin or _first_file(snapshot), None)
    nics, facts = build(out, joined, provenance)
    lldp, lldp_unparsed = _lldp(out, provenance)
    unparsed = (*out.unparsed, *joined.unparsed, *lldp_unparsed)
    account(provenance, unparsed)
    hostname = None
    if out.hostname is not None:
        hostname = out.hostname[0]
        provenance.add("hostname", out.hostname[1], out.hostname[2])
    device = Device(
        name=name,
        kind="host",
        platform=PLATFORM,
        role=role,
        hostname=hostname,
        nics=nics,
        lldp=lldp,
        unparsed=unparsed,
        facts=facts,
    )
    return ParseResult(device=device, provenance=provenance)


def read(snapshot: Snapshot) -> Outputs:
    """Read stage: every file of the snapshot -> typed per-command results."""
    return read_outputs(snapshot)


def bind(out: Outputs) -> Assembled:
    """Bind stage: the per-command results joined onto NIC ports."""
    return assemble(out)


def build(
    out: Outputs, joined: Assembled, provenance: Provenance
) -> tuple[dict[str, NicPort], dict[str, str]]:
    """Build stage: the model's NIC ports (in natural order) and the device facts."""
    nics = {}
    facts = dict(sorted({**out.facts, **joined.facts}.items()))
    for nic in sorted(joined.nics.values(), key=lambda n: _natural(n.name)):
        nics[nic.name] = _nic_port(nic, provenance)
        facts.update({f"nic.{nic.name}.{k}": v for k, v in sorted(nic.facts.items())})
    return nics, facts


def _first_file(snapshot: Snapshot) -> str:
    return next((f.path for f in snapshot), "")


def _nic_port(nic: Nic, provenance: Provenance) -> NicPort:
    parts = sorted(nic.parts, key=lambda p: (p.kind != "mlnx_qos", p.scope != "nic", p.order))
    if parts:
        provenance.add(f"nics.{nic.name}", parts[0].file, parts[0].line)
    provenance.add_runs(f"nics.{nic.name}.", sorted(nic.refs.items()))
    return NicPort.model_validate({**nic.values, "name": nic.name})


def _lldp(
    out: Outputs, provenance: Provenance
) -> tuple[tuple[LldpNeighbor, ...] | None, list[Unparsed]]:
    found: list[LldpNeighbor] = []
    unparsed: list[Unparsed] = []
    known = False
    for source in out.lldp:
        if not source.text.strip():
            continue
        try:
            read = read_lldpctl_json(source.text, source.path)
        except ParseError as exc:
            reason = f"lldpctl -f json output is not valid JSON: {exc.message}"
            unparsed.append(
                Unparsed(item="lldpctl -f json", reason=reason, file=source.path, line=exc.line)
            )
            continue
        known = True
        provenance.add("lldp", source.path, 1)
        for neighbor, line in zip(read.neighbors, read.lines, strict=True):
            provenance.add(f"lldp.{len(found)}", source.path, line)
            found.append(neighbor)
        unparsed.extend(read.skipped)
    return (tuple(found) if known else None), unparsed


def _natural(text: str) -> tuple[object, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))
