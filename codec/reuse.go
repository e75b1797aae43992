package codec

import (
	"unsafe"

	"github.com/wirebench/wirebench/codec/schema"
)

// defaultMaxRetained is the most memory a Decoder keeps between calls
// when NewDecoder is given no other bound: 4 MiB, what a snapshot of
// about 15 000 nodes of an app needs.
const defaultMaxRetained = 4 << 20

// Decoder decodes messages into memory it keeps and reuses from call to
// call: the copy of its input, the nodes and scroll semantics of a
// snapshot, the string table, a bounds result's entries, the u32 arrays
// and the message itself (a response, a tree event, a request of each
// method with its params). It is the form a daemon's read loop wants: in
// steady state, a stream of responses, tree events and requests costs
// no allocation. Other messages (hello, the other events) allocate as
// Decode does, and what they hold beyond that lives in the reused
// input's copy.
//
// What Decode returns, and every string, slice and pointer in it, is
// valid until the next call to Decode, which overwrites it: a caller
// that keeps a message, or part of it, past that copies it first (or
// uses the package-level Decode, whose messages own their memory). Like
// Decode's, the message never points into b, so b may be released at
// once. Under the wirebench_poison build tag (make test-poison), each
// call overwrites the memory of the message before it with 0xDB bytes
// (strings) and 0xDBDBDBDB words (ids, bounds, flags, sequence numbers)
// and decodes into fresh memory, so that a message used after the next
// call reads garbage that tests can see.
//
// A Decoder keeps at most the bound given to NewDecoder between calls:
// after a message whose memory passes it, it lets go of all it held,
// and the next message is decoded into new memory, as Decode would. A
// huge frame thus costs its memory once and is not pinned for ever. What
// it allocates for one message follows the same rules as Decode's (see
// Guarantees in the package doc): memory reserved from what an earlier
// message taught is capped by the bytes of the message at hand.
//
// A Decoder is not safe for concurrent use; its zero value is not ready
// for use.
type Decoder struct {
	d decoder
	r reuse
}

// NewDecoder returns a Decoder that keeps at most maxRetained bytes
// between calls; 4 MiB when maxRetained <= 0.
func NewDecoder(maxRetained int) *Decoder {
	if maxRetained <= 0 {
		maxRetained = defaultMaxRetained
	}
	dec := &Decoder{r: reuse{max: maxRetained}}
	dec.d.r = &dec.r
	return dec
}

// Decode decodes one message from b, which must hold exactly one CBOR
// item, as the package-level Decode does, into the Decoder's memory: the
// message is valid until the next call.
func (dec *Decoder) Decode(b []byte) (Message, error) {
	r := &dec.r
	if poisonReleased {
		r.poison()
	}
	r.u32s = r.u32s[:0]
	if fastPaths {
		// Decode's canonical request reader, into the kept requests.
		if requestHead(b) {
			if m := decodeRequestCanonical(b, r); m != nil {
				return m, nil
			}
		}
		if seq, t, f, ok := treeEventFields(b); ok {
			e := r.treeEvent(t, f)
			e.Stream, e.Seq, e.Type = StreamTree, seq, t
			return e, nil
		}
	}
	return dec.d.run(b, true)
}

// Retained returns the bytes of memory the Decoder keeps for the next
// call: its input copy, node and scroll slabs, string table, bounds
// entries and u32 arrays (the message structs, a few hundred bytes
// each, are not counted).
func (dec *Decoder) Retained() int { return dec.r.retained() }

