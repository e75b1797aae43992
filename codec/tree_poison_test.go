//go:build wirebench_poison

package codec_test

import (
	"strings"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// TestTreeDecoderPoisonsTheLastTree: under the wirebench_poison tag, a
// text read from a TreeDecoder's tree and used after the next call reads
// 0xDB bytes.
func TestTreeDecoderPoisonsTheLastTree(t *testing.T) {
	b := mustMarshal(t, &codec.Response{ID: 99, Method: codec.MethodSnapshot, Result: treeSnapshot()})
	td := codec.NewTreeDecoder(0)
	tr, err := td.DecodeTree(b)
	if err != nil {
		t.Fatal(err)
	}
	root := tr.Window(0).Root.Val
	text, _ := tr.Text(root, schema.KeyNodeText)
	title := tr.WindowTitle(0).Val
	if text != "héllo" || title != "Title" {
		t.Fatalf("read %q %q", text, title)
	}
	if _, err := td.DecodeTree(b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{text, title} {
		if s != strings.Repeat("\xdb", len(s)) {
			t.Errorf("a text of the last tree reads %q after the next call", s)
		}
	}
}
