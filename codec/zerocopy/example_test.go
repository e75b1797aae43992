package zerocopy_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
	"github.com/wirebench/wirebench/codec/zerocopy"
)

// Parse validates a snapshot response in place, and a Walker visits its
// windows and nodes: nothing is decoded into Go values, and the strings
// borrow the frame until its Release.
func ExampleSnapshot_Parse() {
	var stream bytes.Buffer // stands in for the agent's connection
	snap := &codec.Snapshot{
		Strings: []string{"android.widget.FrameLayout", "android.widget.Button", "com.example.app"},
		Windows: []codec.Window{{ID: 3, Type: 1, Package: codec.Some[uint32](2), Root: &codec.Node{
			ID: 1, Class: 0, Bounds: codec.Bounds{Right: 1080, Bottom: 2400},
			Children: []codec.Node{
				{ID: 2, Class: 1, Text: "OK", Flags: schema.NodeClickable, Bounds: codec.Bounds{Left: 40, Top: 2200, Right: 520, Bottom: 2340}},
				{ID: 3, Class: 1, Text: "Cancel", Flags: schema.NodeClickable, Bounds: codec.Bounds{Left: 560, Top: 2200, Right: 1040, Bottom: 2340}},
			},
		}}},
	}
	if err := codec.NewWriter(&stream, schema.DefaultMaxFrame).WriteMessage(&codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: snap}); err != nil {
		panic(err)
	}

	f, err := codec.NewReader(&stream, schema.DefaultMaxFrame).Next()
	if err != nil {
		panic(err)
	}
	defer f.Release() // the views below are valid until here

	var v zerocopy.Snapshot
	if err := v.Parse(f.Payload); err != nil { // validates everything once
		panic(err)
	}
	var w zerocopy.Walker
	for w.Reset(&v); w.Next(); {
		n := w.Node()
		if n == nil { // at a window
			pkg, _ := v.String(w.Window().Package.Val)
			fmt.Printf("window %d (%s)\n", w.Window().ID, pkg)
			continue
		}
		text, _ := n.Text.Get()
		fmt.Printf("%s%d %s %q clickable=%v\n", strings.Repeat("  ", w.Depth()), n.ID, n.ClassName, text, n.Flags&schema.NodeClickable != 0)
	}
	fmt.Println(v.NumNodes(), "nodes")
	// Output:
	// window 3 (com.example.app)
	//   1 android.widget.FrameLayout "" clickable=false
	//     2 android.widget.Button "OK" clickable=true
	//     3 android.widget.Button "Cancel" clickable=true
	// 3 nodes
}