// reuse is the memory a Decoder keeps between calls.
type reuse struct {
	max int // the most retained() may be after a call

	in []byte // the last input's copy

	// The node slab, the nodes of it the last snapshot took (to be
	// cleared before they are handed out again) and how many nodes that
	// snapshot took in all; scrolls likewise.
	slab                     []Node
	nodesUsed, wantNodes     int
	scrolls                  []Scroll
	scrollsUsed, wantScrolls int
	inSnapshot               bool // a snapshot took from the slabs in this call

	strs           []string // the string table
	snap           *snapshotResponse
	responses      [int(MethodDeviceInfo) + 1]any // *with[Response, R], one per result type R
	responseHeads  [int(MethodDeviceInfo) + 1]*Response
	boundsNodes    []NodeBounds
	windowChanged  *with[Event, WindowChanged]
	contentChanged *with[Event, ContentChanged]

	// The kept requests, one a method, by method id ([0] for the
	// unknown methods), and the u32 arrays of this call's message
	// (snapshot's evict, bounds' nodes): what they took of u32s is its
	// length.
	requests [int(MethodDeviceInfo) + 1]keptRequest
	u32s     []uint32
}

// keptRequest is a request a Decoder keeps, allocated with its params
// (methods[m].newRequest), and those params: the request's Params is
// set back to them at each reuse, whatever a caller set it to.
type keptRequest struct {
	head   *Request
	params Params // nil for an unknown method
}

// Sizes of what retained counts.
const (
	nodeSize   = int(unsafe.Sizeof(Node{}))
	scrollSize = int(unsafe.Sizeof(Scroll{}))
	stringSize = int(unsafe.Sizeof(""))
)

func (r *reuse) retained() int {
	return cap(r.in) + cap(r.slab)*nodeSize + cap(r.scrolls)*scrollSize + cap(r.strs)*stringSize + cap(r.boundsNodes)*int(unsafe.Sizeof(NodeBounds{})) + cap(r.u32s)*4
}

// trim lets go of everything kept once it passes the bound.
func (r *reuse) trim() {
	if r.retained() > r.max {
		r.in, r.strs, r.boundsNodes, r.u32s = nil, nil, nil, nil
		r.slab, r.nodesUsed, r.wantNodes = nil, 0, 0
		r.scrolls, r.scrollsUsed, r.wantScrolls = nil, 0, 0
	}
}

// input returns a copy of src in the kept buffer.
func (r *reuse) input(src []byte) []byte {
	if cap(r.in) < len(src) {
		r.in = make([]byte, 0, len(src))
	}
	r.in = append(r.in[:0], src...)
	return r.in
}

// startSnapshot hands the kept slabs to d at the start of a snapshot,
// cleared of the last snapshot's nodes and scrolls. When the last
// snapshot took more than they hold, a slab for as many (with 1/16 to
// spare) is reserved instead, only when it fits in the bound, and never
// for more than the bytes left can hold at their least bytes: so the
// steady state of a stream of like snapshots reserves nothing, and a
// frame costs at most a node per schema.MinNodeLen of its bytes for what an
// earlier one taught.
func (r *reuse) startSnapshot(d *decoder) {
	if r.inSnapshot {
		// A repeated result key: the nodes of the snapshot read first
		// are cleared too.
		r.takeBack(d)
	}
	r.inSnapshot = true
	clear(r.slab[:r.nodesUsed])
	clear(r.scrolls[:r.scrollsUsed])
	r.nodesUsed, r.scrollsUsed = 0, 0
	left := d.Len()
	if want := min(r.wantNodes+r.wantNodes/16, left/schema.MinNodeLen+1); cap(r.slab) < want && want*nodeSize <= r.max && d.afford(want*nodeSize) == nil {
		r.slab = make([]Node, 0, want)
	}
	if want := min(r.wantScrolls+r.wantScrolls/16, left/minScrollLen+1); cap(r.scrolls) < want && want*scrollSize <= r.max && d.afford(want*scrollSize) == nil {
		r.scrolls = make([]Scroll, 0, want)
	}
	d.slab, d.scrolls = r.slab[:0], r.scrolls[:0]
}

// end takes back from d, at the end of a call, the slabs of the
// snapshot it read: the last chunk of each (the kept one, or one made
// since), with how much of it was handed out and how many the snapshot
// took in all.
func (r *reuse) end(d *decoder) {
	if r.inSnapshot {
		r.inSnapshot = false
		r.takeBack(d)
	}
	r.trim()
}

