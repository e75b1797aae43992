// Package novnc is noVNC, the browser's VNC client, vendored into the
// repository as the files glass's viewer page loads (core/ and the pako it
// imports), with their licences beside them (LICENSE.txt, docs/LICENSE.*;
// noVNC's core is MPL-2.0, a file-level licence: these files stay as
// noVNC wrote them). `make novnc-vendor` fetched them from the npm
// registry; VERSION records the version and the tarball's integrity.
package novnc

import "embed"

// Version is the vendored noVNC's version.
const Version = "1.7.0"

// Files holds noVNC's package as its paths name it: core/rfb.js,
// vendor/pako/lib/..., LICENSE.txt.
//
//go:embed LICENSE.txt AUTHORS VERSION docs core vendor
var Files embed.FS
