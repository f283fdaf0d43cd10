"""Inventory schema and loader (libyaml, else ruamel.yaml; every error names file:line:column).

Shape (architecture.md)::

    intent: {...}                     # rocetune.model.Intent fields; defaults = de-facto plan
    defaults: {username_env: ROCETUNE_USER, password_env: ROCETUNE_PASSWORD}
    groups:
      leaves: {role: leaf, platform: cumulus, roce_ports: [swp1-32]}
    devices:
      leaf1: {host: 10.0.0.11, groups: [leaves], snapshot: snapshots/leaf1}
      gpu01: {host: 10.0.1.1, platform: linux_host, role: host, nics: [eth2, eth3]}
    links:
      - {a: leaf1:swp1, b: gpu01:eth2, length_m: 3}
    suppressions:                     # optional: accepted findings (rocetune.suppress)
      - {rule: RT201, device: leaf1, port: swp1, reason: "...", expires: 2025-12-31}

Credentials never sit in the inventory: only names of environment variables
(``username_env``/``password_env``), an SSH agent or key, or a prompt. A literal user name
(``username:``) is allowed; a literal password is refused. Unknown keys are errors with a
"did you mean" hint. Every problem of a file is reported at once, in file order.

``roce_ports:`` (defaults, a group or a device; the first one set wins, like ``role:``)
lists the switch ports that carry RoCE: names, globs (``Ethernet*``) or ranges
(``swp1-32``, ``Ethernet0-124``). When it is set, the port rules check exactly those ports
(rocetune.checks.scope); otherwise the links and the config decide.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator

from rocetune import inputs, yamlc
from rocetune.errors import InventoryError, combined
from rocetune.model import Intent, Link, LinkEnd, Model
from rocetune.platforms import KNOWN_PLATFORMS
from rocetune.suppress import Suppression

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
_PORT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/:-]{0,63}$")
_HOST_RE = re.compile(r"^[A-Za-z0-9._:%-]{1,253}$")
_ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_USER_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._@-]{0,63}$")
_PORT_PATTERN_RE = re.compile(r"^[A-Za-z0-9*?\[\]!._/:-]{1,64}$")
_SECRET_KEYS = {"password", "passwd", "pass", "secret", "enable_secret", "token", "key"}


def _check_env(v: str | None) -> str | None:
    if v is not None and not _ENV_RE.match(v):
        # never echo the value: a password pasted here by mistake would land in CI logs
        msg = (
            "is not an environment variable name (value not shown: it may be a secret; "
            "give the NAME of the variable that holds it)"
        )
        raise ValueError(msg)
    return v


class Access(Model):
    """How to reach a device: names of env vars, never secrets themselves."""

    username: str | None = None
    """A literal SSH user name (not a secret); ``username_env`` names a variable instead."""
    username_env: str | None = None
    """Name of the environment variable holding the SSH user name; default ROCETUNE_USER."""
    password_env: str | None = None
    """Name of the environment variable holding the SSH password; default ROCETUNE_PASSWORD."""
    port: int | None = Field(default=None, ge=1, le=65535)
    """SSH port; default 22."""
    device_type: str | None = None
    """netmiko device type override (the device is then collected through netmiko)."""
    use_keys: bool | None = None
    """Try the SSH agent and ~/.ssh/id_* keys (then a password only when its variable is set)."""
    key_file: str | None = None
    """SSH private key file (relative to the inventory)."""
    ssh_config: str | None = None
    """OpenSSH client config file (User, Port, ProxyJump with one hop, IdentityFile)."""

    @field_validator("username_env", "password_env")
    @classmethod
    def _env(cls, v: str | None) -> str | None:
        return _check_env(v)

    @field_validator("username")
    @classmethod
    def _username(cls, v: str | None) -> str | None:
        if v is not None and not _USER_RE.match(v):
            msg = "is not a user name (letters, digits, . _ - @; value not shown)"
            raise ValueError(msg)
        return v


def _check_port_patterns(v: tuple[str, ...] | None) -> tuple[str, ...] | None:
    for pat in v or ():
        if not _PORT_PATTERN_RE.match(pat):
            msg = f"{pat!r} is not a port name, glob or range (e.g. swp1, swp*, swp1-32)"
            raise ValueError(msg)
    return v


class Defaults(Access):
    """Settings every device inherits."""

    platform: str | None = None
    """Platform name (sonic, cumulus, eos, nxos, linux_host, ...); unsupported ones: RT002."""
    role: str | None = None
    """Role in the topology (spine, leaf, host, ...): scopes rules and link checks."""
    asic: str | None = None
    """Switch ASIC (``spectrum3``...) when the snapshot does not tell: picks headroom constants."""
    roce_ports: tuple[str, ...] | None = None
    """Switch ports that carry RoCE (names, globs, ranges); None = from links and config."""

    @field_validator("roce_ports")
    @classmethod
    def _roce_ports(cls, v: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return _check_port_patterns(v)


class Group(Access):
    """A named set of settings; groups may inherit other groups."""

    platform: str | None = None
    """Platform name (sonic, cumulus, eos, nxos, linux_host, ...); unsupported ones: RT002."""
    role: str | None = None
    """Role in the topology (spine, leaf, host, ...): scopes rules and link checks."""
    asic: str | None = None
    """Switch ASIC (spectrum3, td4, ...) when the snapshot does not tell (headroom constants)."""
    groups: tuple[str, ...] = ()
    """Groups whose settings apply (first listed wins), by name."""
    roce_ports: tuple[str, ...] | None = None
    """Switch ports that carry RoCE: names, globs or ranges; unset: from links and config."""

    @field_validator("roce_ports")
    @classmethod
    def _roce_ports(cls, v: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return _check_port_patterns(v)


class DeviceEntry(Access):
    """One device as written in the inventory."""

    host: str | None = None
    """Address or name to connect to over SSH."""
    platform: str | None = None
    """Platform name (sonic, cumulus, eos, nxos, linux_host, ...); unsupported ones: RT002."""
    role: str | None = None
    """Role in the topology (spine, leaf, host, ...): scopes rules and link checks."""
    asic: str | None = None
    """Switch ASIC (spectrum3, td4, ...) when the snapshot does not tell (headroom constants)."""
    groups: tuple[str, ...] = ()
    """Groups whose settings apply (first listed wins), by name."""
    snapshot: str | None = None
    """A saved snapshot (directory or file, relative to the inventory), read instead of SSH."""
    nics: tuple[str, ...] | None = None
    """Hosts: the RoCE netdevs to collect (default: from ibdev2netdev / sysfs)."""
    roce_ports: tuple[str, ...] | None = None
    """Switch ports that carry RoCE: names, globs or ranges; unset: from links and config."""

    @field_validator("roce_ports")
    @classmethod
    def _roce_ports(cls, v: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return _check_port_patterns(v)

    @field_validator("host")
    @classmethod
    def _host(cls, v: str | None) -> str | None:
        if v is not None and not _HOST_RE.match(v):
            msg = f"{v!r} is not a host name or address"
            raise ValueError(msg)
        return v

    @field_validator("nics")
    @classmethod
    def _nics(cls, v: tuple[str, ...] | None) -> tuple[str, ...] | None:
        for n in v or ():
            if not _PORT_RE.match(n):
                msg = f"{n!r} is not an interface name"
                raise ValueError(msg)
        return v


class LinkEntry(Model):
    """A declared link between two ``device:port`` ends."""

    a: str
    """One end, ``device:port``."""
    b: str
    """The other end, ``device:port``."""
    length_m: float | None = Field(default=None, gt=0, le=100_000)
    """Cable length in metres (headroom sizing); unset: the intent's ``cable_length_m``."""

    @field_validator("a", "b")
    @classmethod
    def _end(cls, v: str) -> str:
        dev, sep, port = v.partition(":")
        if not sep or not _NAME_RE.match(dev) or not _PORT_RE.match(port):
            msg = f"{v!r} is not a device:port link end"
            raise ValueError(msg)
        return v


