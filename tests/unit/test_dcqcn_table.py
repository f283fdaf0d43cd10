"""The DCQCN range/default table of rocetune.tune.dcqcn (roce-knowledge.md §2.8)."""

from __future__ import annotations

from rocetune.tune.dcqcn import BY_NAME, DCQCN_PARAMS, UPSTREAM_NAMES, in_range


def test_documented_defaults_and_ranges() -> None:
    got = {p.name: (p.low, p.high, p.default) for p in DCQCN_PARAMS}
    assert got == {
        "dce_tcp_g": (0, 1023, 1019),
        "dce_tcp_rtt": (1, 131071, 1),
        "initial_alpha_value": (1, 1023, 1023),
        "rate_to_set_on_first_cnp": (0, None, 0),
        "rpg_min_dec_fac": (0, 100, 50),
        "rpg_min_rate": (1, None, 1),
        "rpg_gd": (10, 11, 11),
        "rate_reduce_monitor_period": (1, 2**32 - 1, 4),
    }
    for param in DCQCN_PARAMS:
        assert in_range(param, param.default, 25_000) is True


def test_line_rate_bound() -> None:
    rate = BY_NAME["rpg_min_rate"]
    assert in_range(rate, 25_000, 25_000) is True
    assert in_range(rate, 25_001, 25_000) is False
    assert in_range(rate, 0, None) is False
    assert in_range(rate, 1, None) is True
    assert in_range(rate, 2, None) is None
    assert rate.range_text() == "1..line rate Mb/s"
    assert BY_NAME["dce_tcp_rtt"].range_text() == "1-131071 us"


def test_upstream_debugfs_names() -> None:
    assert UPSTREAM_NAMES["rp_gd"] == "rpg_gd"
    assert UPSTREAM_NAMES["rp_dce_tcp_g"] == "dce_tcp_g"
    assert UPSTREAM_NAMES["rp_min_dec_fac"] == "rpg_min_dec_fac"
    assert len(UPSTREAM_NAMES) == len(DCQCN_PARAMS)
