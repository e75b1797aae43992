// Package xpaint is the project's own X11 client and screen-damage
// generator, for tests and benchmarks that need a real Xvnc's screen to
// change in a known way.
//
// Conn speaks the raw X11 protocol (pure Go, no Xlib) over the display's
// unix socket (/tmp/.X11-unix/X<n>, no authorization, as a test's Xvnc
// started with -nolisten tcp offers it). It draws on the root window only:
// PutImage of an RGB picture, PolyFillRectangle in one colour and
// CopyArea within the root (which Xvnc sends as CopyRect). Requests are
// queued and sent by Sync, which waits for the server's reply to a
// GetInputFocus after them: when Sync returns, the server has executed
// every request before it. An X error is returned by Sync, naming the
// error code and the request's major opcode. Only 24-bit depth with 32
// bits a pixel, least significant byte first, is supported (what Xvnc
// -depth 24 offers); Dial refuses any other root.
//
// Damage is a seeded, deterministic damage generator: frame k of a given
// seed and area is the same drawing in every run (a desktop-like mix of
// scrolling text lines, a moving block, a changing photo-like patch and
// solid fills), painted at a fixed frame rate. Every frame is painted,
// late ones without waiting, so the same seed and number of frames give
// Xvnc the same damage, and the same final screen, whatever the load.
package xpaint