class InventoryFile(Model):
    """The whole file."""

    intent: Intent = Intent()
    """The fabric's lossless plan every rule compares against (defaults: the de-facto plan)."""
    defaults: Defaults = Defaults()
    """Settings every device inherits (access, platform, role, asic, roce_ports)."""
    groups: dict[str, Group] = Field(default_factory=dict)
    """Named sets of settings devices list in ``groups:``; groups may list parent groups."""
    devices: dict[str, DeviceEntry] = Field(default_factory=dict)
    """The devices by name (switches and hosts)."""
    links: tuple[LinkEntry, ...] = ()
    """Declared links (``a``/``b`` device:port ends, optional ``length_m``); LLDP adds more."""
    suppressions: tuple[Suppression, ...] = ()
    """Accepted findings: {rule, device glob, port/link glob, reason, expires} (optional)."""
    snapshots_dir: str | None = None
    """A directory of snapshots ``<dir>/<device>/meta.json`` (see :func:`with_snapshots`)."""


@dataclass(frozen=True)
class ResolvedDevice:
    """A device with group and default inheritance applied and paths resolved."""

    name: str
    host: str | None
    platform: str | None
    role: str | None
    snapshot: Path | None
    snapshot_line: int | None
    nics: tuple[str, ...] | None
    access: Access
    roce_ports: tuple[str, ...] | None = None
    """The ports that carry RoCE (device, else group, else defaults); None = not declared."""
    asic: str | None = None
    """The inventory's ``asic:`` (device, group or default); overrides the snapshot's."""


