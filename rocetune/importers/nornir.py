"""Nornir SimpleInventory (``hosts.yaml``, ``groups.yaml``, ``defaults.yaml``) -> :class:`Scaffold`.

A host's ``hostname``, ``platform``, ``username``, ``port`` and ``data.role`` are read from the
host, then its groups in the order listed (and their parent groups, depth first), then the
defaults: the first value found wins, as Nornir resolves them. ``password`` is never copied.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError

from rocetune.errors import RocetuneError
from rocetune.importers.scaffold import ImportedDevice, Scaffold, platform_for


def _load(path: Path, *, required: bool = False, by_name: bool = True) -> dict[str, Any]:
    if not path.is_file():
        if required:
            raise RocetuneError("no hosts.yaml: not a Nornir SimpleInventory", file=path)
        return {}
    try:
        root = YAML().load(path.read_text(encoding="utf-8"))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark is not None else None
        raise RocetuneError(f"not valid YAML: {exc.problem}", file=path, line=line) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RocetuneError(f"cannot read: {exc}", file=path) from None
    if root is None:
        return {}
    if not isinstance(root, dict):
        raise RocetuneError("must be a mapping of names to settings", file=path)
    if not by_name:
        return dict(root)
    for name, body in root.items():
        if body is not None and not isinstance(body, dict):
            line = root.lc.key(name)[0] + 1 if hasattr(root, "lc") else None
            raise RocetuneError(f"{name!r} must be a mapping", file=path, line=line)
    return {str(k): v or {} for k, v in root.items()}


def _chain(names: list[str], groups: dict[str, Any], seen: set[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name in names:
        if name in seen or name not in groups:
            continue
        seen.add(name)
        out.append(groups[name])
        out.extend(_chain([str(g) for g in groups[name].get("groups") or []], groups, seen))
    return out


def _pick(key: str, layers: list[dict[str, Any]]) -> Any:
    for layer in layers:
        value = (layer.get("data") or {}).get("role") if key == "role" else layer.get(key)
        if value is not None:
            return value
    return None


def import_nornir(directory: Path) -> Scaffold:
    """Read a SimpleInventory directory (``hosts.yaml`` required, the others optional)."""
    hosts = _load(directory / "hosts.yaml", required=True)
    groups = _load(directory / "groups.yaml")
    defaults = _load(directory / "defaults.yaml", by_name=False)
    scaffold = Scaffold(source=f"the Nornir SimpleInventory {directory.name or directory}")
    dropped = False
    for name, body in hosts.items():
        member = [str(g) for g in body.get("groups") or []]
        missing = [g for g in member if g not in groups]
        layers = [body, *_chain(member, groups, set()), defaults]
        dropped = dropped or any(layer.get("password") for layer in layers)
        raw_platform = _pick("platform", layers)
        dev = ImportedDevice(
            name=name,
            host=str(_pick("hostname", layers) or "") or None,
            platform=platform_for(str(raw_platform)) if raw_platform else None,
            role=str(_pick("role", layers) or "") or None,
        )
        user = _pick("username", layers)
        dev.username = str(user) if user else None
        port = _pick("port", layers)
        dev.port = int(port) if isinstance(port, int) else None
        if missing:
            dev.notes.append(f"groups not in groups.yaml: {', '.join(missing)}")
        if raw_platform and dev.platform is None:
            dev.notes.append(
                f"Nornir platform {str(raw_platform)!r} is not one rocetune reads: set platform:"
                " (sonic, cumulus, eos, nxos, linux_host) or leave the device out"
            )
        elif not raw_platform:
            dev.notes.append("no platform in Nornir: set platform:")
        if dev.role is None:
            dev.notes.append("no data.role in Nornir: set role: (spine, leaf, host...)")
        scaffold.add(dev)
    if dropped:
        scaffold.notes.append(
            "Passwords in the Nornir inventory were not copied: set ROCETUNE_PASSWORD"
        )
    return scaffold
