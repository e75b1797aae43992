// Package rfbviewer is a Go RFB viewer for benchmarks and tests: it asks
// for what noVNC asks for (noVNC's pixel format; Tight, CopyRect, ZRLE,
// Raw and the DesktopSize, ExtendedDesktopSize and LastRect
// pseudo-encodings), requests updates as noVNC does (a full one first,
// then an incremental one after each update) and decodes every update into
// a framebuffer.Framebuffer, counting updates, bytes and rectangles, and
// the time of its first update that covers the whole screen.
//
// It runs over any io.ReadWriter: a WebSocket to glass (through
// websocket.NetConn or rfbgate.ByteStream), or a TCP connection to Xvnc.
// Dial runs the RFB handshake with security type None itself (what glass
// offers a browser); Start begins after ServerInit, for a caller that ran
// another handshake (VNC authentication with Xvnc, say).
//
// A Viewer can be paused: it then stops reading its connection entirely
// (after the message it is decoding), as a browser tab that stalls does,
// and goes on where it stopped when resumed. Snapshot copies its pixels as
// of the end of an update, safely while it decodes.
package rfbviewer
