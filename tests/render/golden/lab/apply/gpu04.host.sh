#!/usr/bin/env bash
# rocetune: intended RoCE settings of gpu04 (Linux host, NVIDIA ConnectX)
# DSCP map = 26->3, 48->6, others->0: intent.roce_dscp -> intent.lossless_priorities, intent.cnp.dscp -> intent.cnp.priority, every other DSCP -> the default lossy priority 0
# PFC priorities = 3: intent.lossless_priorities (PFC rx and tx, own ingress PG and egress queue each)
# CNP class = DSCP 48 -> priority 6, strict: intent.cnp; strict so CNPs overtake the data they throttle (RT403)
# ETS weights = TC0 50 %, TC3 50 %: lossless TCs share intent.lossless_min_bandwidth_pct 50 % equally, TC0 takes the rest, CNP TC6 strict (no weight)
# PFC watchdog = detection 200 ms, restoration 200 ms, action drop, poll 100 ms: intent.pfc_watchdog; poll = min(100 ms, detection, restoration)
set -euo pipefail

ROLLBACK="${ROCETUNE_ROLLBACK:-/var/tmp/rocetune-rollback-gpu04.txt}"
rdma_dev() { ls "/sys/class/net/$1/device/infiniband/" | head -n 1; }

# before: capture the current state into the rollback file first
{
  echo "## eth2"
  mlnx_qos -i eth2
  grep -r . /sys/class/net/eth2/ecn/roce_rp/enable /sys/class/net/eth2/ecn/roce_np || true
  cma_roce_tos -d "$(rdma_dev eth2)" || true
  cma_roce_mode -d "$(rdma_dev eth2)" -p 1 || true
  ip -o link show eth2
  ethtool -a eth2 || true
  echo "## eth3"
  mlnx_qos -i eth3
  grep -r . /sys/class/net/eth3/ecn/roce_rp/enable /sys/class/net/eth3/ecn/roce_np || true
  cma_roce_tos -d "$(rdma_dev eth3)" || true
  cma_roce_mode -d "$(rdma_dev eth3)" -p 1 || true
  ip -o link show eth3
  ethtool -a eth3 || true
} > "$ROLLBACK"

