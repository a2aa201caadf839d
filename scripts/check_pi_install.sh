#!/bin/bash
# Check the Raspberry Pi install on this (x86) machine: a Debian bookworm arm64 root made
# with debootstrap and run under qemu-user-static stands in for Raspberry Pi OS Lite.
#
#   sudo scripts/check_pi_install.sh              install in the root (twice: the second run must change nothing),
#                                                 `pip install -e '.[pi]'` in a plain venv, a short game with
#                                                 `dogtable run` on the simulated devices, `dogtable doctor`
#   sudo scripts/check_pi_install.sh --uninstall  `install-pi.sh --uninstall` in the root: no unit, user or venv left
#   sudo scripts/check_pi_install.sh --fresh      start again from the debootstrapped root
#
# It takes minutes (everything arm64 is emulated), so it is not part of the test suite;
# tests/companion/test_install_pi.py runs the installer's steps in a temporary root.
# The debootstrapped root is cached in $DOGTABLE_PI_CACHE (default /var/cache/dogtable-pi-check);
# the root the installer runs in is kept between runs, so a second run installs over an install.
# systemd does not run in the root: the installed unit is checked with `systemd-analyze verify`.
set -u
CACHE=${DOGTABLE_PI_CACHE:-/var/cache/dogtable-pi-check}
BASE=$CACHE/base
ROOT=$CACHE/root
SRC=$(cd "$(dirname "$0")/.." && pwd)
PORT=${DOGTABLE_PI_PORT:-8391}  # the root shares this machine's network: a port the host's own services do not use
MODE=install
FRESH=0
for a in "$@"; do
    case $a in
        --uninstall) MODE=uninstall ;;
        --fresh) FRESH=1 ;;
        *) echo "usage: $0 [--uninstall] [--fresh]" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" -eq 0 ] || { echo "check_pi_install.sh: run it as root (debootstrap and chroot need it)" >&2; exit 2; }
mkdir -p "$CACHE"
LOG=$CACHE/check.log
: >"$LOG"
PASSED=()
FAILED=()