// takeBack keeps the last chunks of d's slabs, what of them d handed
// out, and how many nodes and scrolls d's snapshot took in all.
func (r *reuse) takeBack(d *decoder) {
	r.slab, r.nodesUsed, r.wantNodes = d.slab[:0], len(d.slab), d.nodesTaken
	r.scrolls, r.scrollsUsed, r.wantScrolls = d.scrolls[:0], len(d.scrolls), d.scrollsTaken
}

// roomIn returns an empty slice with room for n: kept's memory when it
// has the room, else a new slice that kept keeps from then on.
func roomIn[T any](kept *[]T, n int) []T {
	if cap(*kept) < n {
		*kept = make([]T, 0, n)
	}
	return (*kept)[:0]
}

// stringsRoom returns an empty string slice with room for n.
func (d *decoder) stringsRoom(n int) []string {
	if d.r == nil {
		return make([]string, 0, n)
	}
	return roomIn(&d.r.strs, n)
}

// snapshotResponse returns the kept snapshot response, zeroed.
func (r *reuse) snapshotResponse() *snapshotResponse {
	if r.snap == nil {
		r.snap = new(snapshotResponse)
	} else {
		*r.snap = snapshotResponse{}
	}
	return r.snap
}

// keptResponse returns r's kept response with a result of type R,
// zeroed.
func keptResponse[R any](r *reuse) *with[Response, R] {
	for i, a := range r.responses {
		if x, ok := a.(*with[Response, R]); ok {
			*x = with[Response, R]{}
			return x
		} else if a == nil {
			x = new(with[Response, R])
			r.responses[i], r.responseHeads[i] = x, &x.head
			return x
		}
	}
	return new(with[Response, R]) // more result types than slots: not kept
}

// request returns the kept request of method m with its params, reset
// to a request of m with nothing else set: the params keep the last
// request's values, for the caller to overwrite whole (decodeFrom resets
// them, the fast path writes every field).
func (r *reuse) request(m Method) *Request {
	k := &r.requests[0]
	if m.Known() {
		k = &r.requests[m]
	}
	if k.head == nil {
		k.make(m)
	}
	*k.head = Request{Method: m, Params: k.params}
	return k.head
}

// make allocates k's request, of method m, and its params, once.
//
//go:noinline
func (k *keptRequest) make(m Method) {
	k.head = newRequest(m)
	k.params = k.head.Params
}

// u32Room returns an empty slice with room for n u32s, for an array of
// this call's message: after the arrays it took before, in the kept
// memory when it has the room, else in new memory that is kept from then
// on (room for all of this call's arrays, and at least twice the last
// room: a message of many arrays, a repeated key, costs no more than
// twice their total). The caller marks what it filled as taken with
// u32Taken; its cap is n, so that an array that grows past n moves out
// and never writes over another.
func (r *reuse) u32Room(n int) []uint32 {
	if n == 0 {
		return []uint32{} // non-nil, as Decode's
	}
	used := len(r.u32s)
	if cap(r.u32s)-used < n {
		r.u32s = make([]uint32, used, max(used+n, 2*cap(r.u32s)))
	}
	return r.u32s[used : used : used+n]
}

// u32Taken marks a, filled from u32Room(n), as taken from the kept
// memory, unless it outgrew it.
func (r *reuse) u32Taken(a []uint32, n int) {
	if len(a) <= n {
		r.u32s = r.u32s[:len(r.u32s)+len(a)]
	}
}

// boundsRoom returns an empty NodeBounds slice with room for n.
func (d *decoder) boundsRoom(n int) []NodeBounds {
	if d.r == nil {
		return make([]NodeBounds, 0, n)
	}
	return roomIn(&d.r.boundsNodes, n)
}

