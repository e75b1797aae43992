// Package jpegenc encodes a region of a screen as a baseline JPEG with
// 4:2:0 chroma subsampling, as TigerVNC's Tight JPEG does, for glass's
// own Tight JPEG rectangles (internal/framebuffer's Encoder). The pixels
// are 4 bytes each in noVNC's pixel format, as internal/framebuffer keeps
// a screen: R, G, B, then a byte that is ignored; a region is a slice
// starting at its first pixel, its stride in bytes, a width and a height.
//
//	var e jpegenc.Encoder
//	dst, err := e.Append(dst[:0], pix, stride, w, h, quality)
//
// Append appends the JPEG to the caller's slice and allocates nothing
// once that slice has room; an Encoder keeps its state between calls and
// is not safe for concurrent use. Bad arguments (a side of 0, negative or
// over MaxSide, a stride shorter than a row, pixels that end before the
// region does, a quality outside 1 to 100) are refused with an error
// wrapping ErrInvalid, never a panic.
//
// # Two backends
//
// Both write what image/jpeg and libjpeg write at the same quality: the
// quantisation tables of T.81 Annex K scaled by libjpeg's quality rule
// (so TigerVNC's quality levels mean the same), its typical Huffman
// tables, Y sampled 2×2 and Cb and Cr 1×1, one interleaved scan; their
// pictures are within 1 dB PSNR and 6 % in size of each other
// (TestBackendsAgree).
//
//   - By default, this package's own encoder in pure Go (Backend "go"):
//     a floating-point AAN DCT whose scale goes into the quantisation
//     step, an 8×8 block of one value (screens have many) skipping the
//     transform, 64-bit bit packing straight into dst. A plain
//     `go build ./cmd/glass` needs no C library.
//   - With the build tag turbojpeg, libjpeg-turbo's TurboJPEG API through
//     cgo (Backend "turbojpeg"; Debian's libturbojpeg0-dev to build,
//     libturbojpeg0 to run), its fast DCT below quality 96 and its
//     accurate one from 96, as TigerVNC chooses, writing into dst's spare
//     room (Append grows it to tjBufSize's bound, 3 bytes a pixel and
//     2 KiB, first). `go build -tags turbojpeg ./cmd/glass`, or
//     `make glass GLASS_TAGS=turbojpeg`. The tag without cgo
//     (CGO_ENABLED=0) fails to build rather than falling back.
//
// libjpeg-turbo adds a JFIF segment and writes each table in a segment of
// its own (34 bytes more a picture), and rounds luminance to 8 bits before
// its transform, which the Go encoder does not: from quality 96 the Go
// encoder's pictures are the better and smaller ones (TestBackendsAgree).
//
// # Cost
//
// BenchmarkEncode (content=text|photo|ui, size=64x64|256x256|1280x720,
// q=15|41|79: TigerVNC's levels 0, 2 and 6) measures megapixels a second
// and bytes a picture; BenchmarkImageJPEG runs the same cases through
// image/jpeg. compare.sh runs both backends' benchmarks and image/jpeg's,
// interleaved, compares them with benchstat, and counts each backend's
// instructions a picture under valgrind (callgrind, only inside Append,
// libjpeg-turbo's C included). On a 2-core AMD EPYC shared with other
// work (five rounds each, medians; times swing by 20-50 % from run to
// run, instruction counts do not):
//
//	                     image/jpeg   go                  turbojpeg
//	1280x720, q 15-79    37-72 MP/s   99-185 MP/s         287-611 MP/s
//	256x256              34-73 MP/s   95-146 MP/s         282-492 MP/s
//	64x64                46-68 MP/s   110-167 MP/s        198-289 MP/s
//	instructions/pixel                63-142              22-53
//	allocations          7 a picture  0                   0
//
// Go takes 3.7-4.5 times libjpeg-turbo's instructions on the photo and the
// text at 256x256 and up, 2.8-3.1 times on the flat UI, and 1.8-2.7
// times on 64x64 pieces, where libjpeg-turbo's set-up of each picture
// (about 70,000 instructions) weighs. Bytes a picture are image/jpeg's
// within 1.1 % (go) and 1.6 % (turbojpeg) at 256x256 and up;
// libjpeg-turbo's 34 bytes show at 64x64 (+3-5 %).
package jpegenc
