package zerocopy

import (
	"testing"

	"github.com/wirebench/wirebench/codec"
)

func BenchmarkSnapshot500(b *testing.B) {
	p := snapshotPayload(b, 500, 1)
	b.Run("op=parse", func(b *testing.B) { benchParse(b, p, func(*Snapshot) {}) })
	var w Walker
	b.Run("op=parse+walk", func(b *testing.B) {
		benchParse(b, p, func(v *Snapshot) {
			var s uint64
			for w.Reset(v); w.Next(); {
				if n := w.Node(); n != nil {
					s += readNode(n)
				}
			}
			sink += s
		})
	})
	b.Run("op=codec.Decode", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := codec.Decode(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchParse parses p b.N times, calling then after each parse.
func benchParse(b *testing.B, p []byte, then func(*Snapshot)) {
	var v Snapshot
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := v.Parse(p); err != nil {
			b.Fatal(err)
		}
		then(&v)
	}
}

func BenchmarkRequestTap(b *testing.B) {
	p := goldenPayload(b, "request_tap.bin")
	b.Run("op=header", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Header(p)
		}
	})
	b.Run("op=parse", func(b *testing.B) {
		var r RequestView
		for i := 0; i < b.N; i++ {
			r.Parse(p)
		}
	})
	b.Run("op=parse+xy", func(b *testing.B) {
		var r RequestView
		for i := 0; i < b.N; i++ {
			r.Parse(p)
			x, _ := r.Params.Int32(0)
			y, _ := r.Params.Int32(1)
			sink += uint64(x + y)
		}
	})
	b.Run("op=codec.Decode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			codec.Decode(p)
		}
	})
}
