"""Host setup scripts read as the intended NIC state (input kind ``script``; nothing is run).

A shell script (or the ``shell:``/``command:``/``runcmd:`` strings of an Ansible playbook or a
cloud-init file, :mod:`.script_yaml`) is walked as the shell would walk it
(:mod:`.script_run`) and every command is turned into the NIC values it sets
(:mod:`.script_nic`). The values are laid over a starting state, in script order:

- alone (``rocetune lint setup.sh``): the starting state is empty, so the result is what the
  script sets, per interface; fields it does not set stay unknown (RT000);
- over a collected host (``rocetune diff SNAPSHOT setup.sh``): the starting state is the
  snapshot's NIC ports, so the result is the host as the script would leave it.

Joins: per-netdev values go to the port of that name; RDMA-device values (``cma_roce_tos``,
``traffic_class``) to the port whose RDMA device it is (from the snapshot), else, when the
script names exactly one netdev and one RDMA device, to that pair (noted in the facts);
with no netdev at all a port named after the RDMA device is made. ``mlxconfig -d`` takes an
RDMA device name or, with one port only, a PCI address. Anything else is RT001 and the
values it would set are forgotten on the ports it may concern (RT000 from the rules).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rocetune.model import Device, NicPort, Unparsed
from rocetune.platforms.base import ParseResult, Provenance
from rocetune.platforms.common.unparsed import account, features_of
from rocetune.platforms.linux_host.names import key_of, valid_netdev, valid_rdma
from rocetune.platforms.linux_host.script_nic import Effect, Reading, read_run
from rocetune.platforms.linux_host.script_run import Runner
from rocetune.platforms.linux_host.script_words import Env
from rocetune.platforms.linux_host.script_yaml import yaml_scripts
from rocetune.snapshot import SourceFile

PLATFORM = "linux_host"
_RDMA_FIELDS = ("roce_tos", "traffic_class", "roce_mode")
_DEFAULT_DSCP = {d: d >> 3 for d in range(64)}
"""The mlx5 driver's DSCP -> priority map before any ``--dscp2prio`` (DSCP >> 3)."""


@dataclass
class _Read:
    reading: Reading
    file: str
    unparsed: list[Unparsed] = field(default_factory=list)


def read_script(source: SourceFile) -> _Read:
    """Walk one script file (shell, or YAML with shell strings) into effects and RT001."""
    reading = Reading()
    read = _Read(reading, source.path)
    runner = Runner(lambda run: read_run(run, reading))
    chunks = yaml_scripts(source.text)
    if chunks is None:
        runner.script(source.text, 1, Env())
    else:
        for text, line, env in chunks:
            runner.script(text, line, env)
    seen: set[tuple[int, str, str]] = set()
    for key in [*((i.line, i.text, i.reason) for i in runner.skipped), *reading.notes]:
        if key not in seen:
            seen.add(key)
            _note(read, *key)
    read.unparsed.sort(key=lambda u: u.line or 0)
    return read


def _note(read: _Read, line: int, text: str, reason: str) -> None:
    read.unparsed.append(
        Unparsed(item=text, reason=reason, file=read.file, line=line, features=features_of(text))
    )


def apply_scripts(
    base: ParseResult | None, scripts: list[SourceFile], name: str, role: str | None
) -> ParseResult:
    """``base`` (or an empty host) with the values of ``scripts`` laid over it, in order."""
    provenance = base.provenance if base is not None else Provenance()
    device = base.device if base is not None else _empty(name, role)
    if base is None and scripts:
        provenance.add("", scripts[0].path, None)
    state = _State({n: p.model_dump() for n, p in device.nics.items()}, dict(device.facts))
    unparsed = list(device.unparsed)
    for source in scripts:
        read = read_script(source)
        unparsed.extend(read.unparsed)
        state.facts.update(read.reading.facts)
        state.facts[f"input.{source.path}"] = "host setup script: intended state, nothing run"
        state.apply(read.reading.effects, source.path, provenance, unparsed)
    account(provenance, unparsed[len(device.unparsed) :], first=len(device.unparsed))
    nics = {n: NicPort.model_validate(v) for n, v in sorted(state.nics.items(), key=_natural)}
    updated = device.model_copy(
        update={
            "nics": nics,
            "unparsed": tuple(unparsed),
            "facts": dict(sorted(state.facts.items())),
        }
    )
    return ParseResult(updated, provenance)


def _empty(name: str, role: str | None) -> Device:
    return Device(name=name, kind="host", platform=PLATFORM, role=role)


