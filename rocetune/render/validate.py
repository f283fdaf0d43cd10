"""Refuse unsafe values before rendering: nothing from a snapshot becomes two commands.

Every string in a render context is checked. Names (interfaces, profiles, hosts) must be
plain tokens: letters, digits and ``_ . / : , @ + | -`` only (``|`` joins SONiC keys;
:mod:`rocetune.render.core` checks interface names more strictly), no spaces, no control
characters, no shell or CLI separators (``;``, ``&``, ``$``, backquote, quotes), no template
syntax (``{{``, ``{%``, ``{#``). Free text (reasons, which become comments) may contain
spaces and punctuation but no control characters and no template syntax. Keys of mappings
are checked as names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rocetune.errors import RocetuneError

NAME_RE = re.compile(r"^[A-Za-z0-9_/][A-Za-z0-9_./:,@+|-]{0,127}$")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\u0085]")
_TEMPLATE_MARKS = ("{{", "{%", "{#", "}}", "%}", "#}")
_SAFE_NAME = re.compile(r"[A-Za-z0-9_/][A-Za-z0-9_./:,@+|-]{0,127}")
"""A name :func:`problem_of_name` accepts, as one full match: its characters are neither
control characters nor template marks, and no ``$`` lets a trailing newline through."""
_UNSAFE_TEXT = re.compile(
    "|".join((_CONTROL_RE.pattern, *(re.escape(mark) for mark in _TEMPLATE_MARKS)))
)
"""Anything :func:`problem_of_text` refuses (a control character or a template mark)."""
TEXT_KEYS = frozenset({"reason", "reasons", "device_reasons", "comment", "comments", "why"})
"""Context keys whose string values are free text (comments), not names."""


class UnsafeValueError(RocetuneError):
    """A value that would change the meaning of the rendered config."""


def problem_of_text(value: str) -> str | None:
    """Why ``value`` is not safe as comment text, or None."""
    if _UNSAFE_TEXT.search(value) is None:  # one scan; the reason is looked for only then
        return None
    if _CONTROL_RE.search(value):
        return "contains a control character (newline, tab, ...)"
    if any(mark in value for mark in _TEMPLATE_MARKS):
        return "contains template syntax ({{, {%, {#)"
    return None


def problem_of_name(value: str) -> str | None:
    """Why ``value`` is not safe as a name/token, or None."""
    if _SAFE_NAME.fullmatch(value):
        return None
    text = problem_of_text(value)
    if text is not None:
        return text
    if not value:
        return "is empty"
    if not NAME_RE.match(value):
        bad = sorted({ch for ch in value if not re.match(r"[A-Za-z0-9_./:,@+|-]", ch)})
        shown = " ".join(repr(ch) for ch in bad) or "a leading punctuation character"
        return f"contains characters not allowed in a name: {shown}"
    return None


def check_name(value: str, what: str, device: str | None = None) -> str:
    """Return ``value`` or raise UnsafeValueError naming the device and the value."""
    why = problem_of_name(value)
    if why is not None:
        where = f"{device}: " if device else ""
        msg = f"{where}refusing to render: {what} {value!r} {why}"
        raise UnsafeValueError(msg)
    return value


def check_context(value: Any, device: str, path: str = "", *, text: bool = False) -> None:
    """Walk a render context and raise UnsafeValueError at the first unsafe string.

    The walk names no path until it finds a problem (a device's context holds some ten
    thousand strings, all safe as a rule); then :func:`_raise_first` walks again, naming
    them, to say where."""
    if not _is_safe(value, text):
        _raise_first(value, device, path, text=text)


def _is_safe(value: Any, text: bool) -> bool:
    """Whether :func:`_raise_first` would find nothing to refuse in ``value``: a name is safe
    when it is one full match of ``_SAFE_NAME``, a text when ``_UNSAFE_TEXT`` finds nothing
    in it (what :func:`problem_of_name` and :func:`problem_of_text` say None to). Plain
    dicts and lists, the usual containers, are known by their type first (an ABC's
    ``isinstance`` is slower)."""
    if isinstance(value, str):
        if text:
            return _UNSAFE_TEXT.search(value) is None
        return _SAFE_NAME.fullmatch(value) is not None
    kind = type(value)
    if kind is dict:
        return _items_safe(value, text)
    if kind is list or kind is tuple:
        return all(_is_safe(child, text) for child in value)
    if isinstance(value, Mapping):
        return _items_safe(value, text)
    if isinstance(value, list | tuple | set | frozenset):
        return all(_is_safe(child, text) for child in value)
    return value is None or isinstance(value, bool | int | float)


def _items_safe(value: Mapping[Any, Any], text: bool) -> bool:
    """:func:`_is_safe` of a mapping: its string keys are names, its values are texts under
    a :data:`TEXT_KEYS` key."""
    for key, child in value.items():
        if isinstance(key, str) and _SAFE_NAME.fullmatch(key) is None:
            return False
        if not _is_safe(child, text or key in TEXT_KEYS):
            return False
    return True


def _raise_first(value: Any, device: str, path: str = "", *, text: bool = False) -> None:
    """Walk ``value`` naming each place, and raise UnsafeValueError at the first unsafe one."""
    if isinstance(value, str):
        why = problem_of_text(value) if text else problem_of_name(value)
        if why is not None:
            msg = f"{device}: refusing to render: {path or 'value'} = {value!r} {why}"
            raise UnsafeValueError(msg)
    elif isinstance(value, Mapping):
        for key, child in value.items():
            if isinstance(key, str):
                _raise_first(key, device, f"{path}[key]")
            name = f"{path}.{key}" if path else str(key)
            _raise_first(child, device, name, text=text or key in TEXT_KEYS)
    elif isinstance(value, list | tuple | set | frozenset):
        for i, child in enumerate(value):
            _raise_first(child, device, f"{path}[{i}]", text=text)
    elif value is None or isinstance(value, bool | int | float):
        return
    else:
        msg = f"{device}: refusing to render: {path} has unsupported type {type(value).__name__}"
        raise UnsafeValueError(msg)
