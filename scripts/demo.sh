#!/usr/bin/env bash
# The fresh-machine demo (make demo): start the VPP simulator with a PHY
# inventory, check / plan / apply / dump an example, then cross-connect two
# PHYs and run a short loadtest through the simulator (the T-Rex emulator's
# packets cross its virtual wire, the ramp reads its stats segment with
# --dut-stats) and write an HTML report. Everything started here is stopped on exit.
set -euo pipefail
BIN=${1:-.venv/bin}
cd "$(dirname "$0")/.."
OUT=${DEMO_OUT:-out/demo}
mkdir -p "$OUT"
SOCK=$(mktemp -u /tmp/vppcfg-demo.XXXXXX.sock)
STATS=${SOCK%.sock}-stats.sock
WIRE=${SOCK%.sock}-wire.sock
CONFIG=${DEMO_CONFIG:-examples/router.yaml}
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -f "$SOCK" "$STATS" "$WIRE"
}
trap cleanup EXIT INT TERM

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
wait_for() {  # wait_for TEST... : up to 15 s
    for _ in $(seq 150); do "$@" && return 0; sleep 0.1; done
    echo "demo: timed out waiting for: $*" >&2; return 1
}

step "Start the VPP simulator (inventory: examples/sim/inventory.yaml; each PHY takes 1.23 Mpps)"
"$BIN/vppcfg-sim" --socket "$SOCK" --inventory examples/sim/inventory.yaml \
    --stats-socket "$STATS" --wire-socket "$WIRE" --capacity-pps 1230000 \
    --node-stats-interval 1 &  # per-node counters every second: statseg { update-interval 1 }
pids+=($!)
wait_for test -S "$SOCK"
wait_for test -S "$WIRE"
VPP=(--vpp-api-socket "$SOCK" --vpp-json-dir "$("$BIN/python" -c 'from vppcfg.sim.codec import DEFAULT_API_DIR; print(DEFAULT_API_DIR)')")

step "vppcfg check $CONFIG"
"$BIN/vppcfg" check -c "$CONFIG"

step "vppcfg plan (against the simulator)"
"$BIN/vppcfg" plan -c "$CONFIG" "${VPP[@]}"

step "vppcfg apply"
"$BIN/vppcfg" apply -c "$CONFIG" "${VPP[@]}" --lock-file "$OUT/apply.lock" --state-dir "$OUT/state"

step "vppcfg plan again (nothing to do)"
"$BIN/vppcfg" plan -c "$CONFIG" "${VPP[@]}"

step "vppcfg dump"
"$BIN/vppcfg" dump "${VPP[@]}" | tee "$OUT/dump.yaml"

step "The loadtest's DUT: vppcfg apply examples/l2xc.yaml (GigabitEthernet3/0/0 <-> 3/0/1)"
"$BIN/vppcfg" apply -c examples/l2xc.yaml "${VPP[@]}" --lock-file "$OUT/apply.lock" --state-dir "$OUT/state"

step "Start the T-Rex emulator (ports 0 and 1 wired to the simulator's GigabitEthernet3/0/0 and 3/0/1)"
RPC=$("$BIN/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PUB=$("$BIN/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN/trex-emu" --rpc-port "$RPC" --pub-port "$PUB" --vpp-sim "$WIRE" &
pids+=($!)
wait_for bash -c "exec 3<>/dev/tcp/127.0.0.1/$RPC" 2>/dev/null

step "trex-loadtest ramp (64 bytes, both directions, up to 10% of 10G = 1.49 Mpps)"
"$BIN/trex-loadtest" ramp --server 127.0.0.1 --sync-port "$RPC" --async-port "$PUB" \
    --profile 64 --bidirectional --rate 10 --warmup 1 --duration 20 --hold 2 -o "$OUT/ramp-64.json" \
    --latency --dut-stats "$STATS" --dut-ports GigabitEthernet3/0/0,GigabitEthernet3/0/1

step "trex-loadtest report"
"$BIN/trex-loadtest" report "$OUT/ramp-64.json" -o "$OUT/report.html"
echo "demo: wrote $OUT/report.html and $OUT/dump.yaml"
