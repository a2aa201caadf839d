#!/bin/sh
# Install dogtable as a service on Raspberry Pi OS (bookworm): run it from a clone.
#   sudo ./scripts/install-pi.sh               install, or bring an install up to date (a second run changes nothing)
#   sudo ./scripts/install-pi.sh --page        the running service's address, QR code and PIN
#   sudo ./scripts/install-pi.sh --uninstall   remove it (keeps /etc/dogtable and the journal; --purge removes them)
# The steps are companion/setup_pi.py (standard library only); this wrapper only makes sure
# a python3 is there to run them (Raspberry Pi OS Lite has one; a bare Debian may not).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v python3 >/dev/null 2>&1; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "install-pi.sh: run it as root: sudo $0 $*" >&2
        exit 2
    fi
    echo "[0] python3: installing it (apt-get install python3)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 >/dev/null \
        || { echo "[0] python3: FAILED: apt-get install python3; fix: apt-get update, then run the installer again"; exit 1; }
fi
exec python3 "$here/companion/setup_pi.py" --source "$here" "$@"
