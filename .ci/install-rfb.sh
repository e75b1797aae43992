#!/usr/bin/env bash
# Real peers for the rfbgate tests and benchmarks: TigerVNC's Xvnc (the VNC
# server), vncpasswd, xinput (observes input inside the X display), Chromium
# (drives noVNC headless), xclip (puts text on the X clipboard), xkbwatch
# (draws the modifier state: the pixels of BenchmarkKeyToPixel), xmessage (a
# window of text for the phone test's screenshots; x11-utils) and websockify
# (the baseline relay); Node.js and npm (which bring noVNC itself) when the
# machine has none. Idempotent.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
pkgs=(tigervnc-standalone-server tigervnc-tools xinput x11-utils x11-xkb-utils xauth xclip chromium websockify)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
command -v npm >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-rfb: installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for b in Xvnc vncpasswd xinput xkbcomp xclip xkbwatch xmessage chromium websockify; do
  command -v "$b" >/dev/null || { echo "install-rfb: $b missing after install" >&2; exit 1; }
done
echo "install-rfb: Xvnc, xinput, xclip, xkbwatch, chromium, websockify present"
