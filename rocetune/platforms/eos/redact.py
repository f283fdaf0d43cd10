"""Secret redaction for Arista EOS outputs.

``show running-config`` text: the Cisco-like rules of
:mod:`rocetune.platforms.common.redact` (``username ... secret sha512 <hash>``, ``enable
secret``, ``aaa root secret``, ``snmp-server community``, ``snmp-server user ... auth/priv``,
``tacacs-server``/``radius-server ... key 7 <key>``, BGP ``neighbor ... password 7 <key>``,
OSPF/IS-IS/NTP keys). ``| json`` outputs: members whose key names a secret. Private keys
anywhere.
"""

from __future__ import annotations

from rocetune.platforms.common.redact import redact_cisco_like

redact = redact_cisco_like
"""Return ``text`` (the output of ``command``) with every secret replaced."""
