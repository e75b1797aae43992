package rfbgate

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// FuzzParser feeds arbitrary bytes through the gate in random short reads
// (sizes from seed), with the keyboard flipping when flips says so. It must
// never panic, must decide the same as a one-shot feed, and what it forwards
// must parse again without error.
func FuzzParser(f *testing.F) {
	f.Add(append(append([]byte{}, fbur...), keyEvent(true, 0x61)...), uint64(1), uint8(0))
	f.Add(cutText(-8, []byte{0, 0, 0, 1, 'a', 'b', 'c', 'd'}), uint64(2), uint8(3))
	f.Add(setEncodings(16, -316, -258), uint64(3), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, flips uint8) {
		lim := Limits{MaxCutText: 64, MaxEncodings: 16, MaxHeldKeys: 4}
		for _, kbd := range []bool{false, true} {
			want, wantErr := feedAll(t, lim, kbd, data, 0)
			r := rand.New(rand.NewPCG(seed, uint64(len(data))))
			g := NewGate(lim)
			g.SetKeyboard(kbd)
			var got []byte
			var err error
			for in := data; len(in) > 0 && err == nil; {
				n := min(1+r.IntN(9), len(in))
				got, err = g.Feed(got, in[:n])
				in = in[n:]
			}
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("kbd=%v: short reads gave error %v, one read %v", kbd, err, wantErr)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("kbd=%v: short reads forwarded %x, one read %x", kbd, got, want)
			}
			if _, err := feedAll(t, lim, true, got, 0); err != nil {
				t.Fatalf("kbd=%v: forwarded bytes do not parse: %v", kbd, err)
			}
			// Lease flips at random points: never a panic, and the forwarded
			// stream (releases included) still parses message by message.
			g = NewGate(lim)
			got = got[:0]
			for in, i := data, 0; len(in) > 0; i++ {
				if flips&(1<<(i%8)) != 0 {
					g.SetKeyboard(!g.HasKeyboard())
					if !g.HasKeyboard() {
						got = g.Release(got)
					}
				}
				n := min(1+r.IntN(9), len(in))
				if got, err = g.Feed(got, in[:n]); err != nil {
					break
				}
				in = in[n:]
			}
			if _, err := feedAll(t, lim, true, got, 0); err != nil {
				t.Fatalf("flipping: forwarded bytes do not parse: %v", err)
			}
		}
	})
}
