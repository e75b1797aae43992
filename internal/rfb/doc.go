// Package rfb is the RFB (VNC) protocol as glass speaks it: its numbers
// (message types, encodings, security types, Tight's constants) in one
// place, for the relay (rfbgate) and the framebuffer decoder
// (internal/framebuffer) alike.
package rfb
