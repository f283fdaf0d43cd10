"""``qos remark`` profiles and VXLAN encapsulation DSCP: what rewrites DSCP on egress.

NVUE (S2 "Mark and Remark Traffic", "Remarking"; NVUE reference QoS.md):

- ``qos remark <profile> rewrite l2|l3|both`` enables rewriting for packets that *ingress*
  on the ports of the profile (``qos_features.conf`` ``packet_priority_remark_set``);
  ``l3``/``both`` rewrite DSCP -> ``dscp_rewrite_on_ingress``.
- ``qos remark <profile> switch-priority <sp> dscp <0-63>`` is the egress mapping of the
  ports of the profile -> ``dscp_rewrite`` (switch priority -> DSCP); ``pcp <0-7>``
  (802.1p remarking) is reported as not modelled.
- Without configuration nothing is remarked (the ``priority_remark`` lines of
  ``qos_features.conf`` are commented out and the remark set is empty): ``default-global``
  starts as rewrite off and an empty map. A port that binds another profile uses that
  profile whole, like every other feature (S2 "Port Groups").

VXLAN (CumulusNetworks/docs "VXLAN Tunnel DSCP Operations"; NVUE reference VXLAN.md): ``nve
vxlan encapsulation dscp action copy|set|derive`` (default ``derive``) and ``value``. No
``nve vxlan`` (or VXLAN off): no tunnel. ``copy`` -> ``{}`` (outer = inner DSCP); ``set``
-> every priority -> ``value``; ``derive`` (from the switch priority, mapping not
documented) -> None (not known).
"""

from __future__ import annotations

from typing import Any

from rocetune.platforms.cumulus import values
from rocetune.platforms.cumulus.qos_common import Ctx, Part
from rocetune.platforms.cumulus.qos_queues import DEFAULT_GLOBAL
from rocetune.platforms.cumulus.tree import ConfigTree, Issues, KeyPath

_REMARK_KEYS = frozenset({"rewrite", "switch-priority"})
_REWRITE = {"l2": False, "l3": True, "both": True}
_PCP = "802.1p remarking is not modelled (rocetune checks DSCP remarks only)"
_VXLAN = ("nve", "vxlan")


def resolve_remarks(ctx: Ctx) -> dict[str, Part]:
    """Every remark profile as ``dscp_rewrite`` / ``dscp_rewrite_on_ingress`` parts."""
    found = {name: (node, path) for name, node, path in ctx.profiles("remark")}
    out: dict[str, Part] = {}
    for name in sorted({DEFAULT_GLOBAL, *found}):
        part = Part()
        part.put("dscp_rewrite", {}, None)
        part.put("dscp_rewrite_on_ingress", False, None)
        if name in found:
            _apply(ctx, part, *found[name])
        out[name] = part
    return out


def _apply(ctx: Ctx, part: Part, node: dict[str, Any], path: KeyPath) -> None:
    ctx.unknown_keys(path, node, _REMARK_KEYS)
    if "rewrite" in node:
        where = (*path, "rewrite")
        flag = _REWRITE.get(str(node["rewrite"]).strip().lower())
        if flag is None:
            ctx.issues.invalid(where, node["rewrite"], "l2, l3 or both", ctx.line(where))
        part.put("dscp_rewrite_on_ingress", flag, ctx.line(where))
    if "switch-priority" not in node:
        return
    where = (*path, "switch-priority")
    table: dict[int, int] | None = {}
    for sps, settings, member in ctx.members(where, 7):
        ctx.unknown_keys(member, settings, frozenset({"dscp", "pcp"}))
        if "pcp" in settings:
            ctx.issues.subtree(ctx.tree, (*member, "pcp"), _PCP)
        if "dscp" not in settings:
            continue
        dscp = ctx.integer((*member, "dscp"), settings["dscp"], 0, 63)
        if dscp is None or table is None:
            table = None
            continue
        table.update(dict.fromkeys(sps, dscp))
    part.put("dscp_rewrite", table if ctx.valid_ids(where, 7) else None, ctx.line(where))


def tunnel_rewrites(tree: ConfigTree, issues: Issues) -> dict[str, dict[int, int] | None]:
    """The VXLAN tunnel's outer DSCP per switch priority ({} when there is no VXLAN)."""
    node = tree.get(_VXLAN)
    if not isinstance(node, dict):
        return {}
    for key in ("enable", "state"):
        if key in node and values.as_switch(node[key]) is False:
            return {}
    dscp = tree.get((*_VXLAN, "encapsulation", "dscp"))
    dscp = dscp if isinstance(dscp, dict) else {}
    action = str(dscp.get("action", "derive")).strip().lower()
    if action == "copy":
        return {"vxlan": {}}
    if action == "set":
        where = (*_VXLAN, "encapsulation", "dscp", "value")
        value = values.as_int(dscp.get("value"))
        if value is None or not 0 <= value <= 63:
            issues.invalid(where, dscp.get("value"), "a DSCP 0..63", tree.line(where))
            return {"vxlan": None}
        return {"vxlan": dict.fromkeys(range(8), value)}
    if action != "derive":
        where = (*_VXLAN, "encapsulation", "dscp", "action")
        issues.invalid(where, dscp.get("action"), "copy, set or derive", tree.line(where))
    return {"vxlan": None}
