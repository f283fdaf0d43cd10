"""RT205-RT207: the PFC watchdog (roce-knowledge.md §2.1, §2.3, §2.4, §3.6; R-SW-23..25).

The watchdog is the only thing that breaks a PFC pause storm or a deadlock: it notices a queue
that has been paused for longer than the detection time and then drops (or forwards) its
traffic until the pauses stop for the restoration time.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pydantic import Field

from rocetune.checks._chain import fmt_ports, options_of
from rocetune.checks.base import (
    CheckContext,
    DeviceRule,
    Issue,
    Missing,
    PortRule,
    Result,
    RuleMeta,
    RuleOptions,
    fmt_set,
    port_path,
)
from rocetune.checks.helpers import missing, missing_pfc, pfc_priorities
from rocetune.model import Device, Port, Severity, Watchdog, WatchdogLimits


class PfcWatchdogOn(PortRule):
    """RT205: the PFC watchdog is on for every PFC-enabled priority of a switch port."""

    meta = RuleMeta(
        code="RT205",
        name="pfc-watchdog-on",
        severity=Severity.ERROR,
        scope="port",
        summary="PFC watchdog enabled on every PFC-enabled switch port/queue",
        tags=("pfc", "watchdog"),
        features=(
            "watchdog",
            "pfc",
        ),
        asserts_absence=True,
    )

    def check_port(self, dev: Device, port: Port, ctx: CheckContext) -> Iterable[Result]:
        """Check one switch port that has PFC on."""
        enabled = pfc_priorities(port)
        if enabled is None:
            yield from missing_pfc(dev.name, port)
            return
        if not enabled:
            return
        wd = port.watchdog
        if wd is None:
            yield missing(dev.name, port, "watchdog", "PFC watchdog state")
            return
        watched = set(enabled) if wd.priorities is None else set(wd.priorities)
        unwatched = set(enabled) - watched if wd.enabled else set(enabled)
        if not unwatched:
            return
        state = "off" if not wd.enabled else f"on only for priorities {fmt_set(watched)}"
        why = ""
        if wd.runtime_default:
            why = (
                " (no per-port watchdog setting in this configuration, which is not the running"
                " one: the platform's load-time default applies, and it leaves the watchdog off)"
            )
        elif not wd.enabled and dev.config_source == "running":
            why = " (the running configuration has no watchdog entry for this port)"
        tunnel = set(dev.tunnel_lossless_priorities or ()) & unwatched
        note = (
            f"; {fmt_set(tunnel)} are the dual-ToR tunnel priorities, which SONiC's qos template"
            " leaves out of pfcwd_sw_enable"
            if tunnel
            else ""
        )
        yield Issue(
            message=(
                f"PFC is on priorities {fmt_set(enabled)} but the PFC watchdog is {state}{why},"
                f" so a pause storm or deadlock on priorities {fmt_set(unwatched)} stalls the "
                f"lossless class with nothing to break it{note}"
            ),
            device=dev.name,
            port=port.name,
            observed=f"watchdog {state}" + (" (runtime default)" if wd.runtime_default else ""),
            expected=f"watchdog on for the PFC priorities {fmt_set(enabled)}",
            path=port_path(port, "watchdog"),
            severity=Severity.WARNING if tunnel == unwatched else None,
        )


TimerLimits = WatchdogLimits
"""Valid watchdog timers of one platform (the model type; overridable in RT206's options)."""


class WatchdogTimersOptions(RuleOptions):
    """Options of RT206: timer limits keyed by ``Device.platform``, overriding the limits the
    platform declares (``Device.watchdog_limits``, set when the device is parsed)."""

    platforms: dict[str, TimerLimits] = Field(default_factory=dict)
    generic: TimerLimits = TimerLimits(
        poll_bounds_restoration=False, source="generic sanity (platform limits unknown)"
    )
    """Used for devices whose platform declares no limits: only poll <= detection."""


def _enabled(dev: Device) -> tuple[list[tuple[Port, Watchdog]], Missing | None]:
    """Ports whose watchdog is on, and a note when no port's watchdog state is known."""
    on = [(p, p.watchdog) for p in dev.ports.values() if p.watchdog and p.watchdog.enabled]
    unknown = [p for p in dev.ports.values() if p.watchdog is None]
    note = None
    if not on and unknown:
        note = missing(dev.name, unknown[0], "watchdog", "PFC watchdog state")
    return on, note


def _groups(on: list[tuple[Port, Watchdog]], attr: str) -> dict[object, list[Port]]:
    groups: dict[object, list[Port]] = {}
    for port, wd in on:
        groups.setdefault(getattr(wd, attr), []).append(port)
    return groups


class PfcWatchdogTimers(DeviceRule):
    """RT206: watchdog timers inside the platform's ranges and consistent with each other."""

    meta = RuleMeta(
        code="RT206",
        name="pfc-watchdog-timers",
        severity=Severity.ERROR,
        scope="device",
        summary="watchdog detection/restoration/poll timers inside the platform's valid ranges "
        "and consistent with each other",
        tags=("pfc", "watchdog"),
        features=("watchdog",),
    )
    options_model = WatchdogTimersOptions

    def check_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """Check the poll interval once and each distinct detection/restoration time."""
        if dev.kind != "switch":
            return
        on, note = _enabled(dev)
        if note is not None:
            yield note
        if not on:
            return
        opts = options_of(ctx, WatchdogTimersOptions)
        limits = opts.platforms.get(dev.platform) or dev.watchdog_limits or opts.generic
        poll = dev.watchdog_poll_ms
        yield from _check_poll(dev, poll, limits)
        for value, ports in _groups(on, "detection_ms").items():
            yield from _check_timer(dev, "detection", value, ports, limits=limits, poll=poll)
        if limits.restoration_ms is not None or limits.poll_bounds_restoration:
            for value, ports in _groups(on, "restoration_ms").items():
                yield from _check_timer(dev, "restoration", value, ports, limits=limits, poll=poll)


@dataclass(frozen=True)
class _Timer:
    """One timer value under check and where it is set."""

    dev: Device
    what: str
    value: float
    where: str
    path: str
    limits: TimerLimits


def _range_issue(t: _Timer, rng: tuple[float, float]) -> Issue:
    src = t.limits.source
    return Issue(
        message=(
            f"PFC watchdog {t.what} {t.value:g} ms{t.where} is outside the {t.dev.platform} "
            f"range {rng[0]:g}-{rng[1]:g} ms ({src}), so the platform rejects the setting or "
            "the watchdog does not run as planned"
        ),
        device=t.dev.name,
        observed=f"{t.what} {t.value:g} ms",
        expected=f"{rng[0]:g}-{rng[1]:g} ms ({src})",
        path=t.path,
    )


def _check_poll(dev: Device, poll: float | None, limits: TimerLimits) -> Iterator[Result]:
    if poll is None:
        yield Missing(dev.name, "PFC watchdog poll interval not in snapshot", "watchdog_poll_ms")
    elif limits.poll_ms is not None and not limits.poll_ms[0] <= poll <= limits.poll_ms[1]:
        timer = _Timer(dev, "poll interval", poll, "", "watchdog_poll_ms", limits)
        yield _range_issue(timer, limits.poll_ms)


def _check_timer(
    dev: Device,
    what: str,
    value: object,
    ports: list[Port],
    *,
    limits: TimerLimits,
    poll: float | None,
) -> Iterator[Result]:
    path = port_path(ports[0], f"watchdog.{what}_ms")
    if not isinstance(value, int | float):
        yield Missing(dev.name, f"{ports[0].name}: PFC watchdog {what} time not in snapshot", path)
        return
    t = _Timer(
        dev, f"{what} time", value, f" on {fmt_ports([p.name for p in ports])}", path, limits
    )
    rng: tuple[float, float] | None = getattr(limits, f"{what}_ms")
    if rng is not None and not rng[0] <= value <= rng[1]:
        yield _range_issue(t, rng)
    if poll is None:
        return
    if poll > limits.poll_max_fraction * value:
        frac = "" if limits.poll_max_fraction == 1 else f"{limits.poll_max_fraction:g} x "
        yield Issue(
            message=(
                f"PFC watchdog poll interval {poll:g} ms is longer than {frac}the {t.what} "
                f"{value:g} ms{t.where}, so a storm cannot be detected or cleared within that time"
            ),
            device=dev.name,
            observed=f"poll {poll:g} ms, {t.what} {value:g} ms",
            expected=f"poll <= {frac}{t.what} ({limits.source or dev.platform})",
            path=path,
        )
    if what == "detection" and limits.detection_multiple_of_poll:
        yield from _check_multiple(t, poll)


def _check_multiple(t: _Timer, poll: float) -> Iterator[Result]:
    robustness = t.value / poll if poll > 0 else 0.0
    if robustness >= 1 and abs(robustness - round(robustness)) < 1e-6:
        return
    yield Issue(
        message=(
            f"PFC watchdog detection time {t.value:g} ms{t.where} is not a whole multiple of "
            f"the poll interval {poll:g} ms, but {t.dev.platform} detects a storm after "
            "polling-interval x robustness, so the configured time cannot be what runs"
        ),
        device=t.dev.name,
        observed=f"detection {t.value:g} ms, poll {poll:g} ms",
        expected=f"detection = poll x robustness, robustness an integer >= 1 ({t.limits.source})",
        path=t.path,
    )


_WHY = {
    "drop": "drop discards the stalled queue's packets so the pauses stop spreading",
    "forward": "forward ignores the pauses and keeps transmitting the stalled queue",
    "alert": "alert only reports the storm and leaves the queue stalled",
}


class PfcWatchdogAction(DeviceRule):
    """RT207: the watchdog action is the intent's (default drop)."""

    meta = RuleMeta(
        code="RT207",
        name="pfc-watchdog-action",
        severity=Severity.WARNING,
        scope="device",
        summary="watchdog action is drop",
        tags=("pfc", "watchdog"),
        features=("watchdog",),
    )

    def check_device(self, dev: Device, ctx: CheckContext) -> Iterable[Result]:
        """Compare each distinct watchdog action of the device with the intent."""
        if dev.kind != "switch":
            return
        on, note = _enabled(dev)
        if note is not None:
            yield note
        want = ctx.intent.pfc_watchdog.action
        for action, ports in _groups(on, "action").items():
            path = port_path(ports[0], "watchdog.action")
            if not isinstance(action, str):
                item = f"{ports[0].name}: PFC watchdog action not in snapshot"
                yield Missing(dev.name, item, path)
            elif action.lower() != want:
                yield Issue(
                    message=(
                        f"PFC watchdog action is {action} on {fmt_ports([p.name for p in ports])}"
                        f" but the intent is {want}: {_WHY.get(want, want)}, while "
                        f"{_WHY.get(action.lower(), action)}"
                    ),
                    device=dev.name,
                    observed=f"action {action}",
                    expected=f"action {want} (intent pfc_watchdog.action)",
                    path=path,
                )
