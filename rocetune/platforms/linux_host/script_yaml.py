"""The shell strings of an Ansible playbook or a cloud-init file, with their lines.

Read keys: Ansible ``shell``/``command``/``raw`` (also ``ansible.builtin.*``/
``ansible.legacy.*``, the string form and the ``cmd:``/``argv:`` forms) and cloud-init
``runcmd``/``bootcmd`` (strings, or argument lists). Each string is returned as a script with
the line its text starts on, so RT001 points at the YAML line. A task's literal ``loop:`` /
``with_items:`` list is followed (``{{ item }}``); other ``{{ ... }}`` Jinja expressions are
variables rocetune does not read (unknown, RT001 where they matter).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import Any

from rocetune.platforms.linux_host.script_words import Env

_SHELL_KEYS = {
    f"{prefix}{name}"
    for prefix in ("", "ansible.builtin.", "ansible.legacy.")
    for name in ("shell", "command", "raw")
}
_CLOUD_KEYS = {"runcmd", "bootcmd"}
_JINJA = re.compile(r"\{\{\s*([A-Za-z_][\w.]*)\s*(?:\|[^}]*)?\}\}")
_YAMLISH = re.compile(r"(?m)^(?:---\s*$|#cloud-config|\s*-\s+(?:name|hosts):|\s*(?:runcmd|tasks):)")
_HOST_WORDS = re.compile(r"mlnx_qos|cma_roce_|/sys/class/(?:net|infiniband)/|mlxconfig|rdma_cm")

Chunk = tuple[str, int, Env]


def looks_like_yaml(text: str) -> bool:
    """A playbook or cloud-init file that runs host NIC commands (for detection)."""
    if not _YAMLISH.search(text[:4000]) or not _HOST_WORDS.search(text):
        return False
    chunks = yaml_scripts(text) or []
    return any(_HOST_WORDS.search(c[0]) for c in chunks)


def yaml_scripts(text: str) -> list[Chunk] | None:
    """The shell strings of a playbook / cloud-init file; None when ``text`` is not one."""
    if not _YAMLISH.search(text[:4000]):
        return None
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data = YAML(typ="rt").load(text)
    except (YAMLError, ValueError):
        return None
    if not isinstance(data, (list, dict)):
        return None
    lines = text.splitlines()
    return list(_walk(data, lines, None))


def _walk(node: Any, lines: list[str], loop: list[str] | None) -> Iterator[Chunk]:
    if isinstance(node, dict):
        items = node.get("loop", node.get("with_items"))
        here = (
            [str(i) for i in items]
            if isinstance(items, list) and all(isinstance(i, (str, int)) for i in items)
            else None
        )
        for key, value in node.items():
            if key in _SHELL_KEYS or key in _CLOUD_KEYS:
                yield from _commands(node, key, value, lines, here)
            else:
                yield from _walk(value, lines, loop)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item, lines, loop)


def _commands(
    parent: Any, key: str, value: Any, lines: list[str], loop: list[str] | None
) -> Iterator[Chunk]:
    line = _line(parent, key, lines)
    if key in _CLOUD_KEYS and isinstance(value, list):
        for index, item in enumerate(value):
            at = value.lc.item(index)[0] + 1 if hasattr(value, "lc") else line
            argv = shlex.join(str(a) for a in item) if isinstance(item, list) else str(item)
            yield _chunk(argv, at, None)
        return
    command: Any = value
    if isinstance(value, dict):
        command = value.get("cmd")
        if command is None and isinstance(value.get("argv"), list):
            command = shlex.join(str(a) for a in value["argv"])
    if not isinstance(command, str):
        return
    items: list[str | None] = list(loop) if loop else [None]
    for one in items:
        yield _chunk(command, line, one)


def _line(parent: Any, key: str, lines: list[str]) -> int:
    """1-based line where the value of ``key`` starts (a block scalar starts on the next)."""
    if not hasattr(parent, "lc"):
        return 1
    row = int(parent.lc.value(key)[0])
    text = lines[row] if row < len(lines) else ""
    return row + 2 if re.search(r"[|>][-+0-9]*\s*$", text) else row + 1


def _chunk(text: str, line: int, item: str | None) -> Chunk:
    env = Env()
    names: set[str] = set()

    def var(match: re.Match[str]) -> str:
        name = "__jinja_" + match.group(1).replace(".", "_")
        names.add(match.group(1))
        return "${" + name + "}"

    script = _JINJA.sub(var, text)
    for name in names:
        key = "__jinja_" + name.replace(".", "_")
        if name == "item" and item is not None:
            env.vars[key] = item
        else:
            env.unknown(key, f"Ansible/Jinja variable {{{{ {name} }}}} is not read")
    return script, line, env
