#!/usr/bin/env bash
# Give a table (or the club screen) its login on the broker, and print its credentials file.
#
#   sudo deploy/mosquitto/add-table.sh NAME [PASSWORD_FILE]
#
# NAME is the table's name ([a-z0-9][a-z0-9-]{0,31}, the `table` key of its [remote]
# config), or `club` for the read-only club screen. PASSWORD_FILE defaults to
# /etc/mosquitto/passwd. A random password is made, stored hashed with mosquitto_passwd,
# and printed once inside the TOML file the table reads (/etc/dogtable/remote.toml):
# copy it to the table, there is no other copy. Running it again for a name replaces
# that name's password. Tell a running broker with `systemctl reload mosquitto`.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 NAME [PASSWORD_FILE]" >&2
  exit 2
fi
name=$1
file=${2:-/etc/mosquitto/passwd}
# The access list puts the name in topic levels: a '/', '+' or '#' in it would reach other
# tables' topics, so only the table names dogtable accepts are let in.
if ! [[ $name =~ ^[a-z0-9][a-z0-9-]{0,31}$ ]]; then
  echo "add-table: '$name' is not a table name: use 1 to 32 of a-z, 0-9 and '-', starting with a letter or digit" >&2
  exit 2
fi
command -v mosquitto_passwd >/dev/null || { echo "add-table: mosquitto_passwd is missing: apt install mosquitto" >&2; exit 1; }
command -v openssl >/dev/null || { echo "add-table: openssl is missing: apt install openssl" >&2; exit 1; }
if [ ! -f "$file" ]; then
  (umask 077 && : > "$file")
  # Mosquitto reads the file as its own user and warns when others can.
  if [ "$(id -u)" = 0 ] && id mosquitto >/dev/null 2>&1; then chown mosquitto:mosquitto "$file"; fi
fi
# 18 random bytes: 24 characters of base64, 144 bits, nothing to guess.
password=$(openssl rand -base64 18)
# -b takes the password on the command line: it shows in `ps` for the instant it runs,
# which on the broker's own box only its administrators could see.
mosquitto_passwd -b "$file" "$name" "$password"
cat <<TOML
# /etc/dogtable/remote.toml for table '$name' (chmod 600: it holds the password)
username = "$name"
password = "$password"
ca = "/etc/dogtable/ca.crt"
TOML
