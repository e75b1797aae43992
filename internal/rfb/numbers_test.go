package rfb

import "testing"

func TestEncodingString(t *testing.T) {
	for e, want := range map[Encoding]string{EncodingTight: "Tight", EncodingLastRect: "LastRect", -26: "-26", EncodingVMwareCursor: "VMwareCursor"} {
		if got := e.String(); got != want {
			t.Errorf("Encoding(%d).String() = %q, want %q", int32(e), got, want)
		}
	}
	for _, e := range []Encoding{EncodingRaw, EncodingCopyRect, EncodingTight, EncodingZRLE} {
		if !e.Pixel() {
			t.Errorf("%v.Pixel() = false", e)
		}
	}
	if EncodingDesktopSize.Pixel() || EncodingTightPNG.Pixel() {
		t.Error("a pseudo-encoding (or TightPNG) is not a pixel encoding here")
	}
}
