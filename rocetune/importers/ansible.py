"""Ansible inventories (INI and YAML) -> :class:`Scaffold`.

Reads hosts, groups, ``children`` and ``vars`` (variables of ``all`` first, then of parent
groups, child groups, the host itself: the later wins, as Ansible merges them), and from the
variables ``ansible_host`` (address), ``ansible_network_os`` (platform), ``ansible_user`` and
``ansible_port``. Passwords (``ansible_password``, ``ansible_ssh_pass``...) are never copied.
Host ranges (``leaf[01:04]``, ``node[a:c]``) expand as Ansible expands them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError

from rocetune.errors import RocetuneError
from rocetune.importers.scaffold import ImportedDevice, Scaffold, platform_for

_SECRETS = (
    "ansible_password",
    "ansible_ssh_pass",
    "ansible_become_password",
    "ansible_become_pass",
)
_RANGE = re.compile(r"\[([0-9]+|[a-z]):([0-9]+|[a-z])(?::([0-9]+))?\]")


@dataclass
class _Group:
    hosts: dict[str, dict[str, Any]] = field(default_factory=dict)
    vars: dict[str, Any] = field(default_factory=dict)
    children: list[str] = field(default_factory=list)


def expand(pattern: str) -> list[str]:
    """Ansible's host range: ``leaf[01:03]`` -> leaf01, leaf02, leaf03 (one range or none)."""
    m = _RANGE.search(pattern)
    if m is None:
        return [pattern]
    start, end, step = m.group(1), m.group(2), int(m.group(3) or 1)
    head, tail = pattern[: m.start()], pattern[m.end() :]
    if start.isdigit() and end.isdigit():
        width = len(start) if start.startswith("0") else 0
        items = [str(i).zfill(width) for i in range(int(start), int(end) + 1, step)]
    elif start.isalpha() and end.isalpha():
        items = [chr(c) for c in range(ord(start), ord(end) + 1, step)]
    else:
        return [pattern]
    return [f"{head}{item}{tail}" for item in items]


def _kv(tokens: list[str], path: Path, line: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or not key:
            raise RocetuneError(f"expected key=value, got {token!r}", file=path, line=line)
        out[key] = value
    return out


def _split(text: str, path: Path, line: int) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError as exc:
        raise RocetuneError(f"cannot read this line: {exc}", file=path, line=line) from None


def parse_ini(text: str, path: Path) -> dict[str, _Group]:
    """The groups of an INI inventory (hosts before any section are in ``ungrouped``)."""
    groups: dict[str, _Group] = {"all": _Group(), "ungrouped": _Group()}
    name, kind = "ungrouped", "hosts"
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            m = re.fullmatch(r"\[([^\]:\s]+)(?::(children|vars))?\]", line)
            if m is None:
                raise RocetuneError(f"not a section header: {line!r}", file=path, line=no)
            name, kind = m.group(1), m.group(2) or "hosts"
            groups.setdefault(name, _Group())
            continue
        tokens = _split(line, path, no)
        if not tokens:
            continue
        group = groups[name]
        if kind == "children":
            group.children.append(tokens[0])
            groups.setdefault(tokens[0], _Group())
        elif kind == "vars":
            if "=" not in line:
                raise RocetuneError(f"expected key=value, got {line!r}", file=path, line=no)
            key, _, value = line.partition("=")
            group.vars[key.strip()] = " ".join(_split(value, path, no))
        else:
            host_vars = _kv(tokens[1:], path, no)
            for host in expand(tokens[0]):
                group.hosts.setdefault(host, {}).update(host_vars)
    return groups


def _mapping(node: Any, where: str, path: Path) -> dict[str, Any]:
    if node is None:
        return {}
    if not isinstance(node, dict):
        line = getattr(getattr(node, "lc", None), "line", None)
        raise RocetuneError(
            f"{where} must be a mapping", file=path, line=line + 1 if line is not None else None
        )
    return node


def _yaml_group(node: Any, name: str, path: Path, groups: dict[str, _Group]) -> None:
    body = _mapping(node, f"group {name!r}", path)
    group = groups.setdefault(name, _Group())
    for host, host_vars in _mapping(body.get("hosts"), f"{name}.hosts", path).items():
        for h in expand(str(host)):
            group.hosts.setdefault(h, {}).update(_mapping(host_vars, f"host {h!r}", path))
    group.vars.update(_mapping(body.get("vars"), f"{name}.vars", path))
    for child, child_body in _mapping(body.get("children"), f"{name}.children", path).items():
        group.children.append(str(child))
        _yaml_group(child_body, str(child), path, groups)


def parse_yaml(text: str, path: Path) -> dict[str, _Group]:
    """The groups of a YAML inventory (top-level keys are groups, usually just ``all``)."""
    try:
        root = YAML().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark is not None else None
        raise RocetuneError(f"not valid YAML: {exc.problem}", file=path, line=line) from None
    groups: dict[str, _Group] = {"all": _Group(), "ungrouped": _Group()}
    for name, body in _mapping(root, "the file", path).items():
        _yaml_group(body, str(name), path, groups)
    return groups


def _is_yaml(text: str, path: Path) -> bool:
    if path.suffix in (".yml", ".yaml"):
        return True
    if path.suffix in (".ini", ".cfg"):
        return False
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()[:1] not in ("", "#")), "")
    return not first.startswith("[") and re.match(r"^[A-Za-z0-9_-]+:\s*$", first) is not None