say() { echo "== $*"; }
pass() { PASSED+=("$1"); echo "PASS $1${2:+: $2}"; }
fail() { FAILED+=("$1"); echo "FAIL $1${2:+: $2} (log: $LOG)"; }
inroot() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
asuser() { chroot --userspec=dogtable:dogtable "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/var/lib/dogtable \
    LANG=C.UTF-8 STATE_DIRECTORY=/var/lib/dogtable "$@"; }

summary() {
    echo
    echo "passed (${#PASSED[@]}): ${PASSED[*]:-none}"
    echo "failed (${#FAILED[@]}): ${FAILED[*]:-none}"
    [ ${#FAILED[@]} -eq 0 ]
}

mounted=()
cleanup() {
    [ -n "${SERVICE_PID:-}" ] && kill "$SERVICE_PID" 2>/dev/null
    for ((i=${#mounted[@]}-1; i>=0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null; done
}
trap cleanup EXIT

# The Debian mirror apt already uses on this machine (the archive is reachable only through it).
mirror() {
    local uri
    uri=$(grep -hE '^\s*(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | grep -v security | grep -oE 'https?://[^ ]+/debian/?' | head -n1)
    echo "${uri%/}"
}

say "host tools"
missing=""
for p in debootstrap qemu-user-static binfmt-support; do
    dpkg-query -W -f='${Status}' $p 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing; } >>"$LOG" 2>&1 \
        || { fail "host-tools" "apt-get install$missing failed"; summary; exit 1; }
fi
pass "host-tools" "debootstrap, qemu-user-static, binfmt-support"

say "arm64 emulation"
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc >>"$LOG" 2>&1
update-binfmts --enable qemu-aarch64 >>"$LOG" 2>&1 || true
if grep -q enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; then
    pass "binfmt" "qemu-aarch64 $(grep -o 'flags: .*' /proc/sys/fs/binfmt_misc/qemu-aarch64)"
else
    fail "binfmt" "qemu-aarch64 is not registered; fix: update-binfmts --enable qemu-aarch64"; summary; exit 1
fi

say "Debian bookworm arm64 root ($BASE)"
if [ ! -f "$BASE/.complete" ]; then
    m=$(mirror)
    [ -n "$m" ] || { fail "debootstrap" "no Debian mirror in /etc/apt/sources.list*"; summary; exit 1; }
    echo "debootstrap from $m (minutes: the second stage runs emulated)"
    rm -rf "$BASE.tmp"
    start=$SECONDS
    # Raspberry Pi OS Lite has python3 and systemd; a minbase Debian plus those is the nearest plain base
    if debootstrap --arch=arm64 --variant=minbase --include=systemd,python3,ca-certificates bookworm "$BASE.tmp" "$m" >>"$LOG" 2>&1; then
        mv "$BASE.tmp" "$BASE" && touch "$BASE/.complete"
        pass "debootstrap" "$((SECONDS - start)) s from $m"
    else
        fail "debootstrap"; summary; exit 1
    fi
else
    pass "debootstrap" "cached"
fi
[ "$(chroot "$BASE" /usr/bin/uname -m)" = aarch64 ] && pass "arm64-root" "uname -m: aarch64 (qemu-user)" || fail "arm64-root"

# a run that was killed may have left /dev, /proc, /sys bound inside: never delete through them
for m in $(findmnt -rn -o TARGET | grep "^$ROOT/" | sort -r); do umount -l "$m"; done
if findmnt -rn -o TARGET | grep -q "^$ROOT/"; then
    fail "root" "something is still mounted under $ROOT; fix: umount it by hand"; summary; exit 1
fi
if [ $FRESH -eq 1 ] || [ ! -d "$ROOT" ]; then
    rm -rf "$ROOT" && cp -a "$BASE" "$ROOT"
    # what Raspberry Pi OS ships in its boot config: SPI off, the line there commented out
    mkdir -p "$ROOT/boot/firmware" && printf '[all]\n#dtparam=i2c_arm=on\n#dtparam=i2s=on\n#dtparam=spi=on\n' >"$ROOT/boot/firmware/config.txt"
    echo "new root $ROOT from $BASE"
else
    echo "root $ROOT kept from the last run"
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# the root trusts what this machine trusts: a network that inspects HTTPS (PyPI) signs with a local CA
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
    mkdir -p "$ROOT/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
    inroot update-ca-certificates >>"$LOG" 2>&1
fi
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d" && chmod +x "$ROOT/usr/sbin/policy-rc.d"  # apt starts no daemons here
for d in proc sys dev; do mount --bind /$d "$ROOT/$d" && mounted+=("$ROOT/$d"); done
mkdir -p "$CACHE/pip-cache" "$ROOT/root/.cache/pip" && mount --bind "$CACHE/pip-cache" "$ROOT/root/.cache/pip" && mounted+=("$ROOT/root/.cache/pip")
# the clone: the tracked files of this tree as they are now
rm -rf "$ROOT/usr/src/dogtable" && mkdir -p "$ROOT/usr/src/dogtable"
(cd "$SRC" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$ROOT/usr/src/dogtable"

snapshot() {  # what an install leaves on the machine: files (with contents), users, groups, unit links
    inroot sh -c 'cat /etc/passwd /etc/group; find /etc/dogtable /etc/systemd/system /opt/dogtable /var/lib/dogtable /boot/firmware \
        -xdev \( -type f -o -type l \) -not -name "*.pyc" -printf "%p %m %u %g %l\n" 2>/dev/null | sort;
        find /etc/dogtable /etc/systemd/system /boot/firmware /opt/dogtable/.venv/dogtable-install.json -xdev -type f -exec sha256sum {} + 2>/dev/null | sort'
}

if [ $MODE = uninstall ]; then
    say "install-pi.sh --uninstall"
    inroot /usr/src/dogtable/scripts/install-pi.sh --uninstall | tee -a "$LOG"
    [ "${PIPESTATUS[0]}" -eq 0 ] && pass "uninstall-ran" || fail "uninstall-ran"
    left=""
    [ -e "$ROOT/etc/systemd/system/dogtable.service" ] && left="$left unit"
    [ -e "$ROOT/etc/systemd/system/multi-user.target.wants/dogtable.service" ] || [ -L "$ROOT/etc/systemd/system/multi-user.target.wants/dogtable.service" ] && left="$left unit-link"
    grep -q '^dogtable:' "$ROOT/etc/passwd" && left="$left user"
    grep -q '^dogtable:' "$ROOT/etc/group" && left="$left group"
    [ -e "$ROOT/opt/dogtable/.venv" ] && left="$left venv"
    [ -e "$ROOT/opt/dogtable" ] && left="$left /opt/dogtable"
    grep -q '^dtparam=spi=on' "$ROOT/boot/firmware/config.txt" && left="$left spi-on"
    [ -z "$left" ] && pass "nothing-left" "no unit, unit link, user, group, venv or /opt/dogtable; SPI back off" || fail "nothing-left" "left:$left"
    [ -d "$ROOT/var/lib/dogtable" ] && pass "journal-kept" "/var/lib/dogtable: $(ls "$ROOT/var/lib/dogtable" | tr '\n' ' ')" || fail "journal-kept"
    summary; exit $?
fi

say "pip install -e '.[pi]' on plain Debian arm64 (a new user's way, in its own venv)"
inroot sh -c 'dpkg-query -W -f="\${Status}" python3-venv 2>/dev/null | grep -q "ok installed" || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv; }' >>"$LOG" 2>&1
# kept between runs like the root: a second run finds the requirements there and checks the extra again
inroot sh -c '{ [ -x /tmp/plain/bin/pip ] || python3 -m venv /tmp/plain; } && cd /usr/src/dogtable && /tmp/plain/bin/pip install -q -e ".[pi]"' >>"$LOG" 2>&1
if [ $? -eq 0 ]; then
    got=$(inroot /tmp/plain/bin/pip list 2>/dev/null | grep -iE '^(lgpio|rpi[-_]ws281x|picamera2) ' | tr -s ' ' | paste -sd, -)
    pass "pi-extra-plain" "succeeded; Pi packages installed: ${got:-none} (rpi-ws281x only on a Raspberry Pi kernel; picamera2 from apt)"
else
    fail "pi-extra-plain" "$(grep -E '^(ERROR|error):' "$LOG" | tail -n1)"
fi

install_once() {  # $1: label
    say "sudo ./scripts/install-pi.sh ($1)"
    local start=$SECONDS
    inroot /usr/src/dogtable/scripts/install-pi.sh >"$CACHE/install-$1.out" 2>&1
    local rc=$?
    cat "$CACHE/install-$1.out" | tee -a "$LOG"
    echo "($((SECONDS - start)) s, exit $rc)"
    return $rc
}

install_once first && pass "install" "$(tail -n1 "$CACHE/install-first.out")" || fail "install" "$(grep FAILED "$CACHE/install-first.out")"
snapshot >"$CACHE/snapshot-1"
install_once second
rc=$?
snapshot >"$CACHE/snapshot-2"
if [ $rc -eq 0 ] && tail -n1 "$CACHE/install-second.out" | grep -q "nothing to change" && cmp -s "$CACHE/snapshot-1" "$CACHE/snapshot-2"; then
    pass "idempotent" "second run: nothing to change; files, users, groups and links identical ($(wc -l <"$CACHE/snapshot-1") lines compared)"
else
    fail "idempotent" "$(diff "$CACHE/snapshot-1" "$CACHE/snapshot-2" | head -n3 | tr '\n' ' ')"
fi

say "the installed unit"
out=$(inroot systemd-analyze verify /etc/systemd/system/dogtable.service 2>&1)
[ -z "$out" ] && pass "unit-verify" "systemd-analyze verify: no output" || fail "unit-verify" "$out"
[ -L "$ROOT/etc/systemd/system/multi-user.target.wants/dogtable.service" ] && pass "unit-enabled" "multi-user.target.wants/dogtable.service" || fail "unit-enabled"
id_line=$(inroot id dogtable)
echo "$id_line" | grep -q "video" && echo "$id_line" | grep -q "gpio" && echo "$id_line" | grep -q "spi" && echo "$id_line" | grep -q "dialout" \
    && pass "user" "$id_line" || fail "user" "$id_line"
grep -q '^dtparam=spi=on' "$ROOT/boot/firmware/config.txt" && pass "spi" "dtparam=spi=on in /boot/firmware/config.txt" || fail "spi"
inroot grep -q 'include-system-site-packages = true' /opt/dogtable/.venv/pyvenv.cfg && pass "venv" "system site packages" || fail "venv"
mods=$(inroot /opt/dogtable/.venv/bin/python -c 'import rpi_ws281x, lgpio; print("rpi_ws281x", getattr(rpi_ws281x, "__version__", "?"), "lgpio", getattr(lgpio, "LGPIO_PY_VERSION", "?"))' 2>&1)
[ $? -eq 0 ] && pass "pi-packages" "import: $mods" || fail "pi-packages" "$mods"

say "dogtable run on the simulated devices: a short game through the page"
cat >"$ROOT/tmp/check-run.toml" <<EOF
[table]
edition = "classic"
[leds]
backend = "simulated"
[encoder]
backend = "simulated"
[buttons]
backend = "simulated"
[camera]
backend = "none"
[service]
journal = "/var/lib/dogtable/check-journal.sqlite"
[web]
port = $PORT
pin = "246813"
EOF
chmod 644 "$ROOT/tmp/check-run.toml"
cat >"$ROOT/tmp/check-play.py" <<'EOF'
"""Play the start of a seeded game on a running `dogtable run` through its page, as a paired phone does."""
import http.cookiejar
import json
import sys
import urllib.request

from companion import table as T
from companion.simulated.scripted import scripted_game

base, pin, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def get(path):
    with opener.open(base + path, timeout=30) as r:
        return json.loads(r.read())


def post(name, body, csrf):
    req = urllib.request.Request(base + "api/" + name, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "Origin": base.rstrip("/"), "Sec-Fetch-Site": "same-origin",
        "X-Dogtable-CSRF": csrf})
    with opener.open(req, timeout=30) as r:
        return json.loads(r.read())


post("pair", {"pin": pin}, get("api/csrf")["csrf"])
csrf = get("api/csrf")["csrf"]
assert get("api/csrf")["paired"], "pairing with the PIN failed"
plays = sent = 0
for step, state in scripted_game("classic", 4, seed=3, illegal_rate=0.0, undo_rate=0.0):
    ev = step.event
    if isinstance(ev, T.BoardSettled):
        post("board", {"position": state.position.to_json()}, csrf)
        plays += 1
    elif isinstance(ev, T.CardSeen):
        post("card", {"card": ev.card, "seat": ev.seat}, csrf)
    elif isinstance(ev, T.ExchangeDone):
        post("exchange", {}, csrf)
    elif isinstance(ev, T.SitOut):
        post("sitout", {"seat": ev.seat}, csrf)
    elif isinstance(ev, T.Discard):
        post("discard", {"redraw": ev.redraw}, csrf)
    else:
        continue
    sent += 1
    if plays > limit:
        break
served = get("api/state")
want = state.position.field_occupancy()
assert served["board"] == want, f"the service's board differs from the game's after {sent} events"
assert served["flag"] is None, f"a play was flagged: {served['flag']}"
print(f"{sent} events sent ({plays - 1} boards after plays), the service's board matches the game's, "
      f"round {served['round']}, phase {served.get('phase')}, game {served['game_id']}")
EOF
rm -f "$ROOT"/var/lib/dogtable/check-journal.sqlite*
# exec: $! is then the service itself (chroot and env exec too), so that SIGTERM reaches it
(exec chroot --userspec=dogtable:dogtable "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/var/lib/dogtable LANG=C.UTF-8 \
    STATE_DIRECTORY=/var/lib/dogtable /opt/dogtable/.venv/bin/dogtable run --config /tmp/check-run.toml --new) >"$CACHE/run.out" 2>&1 &
SERVICE_PID=$!
url=""
for _ in $(seq 120); do
    url=$(grep -oE 'web page http://[^ ]+' "$CACHE/run.out" | head -n1 | cut -d' ' -f3)
    [ -n "$url" ] && break
    kill -0 $SERVICE_PID 2>/dev/null || break
    sleep 1
done
cat "$CACHE/run.out"
if [ -z "$url" ]; then
    fail "run-start" "dogtable run did not start"
else
    devices=$(grep '^devices:' "$CACHE/run.out")
    echo "$devices" | grep -q "leds, encoder, buttons" && pass "run-devices" "$devices" || fail "run-devices" "$devices"
    local_url="http://127.0.0.1:$PORT/"
    played=$(inroot /opt/dogtable/.venv/bin/python /tmp/check-play.py "$local_url" 246813 30 2>&1)
    [ $? -eq 0 ] && pass "run-game" "$played" || fail "run-game" "$(echo "$played" | tail -n1)"
    say "install-pi.sh --page (the end of an install where systemd runs)"
    inroot /usr/src/dogtable/scripts/install-pi.sh --page --port "$PORT" | tee "$CACHE/page.out"
    grep -q "pairing PIN: 246813" "$CACHE/page.out" && pass "page" "$(head -n1 "$CACHE/page.out")" || fail "page"
    kill -TERM $SERVICE_PID
    wait $SERVICE_PID
    rc=$?
    SERVICE_PID=""
    [ $rc -eq 0 ] && pass "run-stop" "SIGTERM: exit 0" || fail "run-stop" "exit $rc"
    games=$(asuser /opt/dogtable/.venv/bin/dogtable replay --journal /var/lib/dogtable/check-journal.sqlite --list 2>&1)
    echo "$games"
    echo "$games" | grep -q "events" && pass "journal" "$games" || fail "journal" "$games"
fi

say "dogtable doctor (the installed config, as the service's user)"
asuser /opt/dogtable/.venv/bin/dogtable doctor --config /etc/dogtable/config.toml >"$CACHE/doctor.out" 2>&1
rc=$?
cat "$CACHE/doctor.out"
checks=$(grep -cE '^(ok|warn|FAIL|skip) ' "$CACHE/doctor.out")
missing=""
for c in config camera leds encoder buttons bridge calibration cards journal disk clock unit; do
    grep -qE "^(ok|warn|FAIL|skip) +$c " "$CACHE/doctor.out" || missing="$missing $c"
done
[ -z "$missing" ] && pass "doctor" "$checks checks reported (exit $rc)" || fail "doctor" "no line for:$missing"

summary
