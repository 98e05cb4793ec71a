#!/usr/bin/env bash
# Ramp matrix: frame size 1514 / imix / 64  x  one flow / many flows  x  uni- / bidirectional.
# Writes one JSON per run into OUT (default ./loadtest-runs) and a report.html comparing them.
#
#   examples/loadtest.sh                      # against T-Rex on $SERVER (default 127.0.0.1)
#   examples/loadtest.sh --emu                # dry run against a local trex-emu (5 Mpps device)
#
# Environment: SERVER, RATE (peak, % of line or e.g. 8mpps; default 100), WARMUP, DURATION,
# HOLD (seconds; defaults 5/30/5), OUT, TREX_LOADTEST (command, default trex-loadtest),
# EXTRA (more trex-loadtest options, e.g. "--latency --force").
set -euo pipefail

SERVER=${SERVER:-127.0.0.1}
RATE=${RATE:-100}
WARMUP=${WARMUP:-5}
DURATION=${DURATION:-30}
HOLD=${HOLD:-5}
OUT=${OUT:-loadtest-runs}
TREX_LOADTEST=${TREX_LOADTEST:-trex-loadtest}
EXTRA=${EXTRA:-}
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
    trex-emu --rpc-port "$RPC" --pub-port "$PUB" --capacity-pps 5e6 >/dev/null 2>&1 &
    EMU_PID=$!
    PORTS=(--sync-port "$RPC" --async-port "$PUB")
    SERVER=127.0.0.1
    WARMUP=${WARMUP_EMU:-1} DURATION=${DURATION_EMU:-5} HOLD=${HOLD_EMU:-1}
    RATE=${RATE_EMU:-50}
    sleep 1
fi

mkdir -p "$OUT"
runs=()
for profile in 1514 imix 64; do
    for flows in one many; do
        for direction in uni bi; do
            name="$profile-$flows-$direction"
            args=(ramp --server "$SERVER" "${PORTS[@]}" --profile "$profile" --flows "$flows"
                  --rate "$RATE" --warmup "$WARMUP" --duration "$DURATION" --hold "$HOLD"
                  -o "$OUT/$name.json")
            [[ "$direction" == bi ]] && args+=(--bidirectional)
            echo "== $name" >&2
            # shellcheck disable=SC2086  # EXTRA is a list of options
            "$TREX_LOADTEST" "${args[@]}" $EXTRA
            runs+=("$OUT/$name.json")
        done
    done
done
"$TREX_LOADTEST" report "${runs[@]}" -o "$OUT/report.html" --title "Ramp matrix ($SERVER)"
echo "report: $OUT/report.html" >&2
