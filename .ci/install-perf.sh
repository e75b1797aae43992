#!/usr/bin/env bash
# perf (Debian's linux-perf) for TestRelaySyscalls: it counts the I/O
# system calls glass makes per MiB relayed (the kernel's syscall
# tracepoints), the CI check of the relay's write path. Idempotent.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
if ! command -v perf >/dev/null; then
  echo "install-perf: installing linux-perf"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends linux-perf >/dev/null
fi
command -v perf >/dev/null || { echo "install-perf: perf missing after install" >&2; exit 1; }
echo "install-perf: $(perf --version 2>&1 | head -n 1) present"
