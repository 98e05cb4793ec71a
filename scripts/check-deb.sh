#!/usr/bin/env bash
# CI: build the .deb, install it on this machine with apt, run it alone (no
# venv, not from the source tree) and lintian it. Used as is on Debian 12 (the
# host) and inside the Debian 13 root (scripts/ci-debian13.sh), so one .deb is
# checked on both.
#   check-deb.sh                  build, install, check, lintian
#   check-deb.sh --ramp BIN OUT   only a short ramp of BIN/trex-loadtest against BIN/trex-emu
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
export DEBIAN_FRONTEND=noninteractive

log() { printf '\n== %s\n' "$*"; }
die() { echo "check-deb: $*" >&2; exit 1; }

PIDS=()
stop_started() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    PIDS=()
}
trap stop_started EXIT

wait_for() {  # wait_for CMD...: up to 15 s
    local _
    for _ in $(seq 150); do "$@" 2>/dev/null && return 0; sleep 0.1; done
    die "timed out waiting for: $*"
}

free_port() {
    /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

ramp() {  # ramp BINDIR OUT.json: a short ramp of BINDIR/trex-loadtest against BINDIR/trex-emu
    local bin=$1 out=$2 rpc pub
    rpc=$(free_port); pub=$(free_port)
    "$bin/trex-emu" --rpc-port "$rpc" --pub-port "$pub" --capacity-pps 1230000 &
    PIDS+=($!)
    wait_for bash -c "exec 3<>/dev/tcp/127.0.0.1/$rpc"
    "$bin/trex-loadtest" ramp --server 127.0.0.1 --sync-port "$rpc" --async-port "$pub" \
        --profile 64 --bidirectional --rate 10 --warmup 1 --duration 4 --hold 1 -o "$out"
    stop_started
    # The emulated DUT forwards 1.23 Mpps per direction and the ramp goes to
    # 1.49 Mpps: both directions must saturate there and find a lossless rate below.
    /usr/bin/python3 - "$out" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["stats"], "no per-second stats"
for d in run["summary"]["directions"]:
    fwd, lossless = d["max_forwarded_pps"], d["lossless_pps"]
    assert abs(fwd - 1.23e6) < 0.03 * 1.23e6, f"{d['direction']}: forwarded {fwd:.0f} pps"
    assert 0 < lossless <= fwd, f"{d['direction']}: lossless {lossless} pps"
    print(f"ramp {d['direction']}: forwarded {fwd / 1e6:.3f} Mpps, lossless {lossless / 1e6:.3f} Mpps")
EOF
}

build_and_install() {
    local need="debhelper dh-python python3-all python3-setuptools python3-pip lintian
        python3-yaml python3-jinja2 python3-zmq man-db"
    local missing
    # shellcheck disable=SC2086
    missing=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $need 2>/dev/null | awk '$1 != "ii"' || true)
    # shellcheck disable=SC2086
    if [ -n "$missing" ] || ! dpkg-query -W $need >/dev/null 2>&1; then
        apt-get update -qq
        apt-get install -y -qq $need >/dev/null
    fi
    ./scripts/build-deb.sh
    DEB=$(ls "$SRC"/build/deb/vppcfg_*_all.deb)
    log "apt install $DEB"
    apt-get install -y -qq --no-install-recommends "$DEB" >/tmp/check-deb-apt.log 2>&1 \
        || { cat /tmp/check-deb-apt.log; die "apt-get install failed"; }
    echo "installed: $(dpkg-query -W vppcfg)"
}

