"""RT9xx: perftest results of a verification (``Fabric.perftest``).

No results (no verification ran) -> the rules yield nothing: that is not missing data. A
result is attributed to its client end (``host:nic``), else its server end. Thresholds come
from ``intent.verify`` (bandwidth fraction of the slower end's line rate, latency budget); a
bidirectional client reports the sum of both directions, so its ceiling is twice the rate.
"""

from __future__ import annotations

from collections.abc import Iterator

from rocetune.checks.base import CheckContext, Issue, Missing, Result, Rule, RuleMeta
from rocetune.model import PerftestResult, Severity

CAUSES = {
    "no-device": "no RDMA device on the host (driver not loaded, rdma-core/OFED missing, or a"
    " container without /dev/infiniband)",
    "device-not-found": "the -d device does not exist on the host (check ibdev2netdev)",
    "port-down": "the RDMA port is down (link down, cable or switch port down)",
    "connect": "the server's TCP port is unreachable (server not listening, wrong address,"
    " or a firewall)",
    "socket": "the server's TCP port is unreachable (server not listening, wrong address,"
    " or a firewall)",
    "exchange": "the out-of-band/rdma_cm exchange failed (server gone, firewall, or rdma_cm"
    " cannot resolve the address)",
    "qp-modify": "the QP could not reach RTR/RTS: usually a wrong GID index (RoCE v1 or"
    " link-local GID, or an index absent on the peer) or no route between the GIDs",
    "qp-create": "the device refused the QP (unsupported connection type or a non-RoCE device)",
    "truncated": "the output ended before the results (killed, timed out or cut short)",
    "other": "see perftest's message",
}


def where(r: PerftestResult) -> tuple[str, str | None]:
    """(device, port) a result is reported on."""
    end = r.client or r.server
    if end is None:
        return r.header.device or "perftest", None
    host, _, nic = end.partition(":")
    return host, nic or None


def _name(r: PerftestResult) -> str:
    parts = [r.tool or "perftest"]
    if r.client and r.server:
        parts.append(f"{r.client} -> {r.server}")
    if r.round is not None:
        parts.append(f"round {r.round}")
    return " ".join(parts)


def _issue(r: PerftestResult, message: str, observed: object, expected: object) -> Issue:
    device, port = where(r)
    return Issue(
        message=f"{_name(r)}: {message}",
        device=device,
        port=port,
        observed=observed,
        expected=expected,
    )


def _missing(r: PerftestResult, item: str) -> Missing:
    return Missing(device=where(r)[0], item=f"{_name(r)}: {item}")


def _bidir(r: PerftestResult) -> bool:
    return r.bidirectional if r.bidirectional is not None else r.header.bidirectional


def _ok(r: PerftestResult) -> bool:
    return not r.errors and r.complete


class _VerifyRule(Rule):
    """Base: call :meth:`check` on every perftest result."""

    def run(self, ctx: CheckContext) -> Iterator[Result]:
        """Check every result of ``Fabric.perftest`` (none: verification did not run)."""
        for r in ctx.fabric.perftest:
            yield from self.check(r, ctx)

    def check(self, r: PerftestResult, ctx: CheckContext) -> Iterator[Result]:
        """Check one result."""
        return iter(())


class PerftestBandwidth(_VerifyRule):
    """RT901: bandwidth >= the intent fraction of the slower end's line rate."""

    meta = RuleMeta(
        code="RT901",
        name="perftest-bandwidth",
        severity=Severity.ERROR,
        scope="verify",
        summary="ib_write_bw average >= the intent fraction (default 90 %) of the slower"
        " end's line rate",
        tags=("verify",),
    )

    def check(self, r: PerftestResult, ctx: CheckContext) -> Iterator[Result]:
        """The best average bandwidth of a completed bandwidth test."""
        if r.kind != "bw" or not _ok(r):
            return
        averages = [row.average_gbps for row in r.bandwidth if row.average_gbps is not None]
        if r.line_rate_gbps is None:
            yield _missing(r, "line rate of the slower end")
            return
        if not averages:
            yield _missing(r, "bandwidth average")
            return
        fraction = ctx.intent.verify.min_bandwidth_fraction
        factor = 2 if _bidir(r) else 1
        want = fraction * r.line_rate_gbps * factor
        best = max(averages)
        if best < want:
            yield _issue(
                r,
                f"average bandwidth {best:g} Gb/s is {best / (r.line_rate_gbps * factor):.1%}"
                " of the line rate: check PCIe width, NUMA placement, QP count, MTU, and pause"
                " or drop counters of the round",
                f"{best:g} Gb/s",
                f">= {want:g} Gb/s ({fraction:.0%} of {r.line_rate_gbps * factor:g} Gb/s)",
            )


