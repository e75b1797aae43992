#!/usr/bin/env bash
# valgrind for make micro-check (the instruction counts of the workbench,
# mk/count.mk; Debian 12 ships 3.19). Idempotent; mk/count.sh installs it
# the same way when run by hand.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
if ! dpkg-query -W -f='${Status}' valgrind 2>/dev/null | grep -q 'install ok installed'; then
  echo "install-valgrind: installing valgrind"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends valgrind >/dev/null
fi
command -v valgrind >/dev/null || { echo "install-valgrind: valgrind missing after install" >&2; exit 1; }
echo "install-valgrind: $(valgrind --version) present"
