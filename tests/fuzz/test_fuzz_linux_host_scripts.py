"""Robustness of the host setup-script reader: real scripts mutated, and generated shell.

Originals: ``tests/corpus/host/scripts`` and the scripts of the script tests. Every example
must parse (odd shell is RT001, never an exception), sniffing never raises, and the reader
never runs anything (it has no way to: it only reads text).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rocetune.platforms.linux_host import PLATFORM
from rocetune.platforms.linux_host.commands import SCRIPT
from tests.fuzz.mutations import FUZZ_SETTINGS, check_parse, mutated
from tests.fuzz.snapshots import check_sniff, read
from tests.paths import CORPUS

DRIVER = PLATFORM
SCRIPTS = [read(p) for p in sorted((CORPUS / "host" / "scripts").iterdir())]
FRAGMENTS = [
    "IF=eth0",
    "for IF in eth0 eth1; do",
    "for d in $(ls /sys/class/infiniband); do",
    "done",
    "if [ -e /x ]; then",
    "else",
    "fi",
    'case "$1" in start)',
    ";;",
    "esac",
    "f() {",
    "}",
    "f eth2",
    "mlnx_qos -i $IF --trust dscp --pfc 0,0,0,1,0,0,0,0",
    'mlnx_qos -i "${IF}" --dscp2prio set,26,3 --tsa ets,ets,ets,ets,ets,ets,strict,strict',
    "cma_roce_tos -d mlx5_0 -t $((26 << 2))",
    "echo 1 | sudo tee /sys/class/net/$IF/ecn/roce_np/enable/3",
    "echo 48 > /sys/class/net/${IF:-eth0}/ecn/roce_np/cnp_dscp",
    "sudo bash <<EOF",
    "cat <<'X' > /tmp/s.sh",
    "EOF",
    "X",
    "bash /tmp/s.sh eth3",
    "mlxconfig -d mlx5_0 -y set CNP_DSCP_P1=48",
    "ip link set dev $IF mtu 9000 && ethtool -A $IF rx off tx off",
    "sh -c 'echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class'",
    "while read x; do",
    '"unterminated',
    "$(",
    "`",
    "\\",
    "{0..7}",
    "- name: x\n  shell: mlnx_qos -i {{ item }} --trust dscp\n  loop: [a, b]",
]


@FUZZ_SETTINGS
@given(mutated(SCRIPTS))
def test_real_scripts_mutated(text: str) -> None:
    check_sniff(DRIVER, SCRIPT, text)
    check_parse(DRIVER, SCRIPT, text)


@FUZZ_SETTINGS
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=30))
def test_generated_shell(lines: list[str]) -> None:
    text = "#!/bin/bash\n" + "\n".join(lines) + "\n"
    check_sniff(DRIVER, SCRIPT, text)
    check_parse(DRIVER, SCRIPT, text)
