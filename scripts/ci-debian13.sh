#!/usr/bin/env bash
# CI on Debian 13 (trixie), as root on any Debian-like host:
#   1. build (or reuse) a trixie root with debootstrap, cached under
#      $VPPCFG_CI_CACHE (default /var/cache/vppcfg-ci), keyed by what it installs;
#   2. run on a throw-away overlay of it (the cached root is never written to,
#      so every run starts from the same state), with the tracked files of this
#      clone copied to /src and ../shared bind-mounted read-only beside it;
#   3. inside: the project in a venv of Debian's python3 from requirements.lock
#      (venv cached by the lock's hash), the fast tier under CI=true, a ramp
#      against trex-emu, the .deb built with trixie's debhelper, installed with
#      apt, then run alone (vppcfg against vppcfg-sim, a ramp with the carried
#      T-Rex client against the packaged trex-emu), systemd-analyze verify and
#      lintian.
# Every mount lives in a private mount namespace and is unmounted on exit,
# whatever the exit; processes started inside the root are stopped too.
set -euo pipefail

SUITE=trixie
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the root holds; the cache key is a hash of these and ROOT_RECIPE.
PACKAGES="python3 python3-venv python3-pip python3-all python3-setuptools
python3-yaml python3-jinja2 python3-zmq debhelper dh-python build-essential
dpkg-dev lintian systemd man-db iproute2 git ca-certificates ruby chromium"
ROOT_RECIPE=2  # bump when prepare_root changes
VENV=/opt/vppcfg-venv  # inside the root

log() { printf '\n== %s  [%s]\n' "$*" "$(date -u +%T)"; }
die() { echo "ci-debian13: $*" >&2; exit 1; }

# ---------------------------------------------------------------- host side

build_root() {  # build_root DIR: debootstrap a trixie root into DIR (atomically)
    local dir=$1 tmp="$1.tmp"
    rm -rf "$tmp"
    log "debootstrap $SUITE into $dir (cold cache)"
    # minbase only: debootstrap's own resolver cannot pick virtual packages
    # (python3-zmq's cffi ABI, perl's openssl ABI); apt inside does the rest.
    debootstrap --variant=minbase "$SUITE" "$tmp" "$MIRROR" >"$tmp.log" 2>&1 \
        || { tail -30 "$tmp.log" >&2; die "debootstrap failed (log: $tmp.log)"; }
    log "apt-get install the CI packages in the root"
    unshare --mount --propagation private -- "$0" --prepare "$tmp" >>"$tmp.log" 2>&1 \
        || { tail -30 "$tmp.log" >&2; die "preparing the root failed (log: $tmp.log)"; }
    rm -f "$tmp.log"
    mv "$tmp" "$dir"
}

prepare_root() {  # in a private mount namespace: the root's fixed setup, once per cache key
    local root=$1
    CHROOT=$root  # global: the EXIT trap runs after this function's locals are gone
    trap 'unmount_all "$CHROOT"' EXIT
    mount_basics "$root"
    cp -L /etc/resolv.conf "$root/etc/resolv.conf"
    echo "deb $MIRROR $SUITE main" >"$root/etc/apt/sources.list"
    # shellcheck disable=SC2086
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $(echo $PACKAGES) && apt-get clean"
}

host_main() {
    [ "$(id -u)" = 0 ] || die "needs root (debootstrap, mount, chroot)"
    local repo cache key base
    repo=$(cd "$(dirname "$0")/.." && pwd)
    cache=${VPPCFG_CI_CACHE:-/var/cache/vppcfg-ci}
    mkdir -p "$cache"
    # One run at a time per cache: runs share the root and the venv, and a
    # run's leftovers (its overlay after a kill) can then be removed safely.
    exec 9>"$cache/.lock"
    flock 9
    rm -rf "$cache"/run.*
    if ! command -v debootstrap >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
    fi
    key=$(printf '%s\n' "$SUITE" "$MIRROR" "$ROOT_RECIPE" $PACKAGES | sha256sum | cut -c1-16)
    base="$cache/$SUITE-$key"
    log "Debian 13 root: $base"
    if [ ! -d "$base" ]; then
        build_root "$base"
        # older roots (other keys) are of no further use
        find "$cache" -maxdepth 1 -name "$SUITE-*" ! -name "$SUITE-$key" -exec rm -rf {} +
    fi
    local run
    run=$(mktemp -d "$cache/run.XXXXXX")
    # unshare: a private mount namespace, so no mount made below can leak
    # into the host even if this script is killed; the trap in in_namespace
    # unmounts them in order on any normal exit.
    local rc=0
    unshare --mount --propagation private -- \
        "$0" --namespace "$repo" "$base" "$run" "$cache" || rc=$?
    if grep -q " $run/" /proc/mounts; then
        echo "ci-debian13: mounts left under $run:" >&2; grep " $run/" /proc/mounts >&2; rc=1
    else
        rm -rf "$run"
    fi
    log "ci-debian13: exit $rc after ${SECONDS}s"
    return "$rc"
}

