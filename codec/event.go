package codec

import (
	"slices"
	"strconv"

	"github.com/wirebench/wirebench/codec/cbor"
)

// Stream identifies an event stream.
type Stream uint32

// The streams of docs/protocol.md section 6.
const (
	StreamTree   Stream = 0 // lossless
	StreamFrames Stream = 1 // lossy
)

// String is the stream's protocol name, or its number when unknown.
func (s Stream) String() string {
	switch s {
	case StreamTree:
		return "tree"
	case StreamFrames:
		return "frames"
	}
	return strconv.FormatUint(uint64(s), 10)
}

// Lossy reports whether skipped sequence numbers on s are dropped frames
// rather than a loss of sync. Unknown streams are lossless.
func (s Stream) Lossy() bool { return s == StreamFrames }

// ParseStream returns the stream named s (a protocol name or a number).
func ParseStream(s string) (Stream, bool) {
	switch s {
	case "tree":
		return StreamTree, true
	case "frames":
		return StreamFrames, true
	}
	v, err := strconv.ParseUint(s, 10, 32)
	return Stream(v), err == nil
}

// EventType is an event's type within its stream.
type EventType uint32

// Event types of the tree stream.
const (
	TypeWindowChanged  EventType = 0
	TypeContentChanged EventType = 1
)

// Event types of the frames stream.
const (
	TypeFrame EventType = 0
)

// EventTypeName is the protocol name of type t on stream s, or its number.
func EventTypeName(s Stream, t EventType) string {
	switch {
	case s == StreamTree && t == TypeWindowChanged:
		return "window_changed"
	case s == StreamTree && t == TypeContentChanged:
		return "content_changed"
	case s == StreamFrames && t == TypeFrame:
		return "frame"
	}
	return strconv.FormatUint(uint64(t), 10)
}

// ParseEventType returns the type named name on stream s.
func ParseEventType(s Stream, name string) (EventType, bool) {
	for _, t := range []EventType{0, 1} {
		if EventTypeName(s, t) == name {
			return t, true
		}
	}
	v, err := strconv.ParseUint(name, 10, 32)
	return EventType(v), err == nil
}

// Event is a positional event: [6, stream, seq, type, ...fields]. Its
// fields are declared in another order than the wire's, Type before Seq,
// so that an event and its body fit a 48-byte allocation.
type Event struct {
	Stream Stream
	Type   EventType
	Seq    uint64 // from 1 on each connection, per stream
	// Body holds the fields after the type: *WindowChanged,
	// *ContentChanged or *ScreenFrame. It is nil for a type this version does
	// not know, whose fields are skipped, and such an event encodes with
	// no fields.
	Body EventBody
}

// Kind returns KindEvent.
func (*Event) Kind() Kind { return KindEvent }

// EventBody is the fields of an event after its type.
type EventBody interface {
	// EventOf reports the stream and type this body belongs to.
	EventOf() (Stream, EventType)
	appendCBOR(dst []byte) ([]byte, error)
	decodeFrom(d *decoder, n, i int) error
	fieldCount() int
}

// WindowChanged reports a change to a window (tree stream, type 0).
type WindowChanged struct {
	Window uint32
	Change uint32 // bits schema.WindowAdded ...
}

// ContentChanged reports a change inside a window (tree stream, type 1).
type ContentChanged struct {
	Window uint32
	Node   uint32 // 0: the window as a whole
	Change uint32 // bits schema.ContentSubtree ...
}

// ScreenFrame is one screen frame (frames stream, type 0).
type ScreenFrame struct {
	Width    uint32
	Height   uint32
	Format   uint32 // an image format
	UptimeMS uint64
	Image    []byte
}

// EventOf returns the tree stream and TypeWindowChanged.
func (*WindowChanged) EventOf() (Stream, EventType) { return StreamTree, TypeWindowChanged }

// EventOf returns the tree stream and TypeContentChanged.
func (*ContentChanged) EventOf() (Stream, EventType) { return StreamTree, TypeContentChanged }

// EventOf returns the frames stream and TypeFrame.
func (*ScreenFrame) EventOf() (Stream, EventType) { return StreamFrames, TypeFrame }

func (*WindowChanged) fieldCount() int  { return 2 }
func (*ContentChanged) fieldCount() int { return 3 }
func (*ScreenFrame) fieldCount() int    { return 5 }

// BodyFor returns a new, empty body for type t on stream s, or nil.
func BodyFor(s Stream, t EventType) EventBody {
	switch {
	case s == StreamTree && t == TypeWindowChanged:
		return new(WindowChanged)
	case s == StreamTree && t == TypeContentChanged:
		return new(ContentChanged)
	case s == StreamFrames && t == TypeFrame:
		return new(ScreenFrame)
	}
	return nil
}

func (e *Event) appendCBOR(dst []byte) ([]byte, error) {
	fields := 0
	if e.Body != nil {
		if s, t := e.Body.EventOf(); s != e.Stream || t != e.Type {
			return dst, &EncodeError{Field: "event", Detail: "body of " + EventTypeName(s, t) + " in an event of stream " + e.Stream.String() + " type " + EventTypeName(e.Stream, e.Type)}
		}
		fields = e.Body.fieldCount()
	}
	// The head is written into room reserved at once: an array head and
	// the kind of a byte each, a u32 stream and type, a u64 seq; the room
	// covers a tree body's three u32s too, so that its own reservation
	// finds it there and the buffer grows once.
	const room = 1 + 1 + 5 + cbor.MaxHeadLen + 5 + 2*5 + putRoom
	i := len(dst)
	dst = slices.Grow(dst, room)[:i+room]
	dst[i] = byte(cbor.MajorArray)<<5 | byte(4+fields) // at most 9 elements
	dst[i+1] = byte(KindEvent)
	j := putU32(dst, i+2, uint32(e.Stream))
	j = cbor.PutUint(dst, j, e.Seq)
	dst = dst[:putU32(dst, j, uint32(e.Type))]
	if e.Body != nil {
		return e.Body.appendCBOR(dst)
	}
	return dst, nil
}

