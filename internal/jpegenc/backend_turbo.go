//go:build turbojpeg && cgo

package jpegenc

/*
#cgo LDFLAGS: -lturbojpeg
#include <stdlib.h>
#include <turbojpeg.h>

// jpegenc_compress encodes into dst (cap bytes, at least tjBufSize's) and
// returns the JPEG's length, or -1 with the error in the handle.
static long jpegenc_compress(tjhandle h, const unsigned char *src, int w, int stride, int ht, unsigned char *dst, unsigned long cap, int q) {
	unsigned char *buf = dst;
	unsigned long size = cap;
	// libjpeg's fast DCT below quality 96 and its accurate one from 96, as
	// TigerVNC's JPEG compressor chooses.
	int flags = TJFLAG_NOREALLOC | (q < 96 ? TJFLAG_FASTDCT : TJFLAG_ACCURATEDCT);
	if (tjCompress2(h, src, w, stride, ht, TJPF_RGBX, &buf, &size, TJSAMP_420, q, flags) != 0) {
		return -1;
	}
	return (long)size;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"unsafe"
)

// Backend names the encoder this build uses: "go" (this package's own
// pure Go encoder) or, built with the tag turbojpeg, "turbojpeg"
// (libjpeg-turbo through cgo).
const Backend = "turbojpeg"

// Encoder writes JPEGs; its zero value is ready. It keeps a TurboJPEG
// compressor (made at the first call, freed when the Encoder is
// collected), and allocates nothing once the caller's buffer has room for
// the worst case (3 bytes a pixel and 2 KiB, tjBufSize's bound). An
// Encoder is not safe for concurrent use.
type Encoder struct {
	tj *compressor
}

// compressor is the TurboJPEG handle, in a heap object of its own that
// the cleanup can watch.
type compressor struct{ h C.tjhandle }

// Append appends to dst a baseline JPEG (4:2:0, the Annex K tables) of
// the w×h pixels of pix, whose rows start stride bytes apart, at quality
// (1 to 100, libjpeg's scale), and returns the extended slice. Each pixel
// is 4 bytes: R, G, B, then one that is ignored. An invalid argument
// returns dst unchanged and an error wrapping ErrInvalid.
func (e *Encoder) Append(dst, pix []byte, stride, w, h, quality int) ([]byte, error) {
	if err := check(pix, stride, w, h, quality); err != nil {
		return dst, err
	}
	if e.tj == nil {
		hd := C.tjInitCompress()
		if hd == nil {
			return dst, errors.New("jpegenc: libjpeg-turbo: " + C.GoString(C.tjGetErrorStr2(nil)))
		}
		e.tj = &compressor{h: hd}
		runtime.AddCleanup(e.tj, func(h C.tjhandle) { C.tjDestroy(h) }, hd)
	}
	bound := int(C.tjBufSize(C.int(w), C.int(h), C.TJSAMP_420))
	out := slices.Grow(dst, bound)
	free := out[len(out):cap(out)]
	n := C.jpegenc_compress(e.tj.h, (*C.uchar)(unsafe.Pointer(unsafe.SliceData(pix))), C.int(w), C.int(stride), C.int(h),
		(*C.uchar)(unsafe.Pointer(unsafe.SliceData(free))), C.ulong(len(free)), C.int(quality))
	runtime.KeepAlive(pix)
	if n < 0 {
		return dst, fmt.Errorf("jpegenc: libjpeg-turbo: a %dx%d region at quality %d: %s", w, h, quality, C.GoString(C.tjGetErrorStr2(e.tj.h)))
	}
	return out[:len(out)+int(n)], nil
}
