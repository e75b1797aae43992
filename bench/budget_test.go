//go:build !race

// Allocation counts. Left out of race builds: the race detector adds
// allocations of its own and makes sync.Pool drop items at random, so a
// count taken there means nothing. make test runs them in the plain run.

package bench

import (
	"bytes"
	"io"
	"slices"
	"testing"

	"github.com/wirebench/wirebench/bench/support"
	"github.com/wirebench/wirebench/bench/twins"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// Allocation budgets, as tests rather than benchmarks so that `go test`
// fails when they break: encoding into a buffer with room allocates
// nothing, and neither does a pooled frame read of a steady stream.

// budgetRuns is how many times AllocsPerRun repeats an operation on a
// message of n encoded bytes: fewer for the large ones, to stay quick.
func budgetRuns(n int) int {
	if n > 64<<10 {
		return 20
	}
	return 200
}

// allocsIn returns the allocations of runs calls of op in all, after a
// warm-up of as many: testing.AllocsPerRun of one run of the loop, so that
// an allocation once in a while counts too (AllocsPerRun rounds the
// average down). The count is process-wide, and the runtime allocates
// for itself now and then (a GC cycle landing in the loop), so it is the
// least of three measurements: an allocation of op's own shows in all
// three, a stray one of the runtime's does not.
func allocsIn(runs int, op func()) float64 {
	least := -1.0
	for range 3 {
		got := testing.AllocsPerRun(1, func() {
			for i := 0; i < runs; i++ {
				op()
			}
		})
		if least < 0 || got < least {
			least = got
		}
		if least == 0 {
			break
		}
	}
	return least
}

func TestEncodeAllocatesNothing(t *testing.T) {
	for _, bm := range allMessages(t) {
		buf := make([]byte, 0, 2*len(bm.enc)+64)
		var err error
		runs := budgetRuns(len(bm.enc))
		got := allocsIn(runs, func() {
			buf, err = codec.Append(buf[:0], bm.msg)
		})
		if err != nil || !bytes.Equal(buf, bm.enc) {
			t.Fatalf("%s: Append: %v, or other bytes than Marshal", bm.name, err)
		}
		if got != 0 {
			t.Errorf("%s: Append into a buffer with room allocates %v times in %d runs", bm.name, got, runs)
		}
		got = allocsIn(runs, func() {
			buf, err = codec.AppendFrame(buf[:0], bm.msg, schema.DefaultMaxFrame)
		})
		if err != nil || !bytes.Equal(buf[schema.HeaderLen:], bm.enc) {
			t.Fatalf("%s: AppendFrame: %v, or another payload", bm.name, err)
		}
		if got != 0 {
			t.Errorf("%s: AppendFrame into a buffer with room allocates %v times in %d runs", bm.name, got, runs)
		}
	}
}

func TestWriterAllocatesNothing(t *testing.T) {
	w := codec.NewWriter(io.Discard, schema.DefaultMaxFrame)
	for _, bm := range allMessages(t) {
		var err error
		// The writer's first message of a size grows its kept buffer;
		// AllocsPerRun's warm-up call takes that.
		runs := budgetRuns(len(bm.enc))
		got := allocsIn(runs, func() { err = w.WriteMessage(bm.msg) })
		if err != nil {
			t.Fatalf("%s: WriteMessage: %v", bm.name, err)
		}
		if got != 0 {
			t.Errorf("%s: Writer.WriteMessage in steady state allocates %v times in %d runs", bm.name, got, runs)
		}
	}
}

func TestPooledFrameReadAllocatesNothing(t *testing.T) {
	var frames []benchMsg // enc holds the frame here
	for _, bm := range benchMessages(t) {
		f, err := codec.AppendFrame(nil, bm.msg, schema.DefaultMaxFrame)
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, benchMsg{bm.name, bm.msg, f})
	}
	// Largest first, as in BenchmarkFrame: see poolCalibration.
	slices.SortStableFunc(frames, func(a, b benchMsg) int { return len(b.enc) - len(a.enc) })
	for _, fm := range frames {
		r := codec.NewReader(&loopReader{b: steadyStream(fm.enc)}, schema.DefaultMaxFrame)
		next := func() {
			fr, err := r.Next()
			if err != nil || len(fr.Payload) != len(fm.enc)-schema.HeaderLen {
				t.Fatalf("%s: Next: %v, or a payload of %d bytes", fm.name, err, len(fr.Payload))
			}
			fr.Release()
		}
		for i := 0; i < 500; i++ {
			next()
		}
		runs := budgetRuns(len(fm.enc))
		got := allocsIn(runs, next)
		if got != 0 {
			// The pool calibrated itself to other sizes before (a long
			// run of small frames, a -count above 6): a steady stream of
			// this size recalibrates it. Slow, so only when needed.
			t.Logf("%s: %v allocations in %d frames before the pool recalibrated to %d-byte frames", fm.name, got, runs, len(fm.enc))
			for i := 0; i < poolCalibration; i++ {
				next()
			}
			got = allocsIn(runs, next)
		}
		if got != 0 {
			t.Errorf("%s: Reader.Next and Release of a steady stream of %d-byte frames allocate %v times in %d frames", fm.name, len(fm.enc), got, runs)
		}
	}
}

