package zerocopy

import (
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/cbor"
)

// EventView is an event read in place: [6, stream, seq, type, ...fields].
// The fields of the types this version knows are read into the matching
// members; Image borrows the frame (valid until Release).
type EventView struct {
	Stream codec.Stream
	Seq    uint64
	Type   codec.EventType
	// Known reports that the stream and type are one this version knows,
	// so the members below for it are set: window_changed (Window,
	// Change), content_changed (Window, Node, Change) or frame (Width,
	// Height, Format, UptimeMS, Image).
	Known bool

	Window uint32 // window_changed, content_changed
	Node   uint32 // content_changed, 0 for the window as a whole
	Change uint32 // window_changed, content_changed: change bits

	Width    uint32 // frame
	Height   uint32 // frame
	Format   uint32 // frame: an image format
	UptimeMS uint64 // frame
	Image    []byte // frame: a subslice of the frame's payload
}

// ParseEvent reads the event in payload, validating all of it: the
// elements past the known fields are skipped as the codec skips them. It
// allocates nothing.
func ParseEvent(payload []byte) (EventView, error) {
	var e EventView
	err := e.Parse(payload)
	return e, err
}

// Parse is ParseEvent into e.
func (e *EventView) Parse(payload []byte) error {
	*e = EventView{}
	if e.parseFast(payload) {
		return nil
	}
	d := newDec(payload)
	var h HeaderView
	if b, ok := d.PeekByte(); !ok || b>>5 != byte(cbor.MajorArray) {
		if _, err := Header(payload); err != nil {
			return err
		}
		return cbor.WithField(cbor.Errorf(cbor.ErrType, 0, "a message map where an event array was expected"), "message")
	}
	n, err := eventHead(&d, &h)
	if err != nil {
		return err
	}
	if h.Kind != codec.KindEvent {
		return cbor.WithField(cbor.Errorf(cbor.ErrInvalid, 0, "an array of kind "+h.Kind.String()+" is not an event"), "kind")
	}
	e.Stream, e.Seq, e.Type = h.Stream, h.Seq, h.Type
	start := d.Offset()
	i := 4
	var names []string
	var u32 [3]*uint32 // where the body's leading u32 fields go, in order
	switch {
	case e.Stream == codec.StreamTree && e.Type == codec.TypeWindowChanged:
		names, u32 = windowChangedNames[:], [3]*uint32{&e.Window, &e.Change}
	case e.Stream == codec.StreamTree && e.Type == codec.TypeContentChanged:
		names, u32 = contentChangedNames[:], [3]*uint32{&e.Window, &e.Node, &e.Change}
	case e.Stream == codec.StreamFrames && e.Type == codec.TypeFrame:
		names, u32 = frameNames[:], [3]*uint32{&e.Width, &e.Height, &e.Format}
	}
	for j, name := range names {
		if !d.More(n, i) {
			return cbor.WithField(cbor.WithField(cbor.Errorf(cbor.ErrMissing, start, "the event ends before its "+name+" field (element "+itoa(i)+")"), name), "event")
		}
		var err error
		switch {
		case j < len(u32) && u32[j] != nil:
			*u32[j], err = d.Uint32()
		case name == "uptime_ms":
			e.UptimeMS, err = d.Uint()
		default: // image
			e.Image, err = byteString(&d)
		}
		if err != nil {
			return cbor.WithField(cbor.WithField(err, name), "event")
		}
		i++
	}
	e.Known = names != nil
	if err := d.SkipElements(n, i); err != nil {
		return cbor.WithField(err, "event")
	}
	return d.Done()
}

// parseFast reads a window_changed or content_changed event as encoders
// write it, straight from the bytes: [6, stream, seq, type, window,
// (node,) change], a definite array of a one-byte head, each element an
// unsigned integer (cbor.UintArray), nothing past them. It
// reports false, e untouched, for anything else (a frame, an unknown
// type, elements past the known ones, another head, ...), which the
// general path then reads, and reports when it is wrong. The tree events
// are the stream a client reads most, each a few bytes: the decoder's
// call per element cost more than the reading.
func (e *EventView) parseFast(b []byte) bool {
	var v [7]uint64
	n := cbor.UintArray(b, v[:])
	if n < 6 || v[0] != uint64(codec.KindEvent) || v[1] != uint64(codec.StreamTree) || v[3] > uint64(codec.TypeContentChanged) {
		return false
	}
	t := codec.EventType(v[3])
	if n != 6+int(t) { // window_changed has two fields, content_changed three
		return false
	}
	for _, x := range v[4:n] {
		if x > 0xffffffff {
			return false
		}
	}
	e.Stream, e.Seq, e.Type, e.Known = codec.StreamTree, v[2], t, true
	e.Window, e.Change = uint32(v[4]), uint32(v[n-1])
	if t == codec.TypeContentChanged {
		e.Node = uint32(v[5])
	}
	return true
}

var (
	windowChangedNames  = [...]string{"window", "change"}
	contentChangedNames = [...]string{"window", "node", "change"}
	frameNames          = [...]string{"width", "height", "format", "uptime_ms", "image"}
)