# ---- eth2
# trust = dscp: RoCE is classified by DSCP end to end (RT101)
# PFC vector = 0,0,0,1,0,0,0,0: intent.lossless_priorities
# DCQCN RP/NP priorities = 3: intent.congestion_control dcqcn
# CNP = DSCP 48, priority 6: intent.cnp
# RoCE ToS = 106: RoCE DSCP 26 << 2 | ECT(0) 2
# MTU = 9000 B: intent.mtu.host
# cable length = 5 m: the fabric link's length
mlnx_qos -i eth2 --trust dscp
mlnx_qos -i eth2 --dscp2prio set,0,0
mlnx_qos -i eth2 --dscp2prio set,1,0
mlnx_qos -i eth2 --dscp2prio set,2,0
mlnx_qos -i eth2 --dscp2prio set,3,0
mlnx_qos -i eth2 --dscp2prio set,4,0
mlnx_qos -i eth2 --dscp2prio set,5,0
mlnx_qos -i eth2 --dscp2prio set,6,0
mlnx_qos -i eth2 --dscp2prio set,7,0
mlnx_qos -i eth2 --dscp2prio set,8,0
mlnx_qos -i eth2 --dscp2prio set,9,0
mlnx_qos -i eth2 --dscp2prio set,10,0
mlnx_qos -i eth2 --dscp2prio set,11,0
mlnx_qos -i eth2 --dscp2prio set,12,0
mlnx_qos -i eth2 --dscp2prio set,13,0
mlnx_qos -i eth2 --dscp2prio set,14,0
mlnx_qos -i eth2 --dscp2prio set,15,0
mlnx_qos -i eth2 --dscp2prio set,16,0
mlnx_qos -i eth2 --dscp2prio set,17,0
mlnx_qos -i eth2 --dscp2prio set,18,0
mlnx_qos -i eth2 --dscp2prio set,19,0
mlnx_qos -i eth2 --dscp2prio set,20,0
mlnx_qos -i eth2 --dscp2prio set,21,0
mlnx_qos -i eth2 --dscp2prio set,22,0
mlnx_qos -i eth2 --dscp2prio set,23,0
mlnx_qos -i eth2 --dscp2prio set,24,0
mlnx_qos -i eth2 --dscp2prio set,25,0
mlnx_qos -i eth2 --dscp2prio set,26,3
mlnx_qos -i eth2 --dscp2prio set,27,0
mlnx_qos -i eth2 --dscp2prio set,28,0
mlnx_qos -i eth2 --dscp2prio set,29,0
mlnx_qos -i eth2 --dscp2prio set,30,0
mlnx_qos -i eth2 --dscp2prio set,31,0
mlnx_qos -i eth2 --dscp2prio set,32,0
mlnx_qos -i eth2 --dscp2prio set,33,0
mlnx_qos -i eth2 --dscp2prio set,34,0
mlnx_qos -i eth2 --dscp2prio set,35,0
mlnx_qos -i eth2 --dscp2prio set,36,0
mlnx_qos -i eth2 --dscp2prio set,37,0
mlnx_qos -i eth2 --dscp2prio set,38,0
mlnx_qos -i eth2 --dscp2prio set,39,0
mlnx_qos -i eth2 --dscp2prio set,40,0
mlnx_qos -i eth2 --dscp2prio set,41,0
mlnx_qos -i eth2 --dscp2prio set,42,0
mlnx_qos -i eth2 --dscp2prio set,43,0
mlnx_qos -i eth2 --dscp2prio set,44,0
mlnx_qos -i eth2 --dscp2prio set,45,0
mlnx_qos -i eth2 --dscp2prio set,46,0
mlnx_qos -i eth2 --dscp2prio set,47,0
mlnx_qos -i eth2 --dscp2prio set,48,6
mlnx_qos -i eth2 --dscp2prio set,49,0
mlnx_qos -i eth2 --dscp2prio set,50,0
mlnx_qos -i eth2 --dscp2prio set,51,0
mlnx_qos -i eth2 --dscp2prio set,52,0
mlnx_qos -i eth2 --dscp2prio set,53,0
mlnx_qos -i eth2 --dscp2prio set,54,0
mlnx_qos -i eth2 --dscp2prio set,55,0
mlnx_qos -i eth2 --dscp2prio set,56,0
mlnx_qos -i eth2 --dscp2prio set,57,0
mlnx_qos -i eth2 --dscp2prio set,58,0
mlnx_qos -i eth2 --dscp2prio set,59,0
mlnx_qos -i eth2 --dscp2prio set,60,0
mlnx_qos -i eth2 --dscp2prio set,61,0
mlnx_qos -i eth2 --dscp2prio set,62,0
mlnx_qos -i eth2 --dscp2prio set,63,0
mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0 --prio_tc 0,1,2,3,4,5,6,7
mlnx_qos -i eth2 --tsa ets,ets,ets,ets,ets,ets,strict,ets --tcbw 50,0,0,50,0,0,0,0
mlnx_qos -i eth2 --cable_len 5
echo 1 > /sys/class/net/eth2/ecn/roce_rp/enable/3
echo 1 > /sys/class/net/eth2/ecn/roce_np/enable/3
echo 48 > /sys/class/net/eth2/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/eth2/ecn/roce_np/cnp_802p_prio
cma_roce_tos -d "$(rdma_dev eth2)" -t 106
cma_roce_mode -d "$(rdma_dev eth2)" -p 1 -m 2
ip link set dev eth2 mtu 9000
ethtool -A eth2 autoneg off rx off tx off
# ---- eth3
# trust = dscp: RoCE is classified by DSCP end to end (RT101)
# PFC vector = 0,0,0,1,0,0,0,0: intent.lossless_priorities
# DCQCN RP/NP priorities = 3: intent.congestion_control dcqcn
# CNP = DSCP 48, priority 6: intent.cnp
# RoCE ToS = 106: RoCE DSCP 26 << 2 | ECT(0) 2
# MTU = 9000 B: intent.mtu.host
# cable length = 5 m: the fabric link's length
mlnx_qos -i eth3 --trust dscp
mlnx_qos -i eth3 --dscp2prio set,0,0
mlnx_qos -i eth3 --dscp2prio set,1,0
mlnx_qos -i eth3 --dscp2prio set,2,0
mlnx_qos -i eth3 --dscp2prio set,3,0
mlnx_qos -i eth3 --dscp2prio set,4,0
mlnx_qos -i eth3 --dscp2prio set,5,0
mlnx_qos -i eth3 --dscp2prio set,6,0
mlnx_qos -i eth3 --dscp2prio set,7,0
mlnx_qos -i eth3 --dscp2prio set,8,0
mlnx_qos -i eth3 --dscp2prio set,9,0
mlnx_qos -i eth3 --dscp2prio set,10,0
mlnx_qos -i eth3 --dscp2prio set,11,0
mlnx_qos -i eth3 --dscp2prio set,12,0
mlnx_qos -i eth3 --dscp2prio set,13,0
mlnx_qos -i eth3 --dscp2prio set,14,0
mlnx_qos -i eth3 --dscp2prio set,15,0
mlnx_qos -i eth3 --dscp2prio set,16,0
mlnx_qos -i eth3 --dscp2prio set,17,0
mlnx_qos -i eth3 --dscp2prio set,18,0
mlnx_qos -i eth3 --dscp2prio set,19,0
mlnx_qos -i eth3 --dscp2prio set,20,0
mlnx_qos -i eth3 --dscp2prio set,21,0
mlnx_qos -i eth3 --dscp2prio set,22,0
mlnx_qos -i eth3 --dscp2prio set,23,0
mlnx_qos -i eth3 --dscp2prio set,24,0
mlnx_qos -i eth3 --dscp2prio set,25,0
mlnx_qos -i eth3 --dscp2prio set,26,3
mlnx_qos -i eth3 --dscp2prio set,27,0
mlnx_qos -i eth3 --dscp2prio set,28,0
mlnx_qos -i eth3 --dscp2prio set,29,0
mlnx_qos -i eth3 --dscp2prio set,30,0
mlnx_qos -i eth3 --dscp2prio set,31,0
mlnx_qos -i eth3 --dscp2prio set,32,0
mlnx_qos -i eth3 --dscp2prio set,33,0
mlnx_qos -i eth3 --dscp2prio set,34,0
mlnx_qos -i eth3 --dscp2prio set,35,0
mlnx_qos -i eth3 --dscp2prio set,36,0
mlnx_qos -i eth3 --dscp2prio set,37,0
mlnx_qos -i eth3 --dscp2prio set,38,0
mlnx_qos -i eth3 --dscp2prio set,39,0
mlnx_qos -i eth3 --dscp2prio set,40,0
mlnx_qos -i eth3 --dscp2prio set,41,0
mlnx_qos -i eth3 --dscp2prio set,42,0
mlnx_qos -i eth3 --dscp2prio set,43,0
mlnx_qos -i eth3 --dscp2prio set,44,0
mlnx_qos -i eth3 --dscp2prio set,45,0
mlnx_qos -i eth3 --dscp2prio set,46,0
mlnx_qos -i eth3 --dscp2prio set,47,0
mlnx_qos -i eth3 --dscp2prio set,48,6
mlnx_qos -i eth3 --dscp2prio set,49,0
mlnx_qos -i eth3 --dscp2prio set,50,0
mlnx_qos -i eth3 --dscp2prio set,51,0
mlnx_qos -i eth3 --dscp2prio set,52,0
mlnx_qos -i eth3 --dscp2prio set,53,0
mlnx_qos -i eth3 --dscp2prio set,54,0
mlnx_qos -i eth3 --dscp2prio set,55,0
mlnx_qos -i eth3 --dscp2prio set,56,0
mlnx_qos -i eth3 --dscp2prio set,57,0
mlnx_qos -i eth3 --dscp2prio set,58,0
mlnx_qos -i eth3 --dscp2prio set,59,0
mlnx_qos -i eth3 --dscp2prio set,60,0
mlnx_qos -i eth3 --dscp2prio set,61,0
mlnx_qos -i eth3 --dscp2prio set,62,0
mlnx_qos -i eth3 --dscp2prio set,63,0
mlnx_qos -i eth3 --pfc 0,0,0,1,0,0,0,0 --prio_tc 0,1,2,3,4,5,6,7
mlnx_qos -i eth3 --tsa ets,ets,ets,ets,ets,ets,strict,ets --tcbw 50,0,0,50,0,0,0,0
mlnx_qos -i eth3 --cable_len 5
echo 1 > /sys/class/net/eth3/ecn/roce_rp/enable/3
echo 1 > /sys/class/net/eth3/ecn/roce_np/enable/3
echo 48 > /sys/class/net/eth3/ecn/roce_np/cnp_dscp
echo 6 > /sys/class/net/eth3/ecn/roce_np/cnp_802p_prio
cma_roce_tos -d "$(rdma_dev eth3)" -t 106
cma_roce_mode -d "$(rdma_dev eth3)" -p 1 -m 2
ip link set dev eth3 mtu 9000
ethtool -A eth3 autoneg off rx off tx off
