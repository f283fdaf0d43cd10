"""SSH cipher preference shared by the transports (netmiko, paramiko and asyncio exec channels)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def gcm_first(names: Iterable[str]) -> list[str]:
    """Cipher names, the AES-GCM ones first (otherwise in the given order)."""
    return sorted(names, key=lambda c: "-gcm@" not in c)


def aead_first(sock: Any, **kwargs: Any) -> Any:
    """A paramiko Transport preferring AES-GCM (same set of ciphers, new order).

    With CTR ciphers paramiko checks every packet's MAC in a per-byte Python loop, the
    largest CPU cost of exec-channel collection; GCM authenticates in the C library.
    """
    import paramiko  # type: ignore[import-untyped,unused-ignore]

    transport = paramiko.Transport(sock, **kwargs)
    options = transport.get_security_options()
    options.ciphers = tuple(gcm_first(options.ciphers))
    return transport


def asyncssh_gcm_first() -> list[str]:
    """asyncssh's default ciphers, AES-GCM first: its chacha20-poly1305 (its default first
    choice) builds cipher objects per packet in Python, about 6x the CPU of AES-GCM."""
    from asyncssh.encryption import get_default_encryption_algs

    return gcm_first(alg.decode("ascii") for alg in get_default_encryption_algs())