MOUNTED=()
mnt() {  # mnt TARGET MOUNT-ARGS...: mount and remember it for the unmount
    local target=$1; shift
    mount "$@" "$target"
    MOUNTED+=("$target")
}

unmount_all() {
    local root=$1 i pid
    # stop what is still running inside the root (e.g. after a failed step)
    for pid in $(ls /proc | grep -E '^[0-9]+$'); do
        [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$root" ] && kill -9 "$pid" 2>/dev/null
    done
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
        umount "${MOUNTED[i]}" 2>/dev/null || umount -l "${MOUNTED[i]}"
    done
    MOUNTED=()
}

mount_basics() {  # mount_basics ROOT: /proc, /sys, a private /dev, /run
    local root=$1
    mnt "$root/proc" -t proc proc
    mnt "$root/sys" -t sysfs sysfs
    mnt "$root/dev" -t tmpfs -o mode=755,nosuid dev
    mknod -m 666 "$root/dev/null" c 1 3; mknod -m 666 "$root/dev/zero" c 1 5
    mknod -m 666 "$root/dev/full" c 1 7; mknod -m 666 "$root/dev/random" c 1 8
    mknod -m 666 "$root/dev/urandom" c 1 9; mknod -m 666 "$root/dev/tty" c 5 0
    mkdir -p "$root/dev/pts" "$root/dev/shm"
    mnt "$root/dev/pts" -t devpts -o newinstance,ptmxmode=0666 devpts
    ln -s pts/ptmx "$root/dev/ptmx"
    mnt "$root/dev/shm" -t tmpfs -o mode=1777 shm
    mnt "$root/run" -t tmpfs -o mode=755 run
    mkdir -p "$root/run/lock" "$root/run/netns"
}

in_namespace() {  # runs as root in the private mount namespace
    local repo=$1 base=$2 run=$3 cache=$4
    local root="$run/root" lockhash
    mkdir -p "$run/upper" "$run/work" "$root"
    CHROOT=$root  # global: the EXIT trap runs after this function's locals are gone
    trap 'unmount_all "$CHROOT"' EXIT
    mnt "$root" -t overlay overlay -o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work"
    # ip netns inside needs the root to be a mount point of its own
    mnt "$root" --bind "$root"
    mount_basics "$root"
    # pip and git inside verify TLS with this machine's CA certificates
    cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/host-ca.crt"
    cp -L /etc/resolv.conf "$root/etc/resolv.conf"
    # the clone's tracked and new files (what a fresh clone has), at /src
    mkdir -p "$root/src"
    (cd "$repo" && git ls-files -z --cached --others --exclude-standard \
        | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh \
        | tar --null -T - -cf -) | tar -xf - -C "$root/src"
    # the .deb scripts/check-deb.sh built on the host (Debian 12 in CI, just
    # before this script): one .deb must be lintian-clean on both releases
    mkdir -p "$root/tmp/host-deb"
    cp "$repo"/build/deb/vppcfg_*_all.deb "$root/tmp/host-deb/" 2>/dev/null || true
    # ../shared in place, read-only
    if [ -d "$repo/../shared" ]; then
        mkdir -p "$root/shared"
        mnt "$root/shared" --bind "$(cd "$repo/../shared" && pwd)"
        mount -o remount,bind,ro "$root/shared"
    fi
    # graph.rb (trex-loadtest-viz, fetched by .ci/run), read in place
    local graph_rb=""
    if [ -n "${GRAPH_RB:-}" ] && [ -f "$GRAPH_RB" ]; then
        mkdir -p "$root/opt/graph-rb"
        mnt "$root/opt/graph-rb" --bind "$(dirname "$(readlink -f "$GRAPH_RB")")"
        mount -o remount,bind,ro "$root/opt/graph-rb"
        graph_rb=/opt/graph-rb/$(basename "$GRAPH_RB")
    fi
    # the venv, reused while the lock and the root's Python stay the same (the
    # project itself is installed into it again on every run)
    lockhash=$(cat "$repo/requirements.lock" "$base/usr/bin/python3" | sha256sum | cut -c1-16)
    local venv="$cache/venv-$lockhash"
    mkdir -p "$venv" "$root$VENV"
    find "$cache" -maxdepth 1 -name 'venv-*' ! -name "venv-$lockhash" -exec rm -rf {} +
    mnt "$root$VENV" --bind "$venv"
    chroot "$root" /usr/bin/env -i \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 CI=true TERM=dumb DEBIAN_FRONTEND=noninteractive \
        PIP_CERT=/etc/ssl/certs/host-ca.crt SSL_CERT_FILE=/etc/ssl/certs/host-ca.crt \
        REQUESTS_CA_BUNDLE=/etc/ssl/certs/host-ca.crt GIT_SSL_CAINFO=/etc/ssl/certs/host-ca.crt \
        PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_DEFAULT_TIMEOUT=180 ${graph_rb:+GRAPH_RB=$graph_rb} \
        ${CI_WAIVE:+"CI_WAIVE=$CI_WAIVE"} ${CI_WAIVE_REASON:+"CI_WAIVE_REASON=$CI_WAIVE_REASON"} \
        /bin/bash /src/scripts/ci-debian13.sh --inside
}

# ------------------------------------------------------- inside the root

inside_main() {
    cd /src
    log "inside: $(. /etc/os-release; echo "$PRETTY_NAME"), $(python3 --version)"
    ip netns add ci-probe && ip netns delete ci-probe  # ip netns works here

    log "venv ($VENV) from requirements.lock"
    if [ ! -x "$VENV/bin/python" ] || [ ! -f "$VENV/.complete" ]; then
        rm -rf "${VENV:?}"/* "$VENV"/.complete
        python3 -m venv "$VENV"
        "$VENV/bin/pip" install --quiet --require-hashes -r requirements.lock
        touch "$VENV/.complete"
    fi
    # the project itself (no deps: they come from the lock above)
    "$VENV/bin/pip" install --quiet --no-deps --no-build-isolation -e .

    # A failing step does not stop the others (they say more about the
    # package); the script still fails at the end, naming what failed.
    local failed=() deb_pid
    # The .deb (build, apt install, checks of the installed package, lintian)
    # runs beside the fast tier: pytest uses one core, the build the other.
    log "the .deb, in the background: built with Debian 13's debhelper/dh-python, installed with apt, run alone, lintian"
    ./scripts/check-deb.sh >/tmp/check-deb.log 2>&1 &
    deb_pid=$!

    log "fast tier (pytest -m 'not real', CI=true)"
    "$VENV/bin/python" -m pytest -m "not real" -p no:cacheprovider || failed+=("fast tier")

    log "trex-loadtest ramp against trex-emu (venv, the real T-Rex client)"
    ./scripts/check-deb.sh --ramp "$VENV/bin" /tmp/ramp-venv.json || failed+=("ramp (venv)")

    wait "$deb_pid" || failed+=(".deb check (scripts/check-deb.sh)")
    log "the .deb check's output"
    cat /tmp/check-deb.log

    local host_deb
    for host_deb in /tmp/host-deb/*.deb; do
        [ -f "$host_deb" ] || continue
        log "lintian (Debian 13) on the .deb built on the host: $(basename "$host_deb")"
        lintian --fail-on error,warning "$host_deb" || failed+=("lintian on the host's .deb")
    done
    if ((${#failed[@]})); then
        die "failed: $(printf '%s; ' "${failed[@]}")"
    fi
    log "Debian 13: all passed"
}

# One compound command, ending in exit: bash reads a script as it runs it, so
# an edit of this file during a run must not reach a running copy.
{
    case "${1:-}" in
        --inside) inside_main ;;
        --namespace) shift; in_namespace "$@" ;;
        --prepare) shift; prepare_root "$@" ;;
        *) host_main ;;
    esac
    exit
}
