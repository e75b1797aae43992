//go:build !race

package jpegenc

import (
	"fmt"
	"testing"
)

// TestAppendAllocs: once warm (the backend's state made, dst grown to the
// largest JPEG), Append allocates nothing, whatever the size and with the
// quality changing from call to call.
func TestAppendAllocs(t *testing.T) {
	const W, H = 2100, 300
	pix := screen("photo", W, H, 2)
	for _, sz := range [][2]int{{1, 1}, {7, 9}, {256, 256}, {2048, 32}} {
		w, h := sz[0], sz[1]
		var e Encoder
		var dst []byte
		encode := func() {
			for _, q := range benchQualities {
				var err error
				if dst, err = e.Append(dst[:0], pix, 4*W, w, h, q); err != nil {
					t.Fatal(err)
				}
			}
		}
		encode() // warm-up
		if a := testing.AllocsPerRun(5, encode); a != 0 {
			t.Errorf("%s %dx%d: %.1f allocations for %d pictures, want 0", Backend, w, h, a, len(benchQualities))
		}
	}
	if testing.Verbose() {
		fmt.Printf("%s backend: 0 allocations a picture once warm\n", Backend)
	}
}