func (b *WindowChanged) appendCBOR(dst []byte) ([]byte, error) {
	i := len(dst)
	dst = slices.Grow(dst, 5+putRoom)[:i+5+putRoom]
	return dst[:putU32(dst, putU32(dst, i, b.Window), b.Change)], nil
}

func (b *ContentChanged) appendCBOR(dst []byte) ([]byte, error) {
	i := len(dst)
	dst = slices.Grow(dst, 2*5+putRoom)[:i+2*5+putRoom]
	return dst[:putU32(dst, putU32(dst, putU32(dst, i, b.Window), b.Node), b.Change)], nil
}

func (b *ScreenFrame) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendUint(dst, uint64(b.Width))
	dst = cbor.AppendUint(dst, uint64(b.Height))
	dst = cbor.AppendUint(dst, uint64(b.Format))
	dst = cbor.AppendUint(dst, b.UptimeMS)
	return cbor.AppendBytes(dst, b.Image), nil
}

var eventNames = []string{"kind", "stream", "seq", "type"}

func (d *decoder) event() (Message, error) {
	start := d.Offset()
	n, err := d.ArrayHead()
	if err != nil {
		return nil, cbor.WithField(err, "message")
	}
	var head [4]uint64
	for i := range head {
		if !d.More(n, i) {
			if i == 0 {
				return nil, cbor.WithField(cbor.Errorf(cbor.ErrMissing, start, "an empty array is not a message"), "message")
			}
			return nil, cbor.WithField(cbor.Errorf(cbor.ErrMissing, start, "an event has at least 4 elements, not "+itoa(i)), "event")
		}
		if head[i], err = d.u64(); err != nil {
			if i == 0 {
				return nil, cbor.WithField(err, "kind")
			}
			return nil, cbor.WithField(cbor.WithField(err, eventNames[i]), "event")
		}
		if i == 0 && Kind(head[0]) != KindEvent {
			// An array of another kind: report the kind, skip the rest.
			if err := d.SkipElements(n, 1); err != nil {
				return nil, cbor.WithField(err, "message")
			}
			return &UnknownKind{Value: head[0]}, nil
		}
		if (i == 1 || i == 3) && head[i] > 0xffffffff {
			return nil, cbor.WithField(cbor.WithField(cbor.Errorf(cbor.ErrRange, start, "does not fit in u32"), eventNames[i]), "event")
		}
	}
	e := newEvent(Stream(head[1]), EventType(head[3]))
	e.Seq = head[2]
	i := 4
	if e.Body != nil {
		if err := e.Body.decodeFrom(d, n, i); err != nil {
			return nil, cbor.WithField(err, "event")
		}
		i += e.Body.fieldCount()
	}
	if err := d.SkipElements(n, i); err != nil {
		return nil, cbor.WithField(err, "event")
	}
	return e, nil
}

// eventFields reads the positional u32/u64 fields of a body, checking that
// the array (count n, i elements read) holds them.
func (d *decoder) eventField(n, i int, name string, start int) error {
	if !d.More(n, i) {
		return cbor.WithField(cbor.Errorf(cbor.ErrMissing, start, "the event ends before its "+name+" field (element "+itoa(i)+")"), name)
	}
	return nil
}

// eventU32s reads u32 fields named names into dst in turn: elements i,
// i+1, ... of an event array of n elements (-1: indefinite), the first
// of them at the decoder's position.
func (d *decoder) eventU32s(n, i int, names []string, dst ...*uint32) error {
	start := d.Offset()
	for j, name := range names {
		if err := d.eventField(n, i+j, name, start); err != nil {
			return err
		}
		v, err := d.u32()
		if err != nil {
			return cbor.WithField(err, name)
		}
		*dst[j] = v
	}
	return nil
}

var (
	windowChangedNames  = []string{"window", "change"}
	contentChangedNames = []string{"window", "node", "change"}
	screenFrameNames    = []string{"width", "height", "format"}
)

func (b *WindowChanged) decodeFrom(d *decoder, n, i int) error {
	return d.eventU32s(n, i, windowChangedNames, &b.Window, &b.Change)
}

func (b *ContentChanged) decodeFrom(d *decoder, n, i int) error {
	return d.eventU32s(n, i, contentChangedNames, &b.Window, &b.Node, &b.Change)
}

func (b *ScreenFrame) decodeFrom(d *decoder, n, i int) (err error) {
	start := d.Offset()
	if err = d.eventU32s(n, i, screenFrameNames, &b.Width, &b.Height, &b.Format); err != nil {
		return err
	}
	if err = d.eventField(n, i+3, "uptime_ms", start); err != nil {
		return err
	}
	if b.UptimeMS, err = d.u64(); err != nil {
		return cbor.WithField(err, "uptime_ms")
	}
	if err = d.eventField(n, i+4, "image", start); err != nil {
		return err
	}
	if b.Image, err = d.bytes(); err != nil {
		return cbor.WithField(err, "image")
	}
	return nil
}
