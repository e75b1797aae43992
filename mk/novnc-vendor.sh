#!/usr/bin/env bash
# mk/novnc-vendor.sh — `make novnc-vendor`: fetches noVNC $NOVNC_VERSION from
# the npm registry (`npm pack`, the registry's own tarball, its integrity
# checked by npm) and writes the files glass's viewer page needs into
# rfbgate/internal/novnc/, which go:embed puts in the glass binary:
#
#   core/          noVNC's library (MPL-2.0): rfb.js and everything it imports
#   vendor/pako/   the zlib it imports (MIT), with its licence
#   LICENSE.txt, AUTHORS, docs/LICENSE.*   noVNC's licences, beside the files
#   VERSION        the version and the tarball's integrity, for the record
#
# The result is committed; run this again only to move to another version
# (then say so in rfbgate/internal/novnc/novnc.go's Version).
set -euo pipefail
cd "$(dirname "$0")/.."

version=${NOVNC_VERSION:-1.7.0}
dest=rfbgate/internal/novnc
command -v npm >/dev/null || { echo "novnc-vendor: npm is needed (apt-get install -y nodejs npm)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm pack --silent --json --pack-destination "$tmp" "@novnc/novnc@$version" >"$tmp/pack.json"
tarball=$(sed -nE 's/^ *"filename": "([^"]+)".*/\1/p' "$tmp/pack.json" | head -1)
integrity=$(sed -nE 's/^ *"integrity": "([^"]+)".*/\1/p' "$tmp/pack.json" | head -1)
[ -n "$tarball" ] && [ -f "$tmp/$tarball" ] || { echo "novnc-vendor: npm pack gave no tarball" >&2; exit 1; }
tar -xzf "$tmp/$tarball" -C "$tmp"
pkg=$tmp/package
got=$(sed -nE 's/^  "version": "([^"]+)".*/\1/p' "$pkg/package.json")
[ "$got" = "$version" ] || { echo "novnc-vendor: the tarball is noVNC $got, not $version" >&2; exit 1; }

rm -rf "$dest/core" "$dest/vendor" "$dest/docs" "$dest/LICENSE.txt" "$dest/AUTHORS" "$dest/VERSION"
mkdir -p "$dest/vendor" "$dest/docs"
cp -R "$pkg/core" "$dest/core"
cp -R "$pkg/vendor/pako" "$dest/vendor/pako"
cp "$pkg/LICENSE.txt" "$pkg/AUTHORS" "$dest/"
cp "$pkg"/docs/LICENSE.* "$dest/docs/"
printf 'noVNC %s from the npm registry (@novnc/novnc), tarball integrity %s\n' "$version" "$integrity" >"$dest/VERSION"
find "$dest" -type f -newer "$tmp/pack.json" -exec chmod 0644 {} +
echo "novnc-vendor: noVNC $version ($integrity) in $dest: $(find "$dest/core" "$dest/vendor" -type f | wc -l) files"
