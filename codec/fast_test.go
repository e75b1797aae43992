package codec

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The fast paths for the canonical layout must accept only what the
// general decoder accepts, and read it alike. decodeBoth decodes b with
// them and without, and fails t when the two disagree; it returns what
// the fast path gave.
func decodeBoth(t testing.TB, b []byte) (Message, error) {
	t.Helper()
	fast, ferr := Decode(b)
	fastPaths = false
	slow, serr := Decode(b)
	fastPaths = true
	if (ferr == nil) != (serr == nil) {
		t.Fatalf("% x: fast paths: %v, general decoder: %v", b, ferr, serr)
	}
	if ferr != nil {
		if ferr.Error() != serr.Error() {
			t.Fatalf("% x: fast paths fail with %v, general decoder with %v", b, ferr, serr)
		}
		return nil, ferr
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("% x: fast paths read\n%#v\ngeneral decoder\n%#v", b, fast, slow)
	}
	return fast, nil
}

func goldenBins(tb testing.TB) [][]byte {
	files, err := filepath.Glob("../golden/*.bin")
	if err != nil || len(files) < 41 {
		tb.Fatalf("golden frames: %d files, %v", len(files), err)
	}
	var out [][]byte
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b[4:])
	}
	return out
}

// TestRequestFastPathTaken: the canonical requests of the methods it
// knows take the fast path, and read as the general decoder reads them.
func TestRequestFastPathTaken(t *testing.T) {
	reqs := []*Request{
		{ID: 7, Method: MethodTap, Params: &TapParams{X: 540, Y: 1200}},
		{ID: 1 << 40, Method: MethodTap, Params: &TapParams{X: -2147483648, Y: 2147483647}},
		{ID: 2, Method: MethodLongPress, Params: &LongPressParams{X: -1, Y: -24, DurationMS: 600}},
		{ID: 3, Method: MethodSwipe, Params: &SwipeParams{X1: 1, Y1: -25, X2: 256, Y2: -257, DurationMS: 300}},
		{ID: 3, Method: MethodSwipe, Params: &SwipeParams{RestMS: OptFrom(new(uint32(70)))}, DeadlineMS: OptFrom(new(uint32(1000)))},
		{ID: 4, Method: MethodKey, Params: &KeyParams{Keycode: 66}},
		{ID: 4, Method: MethodKey, Params: &KeyParams{Keycode: 66, Meta: OptFrom(new(uint32(0xffffffff)))}},
		{ID: 5, Method: MethodResync, Params: &ResyncParams{Stream: StreamFrames}},
		{ID: 6, Method: MethodScreenshot, Params: &ScreenshotParams{}},
		{ID: 6, Method: MethodScreenshot, Params: &ScreenshotParams{Quality: OptFrom(new(uint32(80)))}},
		{ID: 6, Method: MethodFramesStart, Params: &FramesStartParams{MaxFPS: OptFrom(new(uint32(30))), Quality: OptFrom(new(uint32(50)))}},
		{ID: 8, Method: MethodFramesStop, Params: &FramesStopParams{}},
		{ID: 9, Method: MethodDeviceInfo, Params: &DeviceInfoParams{}},
		{ID: 10, Method: MethodSnapshot, Params: &SnapshotParams{Evict: []uint32{}}},
		{ID: 11, Method: MethodSnapshot, Params: &SnapshotParams{MaxDepth: OptFrom(new(uint32(64))), MaxWindows: OptFrom(new(uint32(8))),
			EvictEventLess: OptFrom(new(false)), Evict: []uint32{3, 7, 4294967295}}},
	}
	for _, r := range reqs {
		b, err := Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := decodeRequestFast(b)
		if !ok {
			t.Errorf("%s request % x: fast path not taken", r.Method, b)
			continue
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("fast path reads %#v, want %#v", got, r)
		}
		decodeBoth(t, b)
	}
}

// TestRequestFastPathRefuses: layouts the fast path must leave to the
// general decoder, which then accepts or refuses them as always.
func TestRequestFastPathRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"keys out of order", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x01, 0x05, 0x00, 0x06}},
		{"repeated param key", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x05, 0x00, 0x06}},
		{"null param", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x05, 0x01, 0xf6}},
		{"unknown param key", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa3, 0x00, 0x05, 0x01, 0x06, 0x07, 0x00}},
		{"x past i32", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x1a, 0x80, 0, 0, 0, 0x01, 0x06}},
		{"x below i32", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x3a, 0x80, 0, 0, 0, 0x01, 0x06}},
		{"negative u32", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x06, 0x03, 0xa1, 0x00, 0x20}},
		{"missing y", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa1, 0x00, 0x05}},
		{"indefinite params", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xbf, 0x00, 0x05, 0x01, 0x06, 0xff}},
		{"trailing byte", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x05, 0x01, 0x06, 0x00}},
		{"truncated", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x05, 0x01}},
		{"deadline key missing", []byte{0xa5, 0x00, 0x02, 0x01, 0x07, 0x02, 0x03, 0x03, 0xa2, 0x00, 0x05, 0x01, 0x06, 0x05, 0x01}},
		{"unknown method", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x18, 0x63, 0x03, 0xa0}},
		{"type_text", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x07, 0x03, 0xa1, 0x00, 0x61, 0x61}},
		{"evict of text", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x01, 0x03, 0xa1, 0x04, 0x81, 0x61, 0x61}},
		{"evict_event_less null", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x01, 0x03, 0xa2, 0x03, 0xf6, 0x04, 0x80}},
		{"snapshot pairs miscounted", []byte{0xa4, 0x00, 0x02, 0x01, 0x07, 0x02, 0x01, 0x03, 0xa2, 0x04, 0x80, 0x05, 0x00}},
	} {
		if _, ok := decodeRequestFast(c.b); ok {
			t.Errorf("%s: fast path taken for % x", c.name, c.b)
		}
		decodeBoth(t, c.b)
	}
}

// FuzzFastPaths: on any input the fast paths and the general decoder
// agree: the same message, or the same error.
func FuzzFastPaths(f *testing.F) {
	for _, b := range goldenBins(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { decodeBoth(t, b) })
}