// poolCalibration is one more than bytebufferpool's calibrateCallsThreshold.
// The codec's frame pool recalibrates once one size class has seen that
// many releases since the last calibration, and from then on keeps only
// buffers of the size classes of 95 % of the releases: after a long run
// of small frames, every large frame's buffer is made anew and dropped on
// release until poolCalibration large frames have passed. Before its first
// calibration the pool keeps every buffer.
const poolCalibration = 42001

func TestOversizedFrameRead(t *testing.T) {
	// Not a zero budget: the *FrameTooLargeError is one allocation. Recorded,
	// and bounded so that the discard itself allocates nothing.
	big, err := codec.AppendFrame(nil, support.ScreenshotResponse(support.ScreenshotFrameLen, support.Seed), schema.DefaultMaxFrame)
	if err != nil {
		t.Fatal(err)
	}
	bm := benchMessages(t)[0]
	next, err := codec.AppendFrame(nil, bm.msg, schema.DefaultMaxFrame)
	if err != nil {
		t.Fatal(err)
	}
	r := codec.NewReader(&loopReader{b: append(big, next...)}, 64<<10)
	pair := func() {
		if _, err := r.Next(); err == nil {
			t.Fatal("the oversized frame was read")
		} else if _, ok := err.(*codec.FrameTooLargeError); !ok {
			t.Fatalf("Next: %v, want a *FrameTooLargeError", err)
		}
		f, err := r.Next()
		if err != nil || !bytes.Equal(f.Payload, bm.enc) {
			t.Fatalf("Next after the oversized frame: %v, or another payload", err)
		}
		f.Release()
	}
	pair()
	got := allocsIn(20, pair) / 20
	t.Logf("discarding a 256 KiB frame over the limit and reading the next: %v allocations", got)
	if got > 1 {
		t.Errorf("discarding an oversized frame and reading the next allocate %v times, want at most 1 (the error)", got)
	}
}

// TestDecodeAllocationBudgets: the budgets of issue 4 for decoding a
// message that owns its memory: a tap at most 2 allocations, a 500-node
// snapshot at most 4 (fxamacker needs 3 and about 2 200). The decoder
// state is pooled and learns the size of the snapshots it reads (see
// codec/slab.go), so the count is taken in steady state, the least of
// three measurements (see allocsIn).
func TestDecodeAllocationBudgets(t *testing.T) {
	budgets := map[string]float64{"request_tap": 2, "request_snapshot": 2, "event_content_changed": 2, "response_snapshot_500": 4}
	for _, bm := range benchMessages(t) {
		budget, ok := budgets[bm.name]
		if !ok {
			continue
		}
		delete(budgets, bm.name)
		tc, err := twins.New(bm.msg)
		if err != nil {
			t.Fatal(err)
		}
		decode := func() {
			if _, err := codec.Decode(bm.enc); err != nil {
				t.Fatal(err)
			}
		}
		decode()
		ours := allocsIn(1, decode)
		theirs := testing.AllocsPerRun(20, func() {
			if _, _, err := tc.DecodeCBOR(bm.enc); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("decode %s (%d bytes): codec %v allocations, fxamacker %v", bm.name, len(bm.enc), ours, theirs)
		if ours > budget {
			t.Errorf("decode %s allocates %v times, budget %v", bm.name, ours, budget)
		}
	}
	if len(budgets) > 0 {
		t.Errorf("no benchmark message for the budgets of %v", budgets)
	}
}

// TestDecoderAllocationBudgets: a codec.Decoder, which reuses its memory
// and its message from call to call, reads the snapshots, the tree event
// and the requests of the benchmarks without an allocation in steady
// state.
func TestDecoderAllocationBudgets(t *testing.T) {
	budgets := map[string]float64{"event_content_changed": 0, "response_snapshot_500": 0, "response_snapshot_5000": 0, "request_tap": 0, "request_snapshot": 0}
	dec := codec.NewDecoder(0)
	for _, bm := range benchMessages(t) {
		budget, ok := budgets[bm.name]
		if !ok {
			continue
		}
		delete(budgets, bm.name)
		decode := func() {
			if _, err := dec.Decode(bm.enc); err != nil {
				t.Fatal(err)
			}
		}
		decode()
		decode()
		if got := allocsIn(budgetRuns(len(bm.enc)), decode) / float64(budgetRuns(len(bm.enc))); got > budget {
			t.Errorf("a Decoder's decode of %s allocates %v times, budget %v", bm.name, got, budget)
		}
	}
	if len(budgets) > 0 {
		t.Errorf("no benchmark message for the budgets of %v", budgets)
	}
}

// TestZerocopyDecodeAllocs: the zerocopy decode of every benchmark message
// a view applies to allocates nothing.
func TestZerocopyDecodeAllocs(t *testing.T) {
	n := 0
	for _, bm := range benchMessages(t) {
		run := zerocopyDecoder(t, bm)
		if run == nil {
			continue
		}
		n++
		if a := testing.AllocsPerRun(5, func() {
			if err := run(); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%s: %v allocations", bm.name, a)
		}
	}
	if n < 4 {
		t.Errorf("%d messages decoded by the views", n)
	}
}
