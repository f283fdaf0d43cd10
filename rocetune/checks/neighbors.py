"""Which inventory device and port an LLDP neighbour names.

Shared by RT710 (:mod:`rocetune.checks.topology`) and the link merge (:mod:`rocetune.topology`)
so both read LLDP the same way.

- Device: the LLDP system name is compared, case-insensitively, with the inventory names,
  then with the devices' hostnames, then with both again without their domain
  (``leaf1.dc1.example`` -> ``leaf1``). The first match wins, in that order and by device
  name.
- Port: the neighbour's port ID, then its port description, as a port or NIC name of that
  device, then as a port alias (SONiC advertises ``PORT.alias`` as its port ID). Otherwise
  the port ID as given, marked unresolved.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rocetune.model import Device, Fabric, LinkEnd, LldpNeighbor


@dataclass(frozen=True)
class Peer:
    """The far end of an LLDP neighbour relation, in inventory terms."""

    end: LinkEnd
    resolved: bool
    """True when ``end.port`` is a port or NIC of the peer device in the model."""


def known_names(fabric: Fabric) -> set[str]:
    """Device names the fabric knows: in the model, with a problem, or declared."""
    return {*fabric.devices, *(p.device for p in fabric.problems), *fabric.known_devices}


def _full(name: str) -> str:
    return name.strip().casefold()


def _short(name: str) -> str:
    return _full(name).split(".", 1)[0]


class NeighborIndex:
    """Resolve LLDP neighbours against the devices of a fabric."""

    def __init__(self, devices: Mapping[str, Device], known: Iterable[str] = ()) -> None:
        self._devices = devices
        names = sorted({*devices, *known})
        hostnames = [(n, h) for n in names if (h := _hostname(devices.get(n)))]
        self._by_key: dict[str, str] = {}
        for key in (_full, _short):
            for name in names:
                self._by_key.setdefault(key(name), name)
            for name, host in hostnames:
                self._by_key.setdefault(key(host), name)

    def device(self, remote_name: str) -> str | None:
        """The inventory name of the device an LLDP system name stands for, or None."""
        return self._by_key.get(_full(remote_name)) or self._by_key.get(_short(remote_name))

    def peer(self, neighbor: LldpNeighbor) -> Peer | None:
        """The far end of ``neighbor``, or None when its device is not in the inventory."""
        name = self.device(neighbor.remote_name)
        if name is None:
            return None
        port = _port_of(self._devices.get(name), neighbor)
        resolved = port is not None
        return Peer(LinkEnd(device=name, port=port or neighbor.remote_port), resolved)


def _hostname(device: Device | None) -> str | None:
    return device.hostname if device is not None else None


def _port_of(device: Device | None, neighbor: LldpNeighbor) -> str | None:
    if device is None:
        return None
    wanted = [neighbor.remote_port]
    if neighbor.remote_port_descr and neighbor.remote_port_descr != neighbor.remote_port:
        wanted.append(neighbor.remote_port_descr)
    for name in wanted:
        if name in device.ports or name in device.nics:
            return name
    for name in wanted:
        for port in device.ports.values():
            if port.alias is not None and port.alias == name:
                return port.name
    return None
