package zerocopy

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/wirebench/wirebench/codec/cbor"
)

// TestSnapshotVariants: encodings of a snapshot that the canonical
// encoder never writes, which the fast paths leave to the general ones
// (or which make a tree unfit for the node table), read as the codec
// reads them, by a fresh view and by a reused one (checkSnapshot).
func TestSnapshotVariants(t *testing.T) {
	root, err := cbor.DecodeValue(snapshotPayload(t, 150, 7))
	if err != nil {
		t.Fatal(err)
	}
	text := func(s string) cbor.Value { return cbor.Value{Kind: cbor.KindText, Text: s} }
	uint_ := func(u uint64) cbor.Value { return cbor.Value{Kind: cbor.KindUint, Uint: u} }
	null := cbor.Value{Kind: cbor.KindNull}
	variants := []struct {
		name   string
		node   func(pairs []cbor.Value) []cbor.Value // the pairs of a node map
		all    func(m *cbor.Value)                   // every map
		indef  bool
		wide   bool
		tables int  // the least number of trees that keep to the node table
		bad    bool // some trees do not
	}{
		{name: "canonical", tables: 2},
		{name: "reversed", all: func(m *cbor.Value) { reversePairs(m) }, tables: 2},
		{name: "children twice", node: func(p []cbor.Value) []cbor.Value {
			if k := pairIndex(p, 8); k >= 0 {
				first := cbor.Value{Kind: cbor.KindArray, Items: p[k+1].Items[:1]}
				p = slices.Insert(p, k, uint_(8), first)
			}
			return p
		}, bad: true},
		{name: "nulls first", node: func(p []cbor.Value) []cbor.Value {
			return append([]cbor.Value{uint_(4), null, uint_(9), null, uint_(11), null}, p...)
		}, tables: 2},
		{name: "null children first", node: func(p []cbor.Value) []cbor.Value {
			return append([]cbor.Value{uint_(8), null}, p...)
		}, bad: true},
		{name: "repeated text", node: func(p []cbor.Value) []cbor.Value {
			return append([]cbor.Value{uint_(4), text("first"), uint_(1), uint_(0)}, p...)
		}, tables: 2},
		{name: "unknown keys", node: func(p []cbor.Value) []cbor.Value {
			return append(p, uint_(20), text("x"), text("key"), cbor.Value{Kind: cbor.KindArray, Items: []cbor.Value{uint_(1)}})
		}, tables: 2},
		{name: "indefinite", indef: true, tables: 2},
		{name: "wide heads", wide: true, tables: 2},
	}
	for _, vr := range variants {
		r := cloneValue(root)
		if vr.all != nil {
			eachMap(&r, vr.all)
		}
		if vr.node != nil {
			eachNode(&r, func(m *cbor.Value) { m.Items = vr.node(m.Items) })
		}
		b := encodeValue(nil, r, vr.indef, vr.wide)
		if !checkSnapshot(t, vr.name, b) {
			t.Errorf("%s: not compared", vr.name)
			continue
		}
		v := reusedView(t, b)
		good, bad := 0, 0
		for i := 0; i < v.nRecs; i = int(v.recs[i].next) {
			if v.recs[i].depth != 1 || int(v.recs[i].next) <= i {
				t.Fatalf("%s: record %d is no root", vr.name, i)
			}
			if v.recs[i].bad {
				bad++
			} else {
				good++
			}
		}
		if good < vr.tables {
			t.Errorf("%s: %d trees in the node table, want %d at least", vr.name, good, vr.tables)
		}
		if (bad > 0) != vr.bad {
			t.Errorf("%s: %d trees the node table cannot describe", vr.name, bad)
		}
	}
}

func pairIndex(p []cbor.Value, k uint64) int {
	for i := 0; i+1 < len(p); i += 2 {
		if p[i].Kind == cbor.KindUint && p[i].Uint == k {
			return i
		}
	}
	return -1
}

func reversePairs(m *cbor.Value) {
	p := m.Items
	for i, j := 0, len(p)-2; i < j; i, j = i+2, j-2 {
		p[i], p[i+1], p[j], p[j+1] = p[j], p[j+1], p[i], p[i+1]
	}
}

func cloneValue(v cbor.Value) cbor.Value {
	if v.Items != nil {
		items := make([]cbor.Value, len(v.Items))
		for i := range v.Items {
			items[i] = cloneValue(v.Items[i])
		}
		v.Items = items
	}
	return v
}

func eachMap(v *cbor.Value, fn func(*cbor.Value)) {
	for i := range v.Items {
		eachMap(&v.Items[i], fn)
	}
	if v.Kind == cbor.KindMap {
		fn(v)
	}
}

// eachNode calls fn for every node map of a snapshot response, children
// before their parents.
func eachNode(resp *cbor.Value, fn func(*cbor.Value)) {
	var node func(*cbor.Value)
	node = func(m *cbor.Value) {
		if k := pairIndex(m.Items, 8); k >= 0 && m.Items[k+1].Kind == cbor.KindArray {
			for i := range m.Items[k+1].Items {
				node(&m.Items[k+1].Items[i])
			}
		}
		fn(m)
	}
	res := &resp.Items[pairIndex(resp.Items, 3)+1]
	wins := &res.Items[pairIndex(res.Items, 1)+1]
	for i := range wins.Items {
		if k := pairIndex(wins.Items[i].Items, 7); k >= 0 {
			node(&wins.Items[i].Items[k+1])
		}
	}
}

// encodeValue appends v with every array and map of indefinite length
// (indef), and every integer head four bytes long or more (wide).
func encodeValue(dst []byte, v cbor.Value, indef, wide bool) []byte {
	switch v.Kind {
	case cbor.KindUint, cbor.KindNegInt:
		if !wide {
			return cbor.AppendValue(dst, v)
		}
		m := byte(0)
		if v.Kind == cbor.KindNegInt {
			m = 0x20
		}
		if v.Uint > 0xffffffff {
			return binary.BigEndian.AppendUint64(append(dst, m|0x1b), v.Uint)
		}
		return binary.BigEndian.AppendUint32(append(dst, m|0x1a), uint32(v.Uint))
	case cbor.KindArray, cbor.KindMap:
		head, n := byte(0x80), len(v.Items)
		if v.Kind == cbor.KindMap {
			head, n = 0xa0, n/2
		}
		if indef {
			dst = append(dst, head|0x1f)
		} else {
			dst = cbor.AppendHead(dst, cbor.Major(head>>5), uint64(n))
		}
		for _, it := range v.Items {
			dst = encodeValue(dst, it, indef, wide)
		}
		if indef {
			dst = append(dst, cbor.Break)
		}
		return dst
	}
	return cbor.AppendValue(dst, v)
}