@dataclass
class _State:
    nics: dict[str, dict[str, Any]]
    facts: dict[str, str]

    def apply(
        self, effects: list[Effect], file: str, provenance: Provenance, unparsed: list[Unparsed]
    ) -> None:
        for effect in effects:
            if effect.scope == "nic" and effect.target and valid_netdev(effect.target):
                self._port(effect.target)
        rdma = self._rdma_map(effects, file, unparsed)
        for effect in effects:
            targets, certain = self._targets(effect, rdma)
            for name in targets:
                values = self.nics[name]
                if not certain or effect.value is None:
                    values[effect.field] = None
                else:
                    values[effect.field] = self._merged(name, effect)
                provenance.set(f"nics.{name}.{effect.field}", file, effect.line)
                provenance.add(f"nics.{name}", file, effect.line)

    def _port(self, name: str) -> str:
        for existing in self.nics:
            if existing == name or key_of(existing) == key_of(name):
                return existing
        self.nics[name] = NicPort(name=name).model_dump()
        return name

    def _rdma_map(
        self, effects: list[Effect], file: str, unparsed: list[Unparsed]
    ) -> dict[str, str | None]:
        """RDMA device (or PCI name) -> netdev port; None when it cannot be told."""
        mapping: dict[str, str | None] = {
            v["rdma_device"]: n for n, v in self.nics.items() if v.get("rdma_device")
        }
        wanted: dict[str, int] = {}
        for e in effects:
            rdma_name = e.scope == "rdma" or (
                valid_rdma(e.target or "") and not _pci_like(e.target or "")
            )
            if e.target and e.scope in ("rdma", "pci") and e.target not in mapping and rdma_name:
                wanted.setdefault(e.target, e.line)
        lacking = [n for n, v in self.nics.items() if not v.get("rdma_device")]
        if len(wanted) == 1 and len(lacking) == 1:
            (dev,) = wanted
            mapping[dev] = lacking[0]
            self.nics[lacking[0]]["rdma_device"] = dev
            self.facts[f"nic.{lacking[0]}.rdma_device"] = (
                "paired: the only netdev and the only RDMA device the script names"
            )
            return mapping
        for dev, line in wanted.items():
            if not self.nics or (
                not lacking and not any(v.get("rdma_device") for v in self.nics.values())
            ):
                port = self._port(dev)
                self.nics[port]["rdma_device"] = dev
                mapping[dev] = port
                continue
            mapping[dev] = None
            reason = (
                f"which netdev RDMA device {dev} belongs to is not known (no ibdev2netdev in"
                " the input): its values are not used"
            )
            unparsed.append(
                Unparsed(item=f"RDMA device {dev}", reason=reason, file=file, line=line)
            )
        return mapping

    def _targets(self, effect: Effect, rdma: dict[str, str | None]) -> tuple[list[str], bool]:
        """The ports an effect sets, and whether it surely sets them to its value."""
        certain = effect.unsure is None and effect.target is not None
        if effect.scope == "nic":
            if effect.target is not None and valid_netdev(effect.target):
                return [self._port(effect.target)], certain
            return list(self.nics), False
        if effect.target is not None and effect.target in rdma:
            port = rdma[effect.target]
            if port is not None:
                return [port], certain
        elif effect.scope == "pci" and effect.target is not None and len(self.nics) == 1:
            (only,) = self.nics
            self.facts[f"nic.{only}.mlxconfig_device"] = f"{effect.target}: the only NIC port"
            return [only], certain
        if effect.scope == "rdma":
            return [n for n, v in self.nics.items() if not v.get("rdma_device")], False
        return list(self.nics), False

    def _merged(self, name: str, effect: Effect) -> Any:
        if not effect.merge:
            return effect.value
        old = self.nics[name].get(effect.field)
        new = dict(effect.value) if isinstance(effect.value, dict) else {}
        if effect.field == "dscp_to_priority" and old is None:
            old = dict(_DEFAULT_DSCP)
            self.facts[f"nic.{name}.dscp_to_priority"] = (
                "the mlx5 driver default (DSCP >> 3) with the script's --dscp2prio changes"
            )
        if effect.field == "tc_scheduler":
            return _schedulers(old or {}, new)
        return {**(old or {}), **new}


def _schedulers(old: dict[int, Any], new: dict[int, Any]) -> dict[int, Any]:
    out = dict(old)
    for tc, sched in new.items():
        before = old.get(tc) or {}
        kind = sched.kind or (before.get("kind") if isinstance(before, dict) else None)
        weight = sched.weight if sched.weight is not None else None
        if weight is None and kind == "ets" and isinstance(before, dict):
            weight = before.get("weight")
        out[tc] = {"kind": kind, "weight": weight}
    return out


def _pci_like(name: str) -> bool:
    return bool(
        re.fullmatch(r"(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d", name)
    ) or name.startswith("/dev/")


def _natural(item: tuple[str, object]) -> tuple[object, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", item[0]))