check_installed() {
    cd /  # nothing from the source tree on sys.path
    local out sock api cfg=/usr/share/doc/vppcfg/examples/router.yaml
    out=$(mktemp -d /tmp/check-deb.XXXXXX)
    /usr/bin/vppcfg --version
    for f in /usr/share/doc/vppcfg/examples/*.yaml; do /usr/bin/vppcfg check -c "$f"; done
    test -f /usr/lib/systemd/system/vppcfg.service || die "no /usr/lib/systemd/system/vppcfg.service"
    for c in vppcfg vppcfg-sim trex-loadtest trex-emu; do
        test -f /usr/share/bash-completion/completions/$c || die "no bash completion for $c"
        test -f /usr/share/man/man1/$c.1.gz || die "no man page for $c"
    done
    test -f /usr/share/zsh/vendor-completions/_vppcfg || die "no zsh completion"
    # The boot helper must leave things alone when the config is absent or invalid.
    /usr/lib/vppcfg/vppcfg-boot /nonexistent/vppcfg.yaml
    printf 'interfaces:\n  GigabitEthernet3/0/0:\n    mtu: 99999\n' >"$out/bad.yaml"
    /usr/lib/vppcfg/vppcfg-boot "$out/bad.yaml"   # invalid: logs why, exits 0, touches nothing

    log "packaged vppcfg check/plan/apply/dump against the packaged vppcfg-sim"
    sock="$out/sim.sock"
    /usr/bin/vppcfg-sim --socket "$sock" --inventory "$SRC/examples/sim/inventory.yaml" &
    PIDS+=($!)
    wait_for test -S "$sock"
    api=$(/usr/bin/python3 -c 'from vppcfg.sim.codec import DEFAULT_API_DIR; print(DEFAULT_API_DIR)')
    case "$api" in /usr/lib/python3/dist-packages/*) ;; *) die "API files from $api, not the package" ;; esac
    local vpp=(--vpp-api-socket "$sock" --vpp-json-dir "$api")
    /usr/bin/vppcfg plan -c "$cfg" "${vpp[@]}" >"$out/plan.txt"
    echo "plan: $(wc -l <"$out/plan.txt") lines"
    /usr/bin/vppcfg apply -c "$cfg" "${vpp[@]}" --lock-file "$out/apply.lock" --state-dir "$out/state"
    # converged: a second plan finds nothing to do (--detailed-exitcode: 0)
    /usr/bin/vppcfg plan -c "$cfg" "${vpp[@]}" --detailed-exitcode >"$out/plan2.txt" \
        || die "plan after apply is not empty: $(cat "$out/plan2.txt")"
    /usr/bin/vppcfg dump "${vpp[@]}" -o "$out/dump.yaml"
    /usr/bin/vppcfg check -c "$out/dump.yaml"
    stop_started

    log "trex-loadtest with the T-Rex client carried in /usr/lib/vppcfg/vendor"
    /usr/bin/trex-loadtest --help >/dev/null
    /usr/bin/python3 - <<'EOF'
import loadtest.client  # first: it puts /usr/lib/vppcfg/vendor on sys.path
import lbr_trex_client

assert lbr_trex_client.__file__.startswith("/usr/lib/vppcfg/vendor/"), lbr_trex_client.__file__
api = loadtest.client.load_api()
print("T-Rex client:", lbr_trex_client.__file__, "->", api.__name__)
EOF
    ramp /usr/bin "$out/ramp.json"

    log "systemd-analyze verify"
    # BindsTo=vpp.service: VPP (a Recommends) is not installed here, so a stand-in
    # unit is verified beside it; ExecStart and the man page are the real ones.
    printf '[Unit]\nDescription=stand-in for VPP\n[Service]\nExecStart=/bin/true\n' >"$out/vpp.service"
    systemd-analyze verify /usr/lib/systemd/system/vppcfg.service "$out/vpp.service"
    rm -rf "$out"
}

lint() {
    log "lintian $(lintian --version): fails on errors and on warnings not overridden"
    # overridden tags (debian/vppcfg.lintian-overrides, each with its reason) are not shown:
    # with --show-overrides lintian 2.116 fails on an overridden warning too
    lintian --fail-on error,warning --display-info "$DEB"
}

if [ "${1:-}" = --ramp ]; then
    ramp "$2" "$3"
    exit 0
fi
build_and_install
check_installed
cd "$SRC"
lint
echo "deb check: OK"