@dataclass(frozen=True)
class Inventory:
    """A loaded, validated inventory."""

    path: Path
    intent: Intent
    devices: dict[str, ResolvedDevice]
    links: tuple[Link, ...]
    suppressions: tuple[Suppression, ...] = ()
    """The inventory's ``suppressions:`` (applied by rocetune.suppress)."""
    snapshots_dir: Path | None = None
    """The inventory's ``snapshots_dir:`` (resolved; it exists)."""


# --- YAML position helpers -------------------------------------------------------------


def _pos(
    node: Any, key: object | None = None, *, value: bool = False
) -> tuple[int | None, int | None]:
    """1-based line/column of ``key`` (or its value) in a read mapping, or of the node."""
    try:
        if key is not None and isinstance(node, yamlc.PosMap | yamlc.PosSeq):
            if isinstance(node, yamlc.PosSeq):
                line, col = node.lc.item(key)
            elif value:
                line, col = node.lc.value(key)
            else:
                line, col = node.lc.key(key)
            return line + 1, col + 1
        if hasattr(node, "lc"):
            return node.lc.line + 1, node.lc.col + 1
    except (KeyError, IndexError, TypeError, AttributeError):
        pass
    return None, None


def _walk(root: Any, loc: tuple[int | str, ...]) -> tuple[Any, object | None]:
    """Follow a pydantic error location into the YAML tree: (parent node, last key)."""
    node, last = root, None
    for part in loc:
        child = None
        in_map = isinstance(node, yamlc.PosMap) and part in node
        in_seq = isinstance(node, yamlc.PosSeq) and isinstance(part, int) and part < len(node)
        if in_map or in_seq:
            child = node[part]
        if child is None:
            break
        last = part
        if not isinstance(child, yamlc.PosMap | yamlc.PosSeq):
            return node, last
        node, last = child, None
    return node, last


def _error(path: Path, root: Any, loc: tuple[int | str, ...], msg: str) -> InventoryError:
    node, key = _walk(root, loc)
    line, col = _pos(node, key, value=True)
    return InventoryError(msg, file=path, line=line, column=col)


# --- validation ------------------------------------------------------------------------


