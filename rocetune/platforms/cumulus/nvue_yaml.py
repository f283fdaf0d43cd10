"""Read ``nv config show -o yaml`` into a :class:`~.tree.ConfigTree` (the raw vendor shape).

Shape (confirmed in public NVUE exports, e.g. ``nv config show -o yaml > switch.yaml`` in
NVIDIA example repositories and NVOS/HBN test fixtures; see the package docstring)::

    - header:
        model: vx
        nvue-api-version: nvue_v1
        rev-id: 1.0
        version: Cumulus Linux 5.15.0
    - set:
        interface:
          swp2,6: {...}          # keys may be ranges or lists of interfaces
        qos: {...}
        system: {hostname: leaf01}

The document is a list of single-key revision items; every ``set`` item is merged in order
and an ``unset`` item removes the keys it names. A plain mapping (the ``set`` content on its
own, or ``{"header": ..., "set": ...}``) is accepted too. JSON is valid YAML, so the same
reader takes ``nv config show -o json``. Invalid YAML raises ParseError with the line;
anything readable but of the wrong shape becomes an Unparsed item.

The text is read with libyaml (:mod:`rocetune.yamlc`: same values and key lines as ruamel,
about 30x faster); a document it leaves aside (libyaml missing, tags, merge keys, duplicate
keys, any syntax error) is read with ruamel as before, so errors keep ruamel's wording.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rocetune import yamlc
from rocetune.errors import ParseError
from rocetune.platforms.cumulus.nvue_stream import Budget, apply_unset, load_events, plain_scalar
from rocetune.platforms.cumulus.nvue_stream import key_name as _key
from rocetune.platforms.cumulus.tree import ConfigTree, Issues, KeyPath, deep_merge

if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.error import YAMLError

_REVISION_KEYS = frozenset({"header", "set", "unset"})


def load_yaml(text: str, file: str, issues: Issues) -> ConfigTree:
    """Parse NVUE YAML text; raise ParseError (file, line) when it is not valid YAML."""
    body = text.lstrip("\ufeff")
    try:
        tree = load_events(body, file, issues)
        return tree if tree is not None else _load_fast(body, file, issues)
    except yamlc.Unusual:
        pass
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.error import YAMLError

    try:
        document = YAML(typ="rt").load(body)
    except YAMLError as exc:
        line, column = _error_position(exc, body)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ParseError(f"invalid YAML: {problem}", file=file, line=line, column=column) from exc
    tree = ConfigTree()
    if document is None:
        return tree
    budget = Budget(body, file)
    if isinstance(document, CommentedSeq):
        _read_revisions(document, tree, issues, budget)
    elif isinstance(document, CommentedMap):
        if _REVISION_KEYS & {str(k) for k in document} and isinstance(document.get("set"), dict):
            _read_item(document, 1, tree, issues, budget)
        else:
            _apply_set(document, tree, budget)
    else:
        issues.add("(document)", "NVUE YAML must be a list of revision items", 1)
    return tree


def _load_fast(body: str, file: str, issues: Issues) -> ConfigTree:
    """:func:`load_yaml` on libyaml's node graph (raise yamlc.Unusual to use ruamel)."""
    document = yamlc.compose(body)
    tree = ConfigTree()
    if document is None:
        return tree
    budget = Budget(body, file)
    if document.tag == yamlc.SEQ:
        for index, item in enumerate(document.value):
            line = item.start_mark.line + 1
            if item.tag != yamlc.MAP:
                issues.add(f"[{index}]", "revision item is not a mapping", line)
                continue
            _read_item_node(item, line, tree, issues, budget)
    elif document.tag == yamlc.MAP:
        entries = {key: value for key, _, value in yamlc.pairs(document)}
        if _REVISION_KEYS & {_key(k) for k in entries} and _is_map(entries.get("set")):
            _read_item_node(document, 1, tree, issues, budget)
        else:
            _apply_set_node(document, tree, budget)
    else:
        yamlc.scalar(document)  # an explicit tag: ruamel's reading (or error)
        issues.add("(document)", "NVUE YAML must be a list of revision items", 1)
    return tree


def _is_map(node: Any) -> bool:
    return node is not None and node.tag == yamlc.MAP


def _read_item_node(
    item: Any, line: int | None, tree: ConfigTree, issues: Issues, budget: Budget
) -> None:
    for key, key_node, value in yamlc.pairs(item):
        name = _key(key)
        key_line = key_node.start_mark.line + 1
        if name == "header" and _is_map(value):
            tree.header.update({_key(k): _header_value(v) for k, _, v in yamlc.pairs(value)})
        elif name == "set" and _is_map(value):
            _apply_set_node(value, tree, budget)
        elif name == "set" and value.tag != yamlc.SEQ and yamlc.scalar(value) is None:
            continue
        elif name == "unset" and _is_map(value):
            apply_unset(_plain_node(value, (), {}, budget), tree.root)
        else:
            issues.add(name, "unknown NVUE revision item or wrong type", key_line)


