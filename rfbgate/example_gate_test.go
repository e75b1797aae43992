package rfbgate_test

import (
	"fmt"

	"github.com/wirebench/wirebench/rfbgate"
)

// A Gate alone, on one viewer's client stream: what a watcher sends to
// see the screen passes, its input does not; the holder's input passes,
// and when the keyboard goes the keys it holds are let go.
func ExampleGate() {
	updateRequest := []byte{3, 1, 0, 0, 0, 0, 0x04, 0x38, 0x09, 0x60} // FramebufferUpdateRequest, incremental, 1080×2400
	keyDown := []byte{4, 1, 0, 0, 0x00, 0x00, 0x00, 0x61}             // KeyEvent: "a" down
	click := []byte{5, 1, 0x00, 0x64, 0x00, 0xc8}                     // PointerEvent: button 1 at (100, 200)
	stream := append(append(append([]byte{}, updateRequest...), keyDown...), click...)

	g := rfbgate.NewGate(rfbgate.Limits{})
	out, err := g.Feed(nil, stream) // a watcher: no keyboard
	fmt.Printf("watcher: % x (%v)\n", out, err)

	g.SetKeyboard(true)
	out, _ = g.Feed(nil, stream)
	fmt.Printf("holder:  % x\n", out)

	g.SetKeyboard(false) // the keyboard is taken away
	out = g.Release(nil)
	fmt.Printf("release: % x\n", out)
	// Output:
	// watcher: 03 01 00 00 00 00 04 38 09 60 (<nil>)
	// holder:  03 01 00 00 00 00 04 38 09 60 04 01 00 00 00 00 00 61 05 01 00 64 00 c8
	// release: 04 00 00 00 00 00 00 61 05 00 00 64 00 c8
}