def _did_you_mean(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


Problems = list[InventoryError]
"""Every problem found so far (all are reported at once)."""


def _check_keys(
    path: Path, node: Any, model: type[Model], loc: tuple[int | str, ...], errs: Problems
) -> None:
    if not isinstance(node, yamlc.PosMap):
        return
    fields = list(model.model_fields)
    for key in node:
        k = str(key)
        if k.lower() in _SECRET_KEYS:
            line, col = _pos(node, key)
            msg = (
                f"literal credential {k!r} is not allowed in an inventory: name an environment "
                "variable with password_env/username_env, or use an SSH agent/key or the prompt"
            )
            errs.append(InventoryError(msg, file=path, line=line, column=col))
        elif k not in fields:
            line, col = _pos(node, key)
            where = ".".join(str(p) for p in loc) or "top level"
            msg = f"unknown key {k!r} in {where}{_did_you_mean(k, fields)}"
            errs.append(InventoryError(msg, file=path, line=line, column=col))


def _check_nested(
    path: Path, node: Any, model: type[Model], loc: tuple[int | str, ...], errs: Problems
) -> None:
    """Check keys of ``node`` against ``model`` and recurse into sub-model fields."""
    _check_keys(path, node, model, loc, errs)
    if not isinstance(node, yamlc.PosMap):
        return
    for name, info in model.model_fields.items():
        sub = info.annotation
        if isinstance(sub, type) and issubclass(sub, Model) and name in node:
            _check_nested(path, node[name], sub, (*loc, name), errs)


def _check_tree(path: Path, root: Any, errs: Problems) -> None:
    if not isinstance(root, yamlc.PosMap):
        line, col = _pos(root)
        raise InventoryError("an inventory must be a mapping", file=path, line=line or 1)
    _check_keys(path, root, InventoryFile, (), errs)
    _check_nested(path, root.get("intent"), Intent, ("intent",), errs)
    _check_keys(path, root.get("defaults"), Defaults, ("defaults",), errs)
    for section, model in (("groups", Group), ("devices", DeviceEntry)):
        entries = root.get(section)
        if isinstance(entries, yamlc.PosMap):
            for name, entry in entries.items():
                if not _NAME_RE.match(str(name)):
                    line, col = _pos(entries, name)
                    msg = f"{name!r} is not a valid {section[:-1]} name"
                    errs.append(InventoryError(msg, file=path, line=line, column=col))
                _check_keys(path, entry, model, (section, str(name)), errs)
    links = root.get("links")
    if isinstance(links, yamlc.PosSeq):
        for i, link in enumerate(links):
            _check_keys(path, link, LinkEntry, ("links", i), errs)
    sups = root.get("suppressions")
    if isinstance(sups, yamlc.PosSeq):
        for i, sup in enumerate(sups):
            _check_keys(path, sup, Suppression, ("suppressions", i), errs)


def _validation_errors(
    path: Path, root: Any, exc: ValidationError, known: Problems | None = None
) -> Problems:
    """Every validation error; an extra key the key check reported already is not repeated."""
    reported = {e.line for e in known or ()}
    out = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        where = ".".join(str(p) for p in loc)
        msg = err["msg"].removeprefix("Value error, ")
        found = _error(path, root, loc, f"{where}: {msg}")
        if err["type"] == "extra_forbidden" and found.line in reported:
            continue
        out.append(found)
    return out


# --- resolution ------------------------------------------------------------------------


def _group_chain(
    path: Path, root: Any, inv: InventoryFile, name: str, start: tuple[str, ...]
) -> list[Group]:
    """Groups of a device in precedence order (first wins), parents after children."""
    out: list[Group] = []
    seen: set[str] = set()

    def visit(gname: str, trail: tuple[str, ...], loc: tuple[int | str, ...]) -> None:
        if gname in trail:
            raise _error(path, root, loc, f"group cycle: {' -> '.join((*trail, gname))}")
        group = inv.groups.get(gname)
        if group is None:
            hint = _did_you_mean(gname, list(inv.groups))
            raise _error(path, root, loc, f"unknown group {gname!r}{hint}")
        if gname in seen:
            return
        seen.add(gname)
        out.append(group)
        for parent in group.groups:
            visit(parent, (*trail, gname), ("groups", gname, "groups"))

    for g in start:
        visit(g, (), ("devices", name, "groups"))
    return out


def _pick(attr: str, device: Model, groups: list[Group], defaults: Defaults) -> Any:
    for src in (device, *groups, defaults):
        value = getattr(src, attr, None)
        if value is not None:
            return value
    return None


def _resolve_device(
    path: Path,
    root: Any,
    inv: InventoryFile,
    name: str,
    entry: DeviceEntry,
    *,
    resolved: list[tuple[str, str, bool]] | None = None,
) -> ResolvedDevice:
    groups = _group_chain(path, root, inv, name, entry.groups)
    platform = _pick("platform", entry, groups, inv.defaults)
    if platform is not None and platform not in KNOWN_PLATFORMS:
        hint = _did_you_mean(platform, list(KNOWN_PLATFORMS))
        known = ", ".join(KNOWN_PLATFORMS)
        msg = f"unknown platform {platform!r}{hint}; known platforms: {known}"
        raise _error(path, root, ("devices", name, "platform"), msg)
    access = Access(**{f: _pick(f, entry, groups, inv.defaults) for f in Access.model_fields})
    snapshot = None
    snap_line = None
    if entry.snapshot is not None:
        snapshot = (path.parent / entry.snapshot).resolve()
        node, key = _walk(root, ("devices", name, "snapshot"))
        snap_line = _pos(node, key)[0]
        if not snapshot.exists():
            msg = f"snapshot {entry.snapshot!r} of device {name!r} does not exist"
            raise _error(path, root, ("devices", name, "snapshot"), msg)
        if resolved is not None:
            resolved.append((str(path.parent / entry.snapshot), str(snapshot), False))
    return ResolvedDevice(
        name=name,
        host=entry.host,
        platform=platform,
        role=_pick("role", entry, groups, inv.defaults),
        snapshot=snapshot,
        snapshot_line=snap_line,
        nics=entry.nics,
        access=access,
        roce_ports=_pick("roce_ports", entry, groups, inv.defaults),
        asic=_pick("asic", entry, groups, inv.defaults),
    )


def _links(entries: tuple[LinkEntry, ...]) -> tuple[Link, ...]:
    def end(text: str) -> LinkEnd:
        dev, _, port = text.partition(":")
        return LinkEnd(device=dev, port=port)

    return tuple(Link(a=end(e.a), b=end(e.b), length_m=e.length_m) for e in entries)


def _read_yaml(path: Path) -> Any:
    try:
        text = inputs.read_bytes(path).decode("utf-8")
    except inputs.InputRefused as exc:
        raise InventoryError(f"cannot read inventory: {exc}", file=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InventoryError(f"cannot read inventory: {exc}", file=path) from exc
    _refuse_aliases(text, path)
    try:
        return yamlc.load(text)
    except yamlc.Unusual:
        pass  # ruamel reads it (and words its errors) as before
    return yamlc.adopt(_read_ruamel(text, path))


def _read_ruamel(text: str, path: Path) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError

    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        return yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        col = mark.column + 1 if mark else None
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        raise InventoryError(f"invalid YAML: {problem}", file=path, line=line, column=col) from exc
    except Exception as exc:  # ruamel raises a few unmarked errors (e.g. bad anchors)
        raise InventoryError(f"invalid YAML: {exc}", file=path) from exc


def _plain(node: Any) -> Any:
    if isinstance(node, Mapping):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def load_inventory(
    path: Path | str, *, resolved: list[tuple[str, str, bool]] | None = None
) -> Inventory:
    """Load and validate an inventory; raise InventoryError(file, line, column) on any problem.

    ``resolved`` gets (path as joined, resolved path, is the snapshots directory) of every
    snapshot path the inventory resolved (rocetune.invcache checks them again)."""
    path = Path(path)
    root = _read_yaml(path)
    if root is None:
        raise InventoryError("the inventory is empty", file=path, line=1)
    errs: Problems = []
    _check_tree(path, root, errs)
    try:
        inv = InventoryFile.model_validate(_plain(root))
    except ValidationError as exc:
        raise combined(_sorted([*errs, *_validation_errors(path, root, exc, errs)])) from None
    devices = {}
    for name, entry in inv.devices.items():
        try:
            devices[name] = _resolve_device(path, root, inv, name, entry, resolved=resolved)
        except InventoryError as exc:
            errs.append(exc)
    snapshots_dir = None
    if inv.snapshots_dir is not None:
        snapshots_dir = (path.parent / inv.snapshots_dir).resolve()
        if not snapshots_dir.is_dir():
            msg = f"snapshots_dir {inv.snapshots_dir!r} is not a directory"
            errs.append(_error(path, root, ("snapshots_dir",), msg))
        elif resolved is not None:
            resolved.append((str(path.parent / inv.snapshots_dir), str(snapshots_dir), True))
    if errs:
        raise combined(_sorted(errs))
    return Inventory(
        path=path,
        intent=inv.intent,
        devices=devices,
        links=_links(inv.links),
        suppressions=inv.suppressions,
        snapshots_dir=snapshots_dir,
    )


def _sorted(errs: Problems) -> Problems:
    """In file order (problems without a line last), each once."""
    unique = {(e.line, e.column, e.message): e for e in errs}
    return sorted(unique.values(), key=lambda e: (e.line is None, e.line or 0, e.column or 0))


def load_intent_file(path: Path | str) -> Intent:
    """Load an intent: the ``intent:`` of an inventory, or a file that is only an intent."""
    path = Path(path)
    root = _read_yaml(path)
    if root is None:
        return Intent()
    if not isinstance(root, yamlc.PosMap):
        raise InventoryError("an intent file must be a mapping", file=path, line=1)
    if "intent" in root or "devices" in root:
        return load_inventory(path).intent
    errs: Problems = []
    _check_nested(path, root, Intent, (), errs)
    try:
        intent = Intent.model_validate(_plain(root))
    except ValidationError as exc:
        raise combined(_sorted([*errs, *_validation_errors(path, root, exc, errs)])) from None
    if errs:
        raise combined(_sorted(errs))
    return intent


def _refuse_aliases(text: str, path: Path) -> None:
    """YAML aliases are refused: a few hundred bytes of nested aliases expand to gigabytes
    ("billion laughs"). Groups and ``defaults:`` share settings instead."""
    try:
        for anchor, line, column in yamlc.alias_events(text):
            _refuse_alias(anchor, path, line, column)
        return
    except yamlc.Unusual:
        pass  # no libyaml, or not YAML to it: ruamel looks
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.events import AliasEvent

    try:
        for event in YAML(typ="safe", pure=True).parse(text):
            if isinstance(event, AliasEvent):
                mark = event.start_mark
                _refuse_alias(event.anchor, path, mark.line, mark.column)
    except YAMLError:
        return  # the loader reports the syntax error with its position


def _refuse_alias(anchor: str, path: Path, line: int, column: int) -> None:
    msg = (
        f"YAML alias *{anchor} is not allowed in an inventory "
        "(use groups: or defaults: to share settings)"
    )
    raise InventoryError(msg, file=path, line=line + 1, column=column + 1)
