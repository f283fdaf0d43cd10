"""Host-side files rocetune recognises but does not read as host state.

An NVIDIA NIC Configuration Operator custom resource (``NicConfigurationTemplate``,
``NicDevice``, ...; Mellanox/nic-configuration-operator, roce-knowledge.md S30) describes the
*desired* NIC configuration of a Kubernetes node pool, not what a host is configured to do:
it is reported as one Unparsed item (RT001) that says which outputs to collect instead.
"""

from __future__ import annotations

import re

from rocetune.model import Unparsed

_API = re.compile(r"^\s*apiVersion:\s*[\"']?configuration\.net\.nvidia\.com/", re.MULTILINE)
_KIND = re.compile(r"^\s*kind:\s*[\"']?(\w+)", re.MULTILINE)
COLLECT = (
    "mlnx_qos -i <if>, ethtool -a <if>, the ecn sysfs files, cma_roce_tos/cma_roce_mode,"
    " show_gids and mlxconfig q"
)


def operator_kind(text: str) -> str | None:
    """The ``kind`` of a NIC Configuration Operator resource, or None for any other text."""
    head = text[:20_000]
    if _API.search(head) is None:
        return None
    match = _KIND.search(head)
    return match.group(1) if match else "resource"


def operator_items(text: str, file: str) -> tuple[Unparsed, ...]:
    """One Unparsed item for an operator resource."""
    kind = operator_kind(text) or "resource"
    line = next(
        (n for n, t in enumerate(text.splitlines(), start=1) if t.lstrip().startswith("kind:")),
        1,
    )
    reason = (
        f"NVIDIA NIC Configuration Operator {kind} is a desired-state template, not a host"
        f" output; collect the host itself ({COLLECT})"
    )
    return (Unparsed(item=f"kind: {kind}", reason=reason, file=file, line=line),)
