// Package framebuffer is glass's own copy of a remote screen: a
// Framebuffer of 32-bit pixels and a streaming Decoder that applies the
// server-to-client RFB stream (after ServerInit) to it.
//
// It is the copy of each computer's screen that glass's hub keeps
// (rfbgate): glass inflates each zlib-stream rectangle from Xvnc once,
// keeps the result here, and serves late joiners and slow viewers from it.
// The benchmarks' Go viewers decode with it too.
//
// # What is decoded
//
// internal/rfb's ServerFramer frames the stream (the relay's server filter
// frames with the same one): the Decoder reads the headers it frames and
// decodes their payloads.
//
// Rectangles: Raw (0), CopyRect (1), ZRLE (16, one zlib stream for the
// connection) and Tight (7: fill, JPEG through image/jpeg, and basic
// compression with the copy, palette and gradient filters, on four zlib
// streams with their reset bits, data under 12 bytes sent uncompressed).
// Pseudo-encodings applied: DesktopSize (-223) and ExtendedDesktopSize
// (-308) resize the framebuffer; LastRect (-224) ends an update. Skipped by
// their sizes: Cursor (-239), VMware cursor (0x574d5664), QEMU LED state
// (-261), DesktopName (-307), QEMU extended key (-258). Other server
// messages are framed and skipped: SetColourMapEntries, Bell,
// ServerCutText (both forms), EndOfContinuousUpdates (150), ServerFence
// (248) and xvp (250). Anything else is an error.
//
// The only pixel format is the one noVNC asks for (32 bits a pixel, depth
// 24, true colour, little-endian, red shift 0, green 8, blue 16, maxima
// 255): each pixel is the bytes R, G, B, 0 in memory. ParsePixelFormat
// refuses every other format with an error saying why.
//
// # Bounds
//
// The Decoder reads from an io.Reader in whatever pieces it delivers,
// through a fixed buffer of its own (ReadBufferSize bytes). No length a
// peer claims is allocated on trust: every rectangle must lie inside the
// framebuffer, compressed lengths are checked against what the rectangle's
// pixels can justify (and Limits), zlib data is inflated only as far as
// the rectangle needs, and every refusal is a *DecodeError naming the
// message, the rectangle and the stream offset.
//
// Memory, for Limits of W×H pixels and a JPEG limit J:
//
//   - the framebuffer: 4·W·H bytes at most (a resize reuses its memory,
//     and when it must grow it doubles, up to 4·W·H);
//   - five zlib states (ZRLE's and Tight's four, klauspost/compress's
//     zlib, about 45 KiB each), each with a 4 KiB input buffer (a
//     bufio.Reader, flate's fast path) and at most MaxZlibCarry compressed
//     bytes carried between rectangles; compressed data is read from the
//     stream as inflation needs it, never buffered whole;
//   - scratch for the largest rectangle so far: at most max(3·W·H, J)
//     bytes (Tight basic data, or a JPEG's bytes), grown by doubling;
//     image/jpeg's decoded image of a JPEG rectangle (about 3 bytes a
//     pixel of that rectangle), garbage once applied;
//   - its own read buffer (ReadBufferSize), a ZRLE tile and a palette.
//
// Nothing else is allocated from a claimed length: a 4 GiB name, cut text
// or cursor is skipped through the read buffer. Once the zlib states and
// scratch exist, Raw, CopyRect, ZRLE and Tight basic updates are decoded
// without allocating (TestSteadyAllocs); JPEG rectangles allocate
// image/jpeg's image. FuzzDecoder asserts, for every input, that the
// decoder allocates in all at most this bound (with the framebuffer and
// scratch counted three times for their doublings) plus 2 KiB for each
// input byte (what image/jpeg allocates per JPEG rectangle and an error's
// text, paid for by the bytes that ask for them).
//
// # Encoding
//
// An Encoder writes parts of a Framebuffer as self-contained Tight
// rectangles (fill, palette, copy, or JPEG at a quality SetJPEG gives,
// through internal/jpegenc: its pure Go encoder, or libjpeg-turbo when
// built with the tag turbojpeg), each basic one on a new zlib stream, so
// that any viewer can decode them from any update boundary: the hub's
// shared log. Once warm it allocates nothing, JPEG included
// (TestEncoderSteadyAllocs).
package framebuffer