def _ancestry(groups: dict[str, _Group]) -> dict[str, int]:
    """Each group's depth below ``all`` (parents first when sorted)."""
    parents: dict[str, set[str]] = {}
    for name, group in groups.items():
        for child in group.children:
            parents.setdefault(child, set()).add(name)

    def depth(name: str, seen: frozenset[str]) -> int:
        ups = parents.get(name, set()) - seen - {"all"}
        return 1 + max((depth(p, seen | {name}) for p in ups), default=0)

    return {name: depth(name, frozenset()) for name in groups}


def _member_of(host: str, groups: dict[str, _Group]) -> set[str]:
    direct = {name for name, g in groups.items() if host in g.hosts}
    parents: dict[str, set[str]] = {}
    for name, group in groups.items():
        for child in group.children:
            parents.setdefault(child, set()).add(name)
    out, todo = set(direct), list(direct)
    while todo:
        for parent in parents.get(todo.pop(), set()):
            if parent not in out:
                out.add(parent)
                todo.append(parent)
    return out


def _device(host: str, hv: dict[str, Any], member: list[str]) -> ImportedDevice:
    dev = ImportedDevice(name=host, host=str(hv.get("ansible_host") or "") or None)
    shown = [g for g in member if g not in ("all", "ungrouped")]
    if shown:
        dev.notes.append(f"Ansible groups: {', '.join(shown)}; set role: (spine, leaf, host...)")
    if dev.host and "{{" in dev.host:
        dev.notes.append(f"ansible_host {dev.host!r} is a template: set host: by hand")
        dev.host = None
    os_name = hv.get("ansible_network_os")
    dev.platform = platform_for(str(os_name)) if os_name else None
    if os_name and dev.platform is None:
        dev.notes.append(
            f"ansible_network_os {str(os_name)!r} is not a platform rocetune reads: set"
            " platform: (sonic, cumulus, eos, nxos, linux_host) or leave the device out"
        )
    elif not os_name:
        dev.notes.append("no ansible_network_os: set platform: (a Linux host: linux_host)")
    user = hv.get("ansible_user") or hv.get("ansible_ssh_user")
    if user and "{{" not in str(user):
        dev.username = str(user)
    port = hv.get("ansible_port") or hv.get("ansible_ssh_port")
    if port is not None and str(port).isdigit():
        dev.port = int(str(port))
    return dev


def import_ansible(path: Path) -> Scaffold:
    """Read an Ansible inventory file (INI or YAML, told by suffix or content)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RocetuneError(f"cannot read the Ansible inventory: {exc}", file=path) from None
    groups = parse_yaml(text, path) if _is_yaml(text, path) else parse_ini(text, path)
    depth = _ancestry(groups)
    scaffold = Scaffold(source=f"the Ansible inventory {path.name}")
    hosts = sorted({h for g in groups.values() for h in g.hosts})
    dropped = False
    for host in hosts:
        member = sorted(_member_of(host, groups), key=lambda g: (depth[g], g))
        hv: dict[str, Any] = dict(groups["all"].vars)
        for name in member:
            hv.update(groups[name].vars)
        for name in member:
            hv.update(groups[name].hosts.get(host, {}))
        dropped = dropped or any(k in hv for k in _SECRETS)
        scaffold.add(_device(host, hv, [g for g in member if g != "all"]))
    if dropped:
        scaffold.notes.append(
            "Passwords in the Ansible inventory were not copied: set ROCETUNE_PASSWORD"
        )
    return scaffold
