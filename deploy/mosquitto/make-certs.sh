#!/usr/bin/env bash
# Make the club's own certificate authority and the broker's certificate, with openssl.
#
#   deploy/mosquitto/make-certs.sh HOST [DIR]
#
# HOST is the name (or IP address) the tables use in their broker URL, mqtts://HOST:8883:
# a table checks that the broker's certificate names it, so use exactly that name. DIR
# (default ./certs) receives ca.crt and ca.key (the club's authority), server.crt and
# server.key (the broker's). Copy ca.crt, server.crt and server.key to /etc/mosquitto/certs
# and ca.crt to every table (the `ca` key of its credentials file); keep ca.key off the
# broker, it signs any certificate the tables would trust. Running the script again keeps
# an existing authority and makes a new server certificate (a new host name, or renewal).
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ]; then
  echo "usage: $0 HOST [DIR]   (HOST: the broker's name in the tables' mqtts://HOST:8883)" >&2
  exit 2
fi
host=$1
dir=${2:-certs}
command -v openssl >/dev/null || { echo "make-certs: openssl is missing: apt install openssl" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
umask 077

# An address goes in the certificate as an IP entry, a name as a DNS entry: a client
# compares the URL's host with the entry of its own kind only.
if [[ $host =~ ^[0-9.]+$ || $host == *:* ]]; then
  san="IP:$host"
else
  san="DNS:$host"
fi

if [ ! -f ca.key ] || [ ! -f ca.crt ]; then
  # Ten years: the authority is copied to every table, renewing it means visiting them all.
  openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout ca.key -out ca.crt -days 3650 -subj "/CN=dogtable club CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
fi

openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout server.key -out server.csr -subj "/CN=$host" 2>/dev/null
ext=$(mktemp)
trap 'rm -f "$ext" server.csr' EXIT
printf '%s\n' "subjectAltName=$san" "basicConstraints=critical,CA:FALSE" \
  "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" > "$ext"
# 825 days: the longest server certificate lifetime that clients following the CA/Browser
# rules (Apple's among them) still accept.
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
  -out server.crt -days 825 -extfile "$ext" 2>/dev/null
chmod 644 ca.crt server.crt
openssl verify -CAfile ca.crt server.crt >/dev/null
echo "make-certs: $dir/server.crt for $san, signed by $dir/ca.crt"
