#!/usr/bin/env bash
# CI: build the .deb, install it on this machine, run it, and lintian it.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
need="debhelper dh-python python3-all python3-setuptools python3-pip lintian python3-yaml python3-jinja2 python3-zmq"
missing=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $need 2>/dev/null | awk '$1 != "ii" {print $2}' || true)
if [ -n "$missing" ] || ! dpkg-query -W $need >/dev/null 2>&1; then
    apt-get update -qq
    apt-get install -y -qq $need >/dev/null
fi
./scripts/build-deb.sh
deb=$(ls build/deb/vppcfg_*_all.deb)
apt-get install -y -qq "./$deb" >/dev/null
echo "installed: $(dpkg-query -W vppcfg)"
/usr/bin/vppcfg --version
for f in /usr/share/doc/vppcfg/examples/*.yaml; do
    /usr/bin/vppcfg check -c "$f"
done
test -f /lib/systemd/system/vppcfg.service || test -f /usr/lib/systemd/system/vppcfg.service
# The boot helper must leave things alone when the config is absent.
/usr/lib/vppcfg/vppcfg-boot /nonexistent/vppcfg.yaml
bad=$(mktemp --suffix=.yaml)
printf 'interfaces:\n  GigabitEthernet3/0/0:\n    mtu: 99999\n' > "$bad"
/usr/lib/vppcfg/vppcfg-boot "$bad"   # invalid: logs why, exits 0, touches nothing
rm -f "$bad"
lintian --fail-on error --suppress-tags-from-file /dev/null "$deb"
echo "deb check: OK"
