"""Effective QoS of the switch: the policies ``system qos`` applies, resolved once.

``system qos`` service-policies apply to every interface; an interface's own ``service-policy
type qos input`` / ``type queuing output`` replaces the system one for that interface
(network-qos exists only at system level). A policy name that the config binds but does not
define is reported, and what it would decide is unknown (None), except the built-in
``default-*`` policies: the default type-qos policy leaves traffic in qos-group 0, the
default network-qos policy has no no-drop class and the default queuing policies configure
no WRED/ECN **[from the Nexus 9000 QoS guides, not re-checked
here]**, while their scheduler weights are not known.

Model mapping (documented choices):

- ``dscp_to_priority`` maps DSCP -> qos-group; the qos-group is the switch priority and the
  traffic class (``priority_to_tc`` and ``tc_to_queue`` are the identity: ``c-out-8q-q<N>``
  serves qos-group N). ``tc_to_pg`` is also the identity: NX-OS accounts the no-drop
  ingress buffer per no-drop class, i.e. per qos-group **[approximation]**.
- The PFC priority is the CoS named by ``pause pfc-cos``; a bare ``pause no-drop`` takes the
  CoS of the system type-qos classes that map its qos-group purely by CoS
  (:func:`_cos_of_group`). On a Nexus 9000 the no-drop class
  ``c-8q-nq3`` is qos-group 3 and usually ``pause pfc-cos 3``: PFC frames for CoS 3 pause
  egress queue 3, and qos-group 3 filling up sends PFC for CoS 3. ``pfc_priority_to_queue``
  and ``pfc_priority_to_pg`` are CoS -> qos-group of that class, so a ``pfc-cos`` that
  differs from the class's qos-group shows up as a broken chain (RT106).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rocetune.platforms.nxos.config import NxosConfig
from rocetune.platforms.nxos.interfaces import Setting
from rocetune.platforms.nxos.lines import Issues
from rocetune.platforms.nxos.policies import QosPolicy, read_qos_policy
from rocetune.platforms.nxos.queuing import (
    NetworkPolicy,
    QueuingPolicy,
    read_network_qos,
    read_queuing,
)

_BINDING_TEXT = {
    "qos": "qos input",
    "queuing-out": "queuing output",
    "queuing-in": "queuing input",
    "network-qos": "network-qos",
}


@dataclass(frozen=True, slots=True)
class NoDrop:
    """The no-drop classes of the system network-qos policy."""

    cos_to_group: dict[int, int]
    """PFC CoS -> qos-group of its no-drop class."""
    line: int | None
    """The first ``pause`` line, or the ``system qos`` binding when there is none."""
    mtu: Setting[int] | None
    """The smallest MTU configured on a no-drop class."""


@dataclass(slots=True)
class Plan:
    """Resolved policies plus the system-level choices every port starts from."""

    qos: dict[str, QosPolicy] = field(default_factory=dict)
    queuing: dict[str, QueuingPolicy] = field(default_factory=dict)
    network: dict[str, NetworkPolicy] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)
    queues: int = 8
    no_drop: NoDrop | None = None
    """None when the network-qos policy is unknown or a no-drop class has no CoS."""
    forward_nonecn: dict[int, int] = field(default_factory=dict)
    """qos-group -> line of ``congestion-control random-detect forward-nonecn`` in the system
    network-qos policy; ``-1`` -> every queue (the global form)."""


def build_plan(cfg: NxosConfig, issues: Issues) -> Plan:
    """Resolve every policy-map and the system network-qos policy."""
    plan = Plan()
    for (kind, name), raw in cfg.policies.items():
        if kind == "qos":
            plan.qos[name], remarks = read_qos_policy(raw, cfg.class_maps, issues)
            plan.facts.update(remarks)
        elif kind == "queuing":
            plan.queuing[name] = read_queuing(raw, cfg.class_maps, issues)
            plan.facts.update(plan.queuing[name].facts)
        else:
            plan.network[name] = read_network_qos(raw, cfg.class_maps, issues)
    names = [pclass.name for raw in cfg.policies.values() for pclass in raw.classes]
    if not any("8q" in n for n in names) and any(n.startswith(("c-out-q", "c-nq")) for n in names):
        plan.queues = 4
    plan.facts["nxos.queues"] = str(plan.queues)
    plan.no_drop = _no_drop(cfg, plan, issues)
    plan.forward_nonecn = _forward_nonecn(cfg, plan)
    for key, (name, line) in sorted(cfg.system.items()):
        plan.facts[f"nxos.system_qos.{key}"] = name
        if key != "network-qos":
            known(plan, key, name, line, issues)
    return plan


def known(plan: Plan, key: str, name: str, line: int, issues: Issues) -> bool:
    """Whether a bound policy is defined (reported once when it is not and not built-in)."""
    tables: dict[str, set[str]] = {
        "qos": set(plan.qos),
        "queuing-out": set(plan.queuing),
        "queuing-in": set(plan.queuing),
        "network-qos": set(plan.network),
    }
    if name in tables.get(key, set()):
        return True
    if not name.startswith("default-") and key != "queuing-in":
        issues.add(
            f"service-policy type {_BINDING_TEXT.get(key, key)} {name}",
            f"policy-map ({key}) not defined in this config; what it does is unknown",
            line,
        )
    return False


def _no_drop(cfg: NxosConfig, plan: Plan, issues: Issues) -> NoDrop | None:
    binding = cfg.system.get("network-qos")
    if binding is None or (binding[0].startswith("default-") and binding[0] not in plan.network):
        return NoDrop({}, binding[1] if binding else None, None)
    if not known(plan, "network-qos", binding[0], binding[1], issues):
        return None
    cos_to_group: dict[int, int] = {}
    line: int | None = None
    mtu: Setting[int] | None = None
    for group, nq in sorted(plan.network[binding[0]].classes.items()):
        if not nq.no_drop:
            continue
        pfc_cos = nq.pfc_cos
        if pfc_cos is None and nq.bare_no_drop:
            pfc_cos = _cos_of_group(cfg, plan, group)
        if pfc_cos is None:
            if nq.bare_no_drop:
                issues.add(
                    "pause no-drop",
                    f"no-drop class (qos-group {group}) without a PFC CoS: no pfc-cos, and no"
                    " system type-qos class maps this qos-group by CoS alone",
                    nq.pause_line,
                    features=("pfc",),
                )
            return None
        cos_to_group.update(dict.fromkeys(pfc_cos, group))
        line = nq.pause_line if line is None else line
        if nq.mtu is not None and nq.mtu_line is not None and (mtu is None or nq.mtu < mtu[0]):
            mtu = (nq.mtu, nq.mtu_line)
    return NoDrop(cos_to_group, line or binding[1], mtu)


def _cos_of_group(cfg: NxosConfig, plan: Plan, group: int) -> tuple[int, ...] | None:
    """The PFC CoS of a bare ``pause no-drop`` class: the CoS values of the system type-qos
    classes that set its qos-group, when they all match by CoS alone.

    Cisco (Nexus 5000 QoS guide, network-qos ``pause no-drop``): the optional ``pfc-cos``
    "identifies the class of service (CoS) values to assert priority flow control (PFC) when
    traffic for a no-drop system class is not mapped based purely on CoS"; a class mapped
    purely on CoS asserts PFC on those CoS values (the Nexus 3000 scripts Microsoft
    publishes rely on it: ``match cos 3`` -> ``set qos-group 3`` -> ``pause no-drop``).
    None when no class sets the group, or one matches anything but CoS.
    """
    binding = cfg.system.get("qos")
    policy = plan.qos.get(binding[0]) if binding is not None else None
    if policy is None:
        return None
    setting = [c for c in policy.classes if c.qos_group == group]
    if not setting or any(c.cos is None or c.dscp is not None for c in setting):
        return None
    return tuple(sorted(frozenset().union(*(c.cos or frozenset() for c in setting))))


def _forward_nonecn(cfg: NxosConfig, plan: Plan) -> dict[int, int]:
    found: dict[int, int] = {}
    if cfg.forward_nonecn is not None and cfg.forward_nonecn[0]:
        found[-1] = cfg.forward_nonecn[1]
    binding = cfg.system.get("network-qos")
    policy = plan.network.get(binding[0]) if binding is not None else None
    for group, nq in policy.classes.items() if policy is not None else ():
        if nq.forward_nonecn is not None:
            found[group] = nq.forward_nonecn
    return found
