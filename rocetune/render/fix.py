"""``--only-fix``: which features of which devices the findings of an audit ask to change.

A finding selects the feature(s) whose rendered settings fix it (by rule code), on its
device; a link finding selects them on both ends; a fabric finding (RT306, RT705, RT706 ...)
selects them on every device it names, else on every device. RT000 (missing data), RT001,
RT002 and info findings select nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from rocetune.model import Finding, Link, Severity

_BY_CODE: dict[str, tuple[str, ...]] = {
    "RT101": ("classification",),
    "RT102": ("classification",),
    "RT103": ("classification",),
    "RT104": ("classification",),
    "RT105": ("nic",),
    "RT106": ("classification", "pfc"),
    "RT201": ("pfc",),
    "RT202": ("pfc",),
    "RT203": ("pfc",),
    "RT204": ("pfc",),
    "RT205": ("watchdog",),
    "RT206": ("watchdog",),
    "RT207": ("watchdog",),
    "RT208": ("pfc",),
    "RT301": ("ecn",),
    "RT302": ("ecn",),
    "RT303": ("ecn",),
    "RT304": ("ecn",),
    "RT305": ("ecn", "buffers"),
    "RT306": ("ecn",),
    "RT311": ("nic",),
    "RT312": ("nic",),
    "RT313": ("classification", "nic"),
    "RT314": ("nic",),
    "RT316": ("nic",),
    "RT401": ("scheduling",),
    "RT403": ("scheduling",),
    "RT501": ("buffers",),
    "RT502": ("buffers",),
    "RT503": ("buffers", "nic"),
    "RT504": ("buffers",),
    "RT505": ("buffers",),
    "RT506": ("nic",),
    "RT601": ("link",),
    "RT602": ("nic",),
    "RT603": ("nic",),
    "RT701": ("pfc",),
    "RT702": ("classification",),
    "RT703": ("link",),
    "RT705": ("classification", "pfc", "watchdog", "nic"),
    "RT706": ("ecn",),
    "RT707": ("classification", "pfc", "ecn"),
}
"""Rule code -> the features that fix it (codes not listed select nothing)."""


def _devices(finding: Finding, links: dict[str, Link], every: Iterable[str]) -> set[str]:
    if finding.device:
        return {finding.device}
    link = links.get(finding.link or "")
    if link is not None:
        return {link.a.device, link.b.device}
    return set(every)


def features_to_fix(
    findings: Iterable[Finding], links: Iterable[Link], devices: Iterable[str]
) -> dict[str, frozenset[str]]:
    """Device -> the features to render so the warning and error findings go away."""
    by_label = {lk.label: lk for lk in links}
    every = tuple(devices)
    out: dict[str, set[str]] = {}
    for f in findings:
        wanted = _BY_CODE.get(f.code)
        if not wanted or f.severity == Severity.INFO:
            continue
        for dev in _devices(f, by_label, every):
            out.setdefault(dev, set()).update(wanted)
    return {dev: frozenset(feats) for dev, feats in out.items()}