def _header_value(node: Any) -> str:
    if node.tag in (yamlc.MAP, yamlc.SEQ):
        raise yamlc.Unusual("nested header value")
    return str(yamlc.scalar(node))


def _apply_set_node(node: Any, tree: ConfigTree, budget: Budget) -> None:
    lines: dict[KeyPath, int] = {}
    value = _plain_node(node, (), lines, budget)
    if isinstance(value, dict):
        deep_merge(tree.root, value)
    tree.lines.update(lines)


def _plain_node(node: Any, path: KeyPath, lines: dict[KeyPath, int], budget: Budget) -> Any:
    """:func:`_plain` on a libyaml node: plain values, the line of every key recorded."""
    budget.spend(node)
    tag = node.tag
    if tag == yamlc.MAP:
        out: dict[str, Any] = {}
        for key, key_node, value in yamlc.pairs(node):
            name = _key(key)
            child = (*path, name)
            lines[child] = key_node.start_mark.line + 1
            out[name] = _plain_node(value, child, lines, budget)
        if budget.release:
            node.value = ()
        return out
    if tag == yamlc.SEQ:
        items = [
            _plain_node(value, (*path, str(i)), lines, budget) for i, value in enumerate(node.value)
        ]
        if budget.release:
            node.value = ()
        return items
    return plain_scalar(yamlc.scalar(node))


def _error_position(exc: YAMLError, text: str) -> tuple[int, int | None]:
    """Line and column of a YAML error: its mark, else (reader errors such as a NUL
    character carry no mark) its character position, else line 1."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None:
        return mark.line + 1, mark.column + 1
    position = getattr(exc, "position", None)
    if isinstance(position, int) and 0 <= position <= len(text):
        start = text.rfind("\n", 0, position) + 1
        return text.count("\n", 0, position) + 1, position - start + 1
    return 1, None


def _read_revisions(items: CommentedSeq, tree: ConfigTree, issues: Issues, budget: Budget) -> None:
    from ruamel.yaml.comments import CommentedMap

    for index, item in enumerate(items):
        line = _item_line(items, index)
        if not isinstance(item, CommentedMap):
            issues.add(f"[{index}]", "revision item is not a mapping", line)
            continue
        _read_item(item, line, tree, issues, budget)


def _read_item(
    item: CommentedMap, line: int | None, tree: ConfigTree, issues: Issues, budget: Budget
) -> None:
    from ruamel.yaml.comments import CommentedMap

    for key, value in item.items():
        name = _key(key)
        key_line = _key_line(item, key) or line
        if name == "header" and isinstance(value, dict):
            tree.header.update({_key(k): str(v) for k, v in value.items()})
        elif name == "set" and isinstance(value, CommentedMap):
            _apply_set(value, tree, budget)
        elif name == "set" and value is None:
            continue
        elif name == "unset" and isinstance(value, CommentedMap):
            apply_unset(_plain(value, (), {}, budget), tree.root)
        else:
            issues.add(name, "unknown NVUE revision item or wrong type", key_line)


def _apply_set(node: CommentedMap, tree: ConfigTree, budget: Budget) -> None:
    lines: dict[KeyPath, int] = {}
    value = _plain(node, (), lines, budget)
    if isinstance(value, dict):
        deep_merge(tree.root, value)
    tree.lines.update(lines)


def _plain(node: Any, path: KeyPath, lines: dict[KeyPath, int], budget: Budget) -> Any:
    """Convert a ruamel node to plain Python values, recording the line of every key."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    budget.spend(node)
    if isinstance(node, CommentedMap):
        out: dict[str, Any] = {}
        for key, value in node.items():
            name = _key(key)
            child = (*path, name)
            line = _key_line(node, key)
            if line is not None:
                lines[child] = line
            out[name] = _plain(value, child, lines, budget)
        return out
    if isinstance(node, CommentedSeq):
        return [_plain(value, (*path, str(i)), lines, budget) for i, value in enumerate(node)]
    return plain_scalar(node)


def _key_line(node: CommentedMap, key: Any) -> int | None:
    try:
        return int(node.lc.key(key)[0]) + 1
    except (AttributeError, KeyError, TypeError, IndexError):
        return None


def _item_line(node: CommentedSeq, index: int) -> int | None:
    try:
        return int(node.lc.item(index)[0]) + 1
    except (AttributeError, KeyError, TypeError, IndexError):
        return None
