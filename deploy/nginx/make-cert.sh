#!/bin/sh
# Makes the TLS certificate for the nginx in front of tour-bridge (deploy/nginx/tour-bridge.conf.template):
# a server certificate for the names the kiosks use to reach the robot, signed by a certificate
# authority that the kiosks' browsers trust.
#
#   deploy/nginx/make-cert.sh OUT_DIR NAME [NAME...]
#
# NAME: each host name or IP address a kiosk may type or be configured with (robot-7.local,
# 192.168.1.20, ...); all go into subjectAltName, which is what browsers check; the first is also the
# subject's CN. Writes OUT_DIR/server.crt and OUT_DIR/server.key (mode 600) for nginx.
#
# The CA: with TLS_CA_CERT and TLS_CA_KEY set (the operator's own CA, PEM files), the certificate is
# signed by it and nothing else is written. Without them a new CA is made once, OUT_DIR/ca.crt and
# OUT_DIR/ca.key, and reused on later runs; install ca.crt on the kiosks (it is what they trust), and
# keep ca.key off the robot: whoever holds it can make certificates the kiosks accept.
#
# TLS_DAYS: validity of the server certificate in days (default 397, within what browsers accept
# from any CA); TLS_CA_DAYS: of a new CA (default 3650). Needs the openssl CLI (1.1.1 or later).
# test/browser/tls-proxy.test.ts makes its certificates with this script.
set -eu

if [ "$#" -lt 2 ]; then
  echo "usage: $0 OUT_DIR NAME [NAME...]   (NAME: a host name or IP address of the robot)" >&2
  exit 2
fi
out="$1"
shift
days="${TLS_DAYS:-397}"
ca_days="${TLS_CA_DAYS:-3650}"

san=""
for name in "$@"; do
  case "$name" in
    *[!0-9.]* | "")
      case "$name" in
        *:*) entry="IP:$name" ;; # IPv6
        *[!A-Za-z0-9.-]* | "" | -* | .*)
          echo "make-cert: '$name' is not a host name or an IP address" >&2
          exit 2
          ;;
        *) entry="DNS:$name" ;;
      esac
      ;;
    *) entry="IP:$name" ;; # digits and dots: IPv4
  esac
  san="${san:+$san,}$entry"
done

mkdir -p "$out"
umask 077
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ -n "${TLS_CA_CERT:-}" ] || [ -n "${TLS_CA_KEY:-}" ]; then
  if [ ! -r "${TLS_CA_CERT:-}" ] || [ ! -r "${TLS_CA_KEY:-}" ]; then
    echo "make-cert: set both TLS_CA_CERT and TLS_CA_KEY to readable PEM files (the CA's certificate and key)" >&2
    exit 2
  fi
  ca_cert="$TLS_CA_CERT"
  ca_key="$TLS_CA_KEY"
else
  ca_cert="$out/ca.crt"
  ca_key="$out/ca.key"
  if [ ! -f "$ca_cert" ] || [ ! -f "$ca_key" ]; then
    openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout "$ca_key" -out "$ca_cert" -days "$ca_days" -sha256 \
      -subj "/CN=tour-bridge kiosk CA $(date -u +%Y-%m-%d)" \
      -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
      -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -addext "subjectKeyIdentifier=hash" 2>"$work/log" || {
      cat "$work/log" >&2
      exit 1
    }
    chmod 644 "$ca_cert"
    echo "make-cert: made a new CA, $ca_cert (install it on the kiosks) and $ca_key (keep it safe)" >&2
  fi
fi

cat >"$work/server.ext" <<EXT
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = $san
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EXT

openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout "$work/server.key" -out "$work/server.csr" -subj "/CN=$1" 2>"$work/log" || {
  cat "$work/log" >&2
  exit 1
}
openssl x509 -req -in "$work/server.csr" -CA "$ca_cert" -CAkey "$ca_key" -CAcreateserial \
  -CAserial "$work/ca.srl" -days "$days" -sha256 -extfile "$work/server.ext" \
  -out "$work/server.crt" 2>"$work/log" || {
  cat "$work/log" >&2
  exit 1
}
openssl verify -CAfile "$ca_cert" "$work/server.crt" >/dev/null

mv "$work/server.key" "$out/server.key"
chmod 644 "$work/server.crt"
mv "$work/server.crt" "$out/server.crt"
echo "make-cert: $out/server.crt for $san, valid $days days" >&2
