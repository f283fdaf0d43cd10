"""SSH cipher preference shared by both transports (netmiko and exec channels)."""

from __future__ import annotations

from typing import Any


def aead_first(sock: Any, **kwargs: Any) -> Any:
    """A paramiko Transport preferring AES-GCM (same set of ciphers, new order).

    With CTR ciphers paramiko checks every packet's MAC in a per-byte Python loop, the
    largest CPU cost of exec-channel collection; GCM authenticates in the C library.
    """
    import paramiko  # type: ignore[import-untyped,unused-ignore]

    transport = paramiko.Transport(sock, **kwargs)
    options = transport.get_security_options()
    options.ciphers = tuple(sorted(options.ciphers, key=lambda c: "-gcm@" not in c))
    return transport
