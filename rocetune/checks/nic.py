"""Rules of the nic family (see rules/ and docs/rule-catalogue.md).

The NIC-only rules live in :mod:`rocetune.checks.nic_port` (RT105 roce-tos, RT506
nic-rx-buffer, RT602 roce-mtu-fits, RT603 roce-v2) and :mod:`rocetune.checks.nic_cc` (RT311
dcqcn-rp, RT312 dcqcn-np, RT314 cnp-priority, RT316 nic-firmware-cc) and
:mod:`rocetune.checks.dcqcn_params` (RT315 dcqcn-params-range); the rules shared with
switch ports (RT101-RT104, RT201-RT204, RT401, RT403) check NICs through their
``check_nic``.
"""

from __future__ import annotations

from rocetune.checks.base import Rule
from rocetune.checks.dcqcn_params import DcqcnParamsRange
from rocetune.checks.nic_cc import CnpPriority, DcqcnNp, DcqcnRp, NicFirmwareCc
from rocetune.checks.nic_port import NicRxBuffer, RoceMtuFits, RoceTos, RoceV2

RULES: tuple[type[Rule], ...] = (
    RoceTos,
    DcqcnRp,
    DcqcnNp,
    CnpPriority,
    DcqcnParamsRange,
    NicFirmwareCc,
    NicRxBuffer,
    RoceMtuFits,
    RoceV2,
)
