#!/usr/bin/env bash
# python3-cbor2, Debian's CBOR library for Python: the second language that
# decodes the golden frames and re-encodes them canonically
# (golden/cbor2_test.go). It installs for Debian's /usr/bin/python3.
# Idempotent.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
if ! dpkg-query -W -f='${Status}' python3-cbor2 2>/dev/null | grep -q 'install ok installed'; then
  echo "install-cbor2: installing python3-cbor2"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends python3 python3-cbor2 >/dev/null
fi
/usr/bin/python3 -c 'import cbor2' || { echo "install-cbor2: /usr/bin/python3 cannot import cbor2 after install" >&2; exit 1; }
echo "install-cbor2: python3-cbor2 present"
