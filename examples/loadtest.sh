#!/usr/bin/env bash
# The small-router review's loadtest loop, in the original trex-loadtest command line:
#   uni- and bidirectional  x  1514 / imix / 64 bytes with many flows (vm=var2), plus 64 bytes
#   with one flow (vm=none); profile examples/trex_bench.py. One JSON per run in OUT (default
#   ./loadtest-runs), then report.html with the review's summary table.
#
#   examples/loadtest.sh                      # against T-Rex on $SERVER (default 127.0.0.1)
#   examples/loadtest.sh --emu                # dry run against a local trex-emu (5 Mpps device)
#
# Environment: SERVER, RATE (peak: % of line, or e.g. 8mpps; default 100), DURATION (ramp
# seconds, default 30), OFFSET (third octet of the profile's networks, default 10), OUT,
# PROFILE (default examples/trex_bench.py), TREX_LOADTEST (command, default trex-loadtest),
# LATENCY (default --latency: latency per step in the report; LATENCY= to leave it out),
# EXTRA (more trex-loadtest options, e.g. "--force").
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SERVER=${SERVER:-127.0.0.1}
RATE=${RATE:-100}
DURATION=${DURATION:-30}
OFFSET=${OFFSET:-10}
OUT=${OUT:-loadtest-runs}
PROFILE=${PROFILE:-$HERE/trex_bench.py}
TREX_LOADTEST=${TREX_LOADTEST:-trex-loadtest}
EXTRA=${EXTRA:-}
LATENCY=${LATENCY-"--latency"}
PORTS=()
EMU_PID=""

cleanup() {
    if [[ -n "$EMU_PID" ]]; then
        kill "$EMU_PID" 2>/dev/null || true
        wait "$EMU_PID" 2>/dev/null || true
    fi
}
trap cleanup EXIT

if [[ "${1:-}" == "--emu" ]]; then
    # free ports picked by the kernel, so parallel dry runs do not collide
    read -r RPC PUB < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
    # a 5 Mpps router that also sends 100 packets/s of its own (ARP, LLDP, routing protocols)
    trex-emu --rpc-port "$RPC" --pub-port "$PUB" --capacity-pps 5e6 --dut-own-pps 100 \
        >/dev/null 2>&1 &
    EMU_PID=$!
    PORTS=(--sync-port "$RPC" --async-port "$PUB" -wd 1 -hd 1)
    SERVER=127.0.0.1
    DURATION=${DURATION_EMU:-5}
    RATE=${RATE_EMU:-50}
    sleep 1
fi

mkdir -p "$OUT"
runs=()
run() {  # NAME DIR TUNABLES
    local name=$1 dir=$2 tunables=$3 u=()
    [[ "$dir" == uni ]] && u=(-u)
    echo "== $name" >&2
    # shellcheck disable=SC2086  # EXTRA and LATENCY are lists of options
    "$TREX_LOADTEST" -s "$SERVER" "${u[@]}" -p "$PROFILE" -t "$tunables" -rd "$DURATION" \
        -rt "$RATE" -o "$OUT/$name.json" "${PORTS[@]}" $LATENCY $EXTRA
    runs+=("$OUT/$name.json")
}
for DIR in uni bi; do
    for SIZE in 1514 imix 64; do
        run "$DIR-$SIZE" "$DIR" "offset=$OFFSET,vm=var2,size=$SIZE"
    done
    run "$DIR-64-one-flow" "$DIR" "offset=$OFFSET,vm=none,size=64"
done
"$TREX_LOADTEST" report "${runs[@]}" -o "$OUT/report.html" --title "Loadtest ($SERVER)"
echo "report: $OUT/report.html" >&2