class PerftestLatency(_VerifyRule):
    """RT902: latency within the intent budget."""

    meta = RuleMeta(
        code="RT902",
        name="perftest-latency",
        severity=Severity.WARNING,
        scope="verify",
        summary="ib_send_lat typical/average latency <= the intent budget",
        tags=("verify",),
    )

    def check(self, r: PerftestResult, ctx: CheckContext) -> Iterator[Result]:
        """``t_avg`` (else ``t_typical``) of the smallest message size."""
        if r.kind != "lat" or not _ok(r):
            return
        if not r.latency:
            yield _missing(r, "latency table")
            return
        row = min(r.latency, key=lambda x: x.size_bytes)
        value = row.t_avg_us if row.t_avg_us is not None else row.t_typical_us
        if value is None:
            yield _missing(r, "t_avg/t_typical")
            return
        budget = ctx.intent.verify.max_latency_us
        if value > budget:
            yield _issue(
                r,
                f"latency {value:g} µs at {row.size_bytes} B is above the budget: check the hop"
                " count, pause counters and CPU frequency warnings",
                f"{value:g} us",
                f"<= {budget:g} us (intent verify.max_latency_us)",
            )


def ipv4_mapped(gid: str) -> bool:
    """A perftest GID (16 decimal or hex bytes, ``:``-separated) of the ``::ffff:a.b.c.d`` form."""
    cells = gid.split(":")
    if len(cells) != 16:
        return False
    return all(c.strip("0") == "" for c in cells[:10]) and cells[10:12] in (
        ["255", "255"],
        ["ff", "ff"],
        ["FF", "FF"],
    )


class PerftestSanity(_VerifyRule):
    """RT903: values physically possible; header MTU, link type and GID as planned."""

    meta = RuleMeta(
        code="RT903",
        name="perftest-sanity",
        severity=Severity.ERROR,
        scope="verify",
        summary="results are physically possible (no negative or above-line-rate values), MTU"
        " in the header equals the RoCE MTU, link type Ethernet, RoCE v2 GID",
        tags=("verify",),
    )

    def check(self, r: PerftestResult, ctx: CheckContext) -> Iterator[Result]:
        """Values, then the header."""
        if r.errors:
            return
        yield from self._values(r)
        yield from self._header(r, ctx)

    def _values(self, r: PerftestResult) -> Iterator[Result]:
        ceiling = None if r.line_rate_gbps is None else r.line_rate_gbps * (2 if _bidir(r) else 1)
        for row in r.bandwidth:
            for label, v in (("peak", row.peak_gbps), ("average", row.average_gbps)):
                if v is not None and (v < 0 or (ceiling is not None and v > ceiling)):
                    yield _issue(
                        r,
                        f"bandwidth {label} {v:g} Gb/s at {row.size_bytes} B is impossible:"
                        " a clock or parsing problem, not a fabric result",
                        f"{v:g} Gb/s",
                        f"0..{ceiling:g} Gb/s" if ceiling is not None else ">= 0",
                    )
        for lat in r.latency:
            values = [v for v in (lat.t_min_us, lat.t_avg_us, lat.t_max_us) if v is not None]
            bad = any(v < 0 for v in values) or (
                lat.t_min_us is not None
                and lat.t_max_us is not None
                and lat.t_min_us > lat.t_max_us
            )
            if bad:
                yield _issue(
                    r, f"latency values at {lat.size_bytes} B are impossible", values, ">= 0"
                )

    def _header(self, r: PerftestResult, ctx: CheckContext) -> Iterator[Result]:
        h = r.header
        if h.mtu is None or h.link_type is None:
            yield _missing(r, "header Mtu/Link type")
        if h.mtu is not None and h.mtu != ctx.intent.mtu.roce:
            yield _issue(
                r,
                f"the test ran with RoCE MTU {h.mtu}: the port's active MTU is lower (netdev"
                " MTU too small?) so the result does not prove the planned MTU",
                h.mtu,
                f"{ctx.intent.mtu.roce} (intent mtu.roce)",
            )
        if h.link_type is not None and h.link_type != "Ethernet":
            yield _issue(r, f"link type {h.link_type}: not RoCE", h.link_type, "Ethernet")
        bad = [g for g in (*h.local_gids, *h.remote_gids) if not ipv4_mapped(g)]
        if bad:
            yield _issue(
                r,
                "GID not IPv4-mapped: the test did not use a RoCE v2 IPv4 GID (wrong -x index)",
                bad[0],
                "00:...:255:255:a:b:c:d",
            )


class PerftestFailed(_VerifyRule):
    """RT904: a run failed; the finding quotes perftest's own error and the likely cause."""

    meta = RuleMeta(
        code="RT904",
        name="perftest-failed",
        severity=Severity.ERROR,
        scope="verify",
        summary="a run failed; the finding names the cause from perftest's own error text",
        tags=("verify",),
    )

    def check(self, r: PerftestResult, ctx: CheckContext) -> Iterator[Result]:
        """Errors, or output that ended before the results."""
        if r.errors:
            kinds = [e.kind for e in r.errors]
            kind = next((k for k in kinds if k != "other"), "other")
            text = " / ".join(dict.fromkeys(e.text for e in r.errors[:4]))
        elif not r.complete:
            kind, text = "truncated", "no complete results table"
        else:
            return
        yield _issue(r, f"failed: {text!r}; likely cause: {CAUSES[kind]}", kind, "a result")
