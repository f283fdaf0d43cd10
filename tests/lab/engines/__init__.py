"""Stateful device engines of the SSH lab (for ``rocetune apply`` and modal CLIs).

A device whose spec has ``engine`` (``{"kind": "<name>", ...options}``) is served by an
engine: it keeps running/startup config, sessions, checkpoints, revisions and timers on a
virtual clock, tracks each connection's CLI mode (its prompt), and answers ``show`` commands
from its state so the same parsers read them. A command the engine does not take
(``handle`` returns None) falls back to the device's canned answers.

The registry is explicit: :data:`ENGINES` maps a kind to its factory; engines are imported
lazily by :func:`make_engine`, so the lab server imports none it does not serve.
"""

from __future__ import annotations

import importlib
from typing import Any

from tests.lab.engines.base import Engine

ENGINES: dict[str, str] = {
    "sonic": "tests.lab.engines.sonic:SonicEngine",
    "cumulus": "tests.lab.engines.cumulus:CumulusEngine",
    "linux_host": "tests.lab.engines.linux_host:HostEngine",
    "eos": "tests.lab.engines.eos:make",
    "nxos": "tests.lab.engines.nxos:make",
    "onyx": "tests.lab.engines.onyx:OnyxEngine",
    "klish": "tests.lab.engines.klish:make",
}
"""Engine kind -> ``module:factory`` (the factory takes the device name and its spec dict)."""


def make_engine(device: str, spec: dict[str, Any]) -> Engine:
    """Build the engine a device spec names (ValueError for an unknown kind)."""
    kind = str(spec.get("kind", ""))
    if kind not in ENGINES:
        msg = f"device {device}: unknown engine kind {kind!r} (known: {sorted(ENGINES)})"
        raise ValueError(msg)
    module, _, name = ENGINES[kind].partition(":")
    factory = getattr(importlib.import_module(module), name)
    engine: Engine = factory(device, spec)
    return engine