// treeEvent returns the kept tree event of type t with body fields f;
// the caller sets its stream, seq and type.
func (r *reuse) treeEvent(t EventType, f [3]uint32) *Event {
	if t == TypeWindowChanged {
		x := r.windowChanged
		if x == nil {
			x = new(with[Event, WindowChanged])
			x.head.Body = &x.body
			r.windowChanged = x
		}
		x.body = WindowChanged{Window: f[0], Change: f[1]}
		return &x.head
	}
	x := r.contentChanged
	if x == nil {
		x = new(with[Event, ContentChanged])
		x.head.Body = &x.body
		r.contentChanged = x
	}
	x.body = ContentChanged{Window: f[0], Node: f[1], Change: f[2]}
	return &x.head
}

// The poison of a message used after the next call.
const (
	poisonByte = 0xDB
	poison32   = 0xDBDBDBDB
	poison64   = 0xDBDBDBDBDBDBDBDB
)

// poison overwrites the memory of the last message, under the
// wirebench_poison build tag, and lets go of it all, so that the next
// message is decoded into fresh memory and the last one keeps its
// garbage. Only words without pointers are overwritten: strings keep
// pointing into the input's copy, whose bytes are poisoned.
func (r *reuse) poison() {
	full := r.in[:cap(r.in)]
	for i := range full {
		full[i] = poisonByte
	}
	nodes := r.slab[:r.nodesUsed]
	for i := range nodes {
		n := &nodes[i]
		n.ID, n.Class, n.Flags = poison32, poison32, poison32
		n.Bounds = Bounds{poison32 - 1<<32, poison32 - 1<<32, poison32 - 1<<32, poison32 - 1<<32}
	}
	scrolls := r.scrolls[:r.scrollsUsed]
	for i := range scrolls {
		s := &scrolls[i]
		s.Axis, s.Flags = poison32, poison32
	}
	if x := r.snap; x != nil {
		x.r.ID, x.s.Seq, x.s.Truncated = poison64, poison64, poison32
		for i := range x.wins {
			x.wins[i].ID, x.wins[i].Flags = poison32, poison32
		}
	}
	for _, h := range r.responseHeads {
		if h != nil {
			h.ID = poison64
		}
	}
	bounds := r.boundsNodes[:cap(r.boundsNodes)]
	for i := range bounds {
		bounds[i].Node = poison32
	}
	if x := r.windowChanged; x != nil {
		x.head.Seq, x.body = poison64, WindowChanged{poison32, poison32}
	}
	if x := r.contentChanged; x != nil {
		x.head.Seq, x.body = poison64, ContentChanged{poison32, poison32, poison32}
	}
	for _, k := range r.requests {
		if k.head != nil {
			k.head.ID, k.head.DeadlineMS.Val = poison64, poison32
			poisonParams(k.params)
		}
	}
	u32s := r.u32s[:cap(r.u32s)]
	for i := range u32s {
		u32s[i] = poison32
	}
	*r = reuse{max: r.max}
}

// poisonI32 is poison32 as an int32.
const poisonI32 = poison32 - 1<<32

// poisonParams overwrites the integers of a kept request's params; their
// arrays are the u32s and their texts the input's copy, poisoned apart.
func poisonParams(p Params) {
	o := Opt[uint32]{Val: poison32, Ok: true}
	switch p := p.(type) {
	case *SnapshotParams:
		p.MaxDepth, p.MaxNodes, p.MaxWindows = o, o, o
	case *TapParams:
		*p = TapParams{poisonI32, poisonI32}
	case *LongPressParams:
		*p = LongPressParams{poisonI32, poisonI32, poison32}
	case *SwipeParams:
		*p = SwipeParams{poisonI32, poisonI32, poisonI32, poisonI32, poison32, o}
	case *KeyParams:
		*p = KeyParams{poison32, o}
	case *SetTextParams:
		p.Node = poison32
	case *ScreenshotParams:
		*p = ScreenshotParams{o, o, o}
	case *FramesStartParams:
		*p = FramesStartParams{o, o, o}
	case *ResyncParams:
		p.Stream = poison32
	}
}
