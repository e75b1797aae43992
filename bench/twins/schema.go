package twins

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/tinylib/msgp/msgp"
	"github.com/wirebench/wirebench/codec"
)

// Twin is what every twin implements: the methods msgp generates.
type Twin interface {
	msgp.Marshaler
	msgp.Unmarshaler
	msgp.Sizer
}

// twinType is one twin type and how to make a new one without reflection
// (the decoders make them inside timed loops).
type twinType struct {
	typ reflect.Type
	new func() Twin
}

func twin[T any, P interface {
	*T
	Twin
}]() twinType {
	return twinType{reflect.TypeFor[T](), func() Twin { return P(new(T)) }}
}

// twinsByName holds every twin, by the name of the codec type it mirrors
// (for an event, the name of its body's type).
var twinsByName = map[string]twinType{}

// ownFields holds the schema table's Fields of each struct of ours that
// is a protocol map; ownByName the envelope types by name.
var (
	ownFields = map[reflect.Type]*codec.Fields{} // and those of params and results, from the method table
	ownByName = map[string]reflect.Type{}
)

// The twins the decoders pick by method (index) and by event stream and
// type; nil where the method or type is unknown.
var (
	paramsTwins, resultTwins []func() Twin
	eventTwins               [codec.StreamFrames + 1][codec.TypeContentChanged + 1]func() Twin
)

func init() {
	for _, t := range []twinType{
		twin[Hello](), twin[Device](), twin[Display](), twin[Welcome](), twin[Error](), twin[Ping](), twin[Pong](),
		twin[Request](), twin[Response](),
		twin[SnapshotParams](), twin[BoundsParams](), twin[TapParams](), twin[LongPressParams](), twin[SwipeParams](),
		twin[KeyParams](), twin[TypeTextParams](), twin[SetTextParams](), twin[ScreenshotParams](),
		twin[FramesStartParams](), twin[FramesStopParams](), twin[ResyncParams](), twin[DeviceInfoParams](),
		twin[Snapshot](), twin[Window](), twin[Node](), twin[Scroll](), twin[ScrollRange](), twin[ScrollPosition](),
		twin[BoundsResult](), twin[NodeBounds](), twin[ScreenshotResult](), twin[FramesStartResult](),
		twin[ResyncResult](), twin[Empty](),
		twin[EventHead](), twin[WindowChanged](), twin[ContentChanged](), twin[ScreenFrame](),
	} {
		twinsByName[t.typ.Name()] = t
	}
	for _, m := range []struct {
		own    any
		fields *codec.Fields
	}{
		{codec.Hello{}, codec.HelloFields}, {codec.Welcome{}, codec.WelcomeFields}, {codec.Request{}, codec.RequestFields},
		{codec.Response{}, codec.ResponseFields}, {codec.Ping{}, codec.PingFields}, {codec.Pong{}, codec.PingFields},
		{codec.Device{}, codec.DeviceFields}, {codec.Display{}, codec.DisplayFields}, {codec.Error{}, codec.ErrorFields},
		{codec.Snapshot{}, codec.SnapshotFields}, {codec.Window{}, codec.WindowFields}, {codec.Node{}, codec.NodeFields},
		{codec.Scroll{}, codec.ScrollFields},
	} {
		t := reflect.TypeOf(m.own)
		ownFields[t], ownByName[t.Name()] = m.fields, t
	}
	methods := codec.Methods()
	paramsTwins = make([]func() Twin, len(methods)+1)
	resultTwins = make([]func() Twin, len(methods)+1)
	for _, m := range methods {
		p, r := reflect.TypeOf(codec.ParamsFor(m)).Elem(), reflect.TypeOf(codec.ResultFor(m)).Elem()
		ownFields[p], ownFields[r] = m.ParamFields(), m.ResultFields()
		paramsTwins[m], resultTwins[m] = twinOf(p).new, twinOf(r).new
	}
	for s := range eventTwins {
		for t := range eventTwins[s] {
			if b := codec.BodyFor(codec.Stream(s), codec.EventType(t)); b != nil {
				eventTwins[s][t] = twinOf(reflect.TypeOf(b).Elem()).new
			}
		}
	}
}

// twinOf is the twin of our type own; it panics when there is none (a
// type of ours the twins lack: TestSchema names it).
func twinOf(own reflect.Type) twinType {
	t, ok := twinsByName[own.Name()]
	if !ok {
		panic(mismatch("no twin for codec." + own.Name()))
	}
	return t
}

// newParams returns a new twin of method m's params; nil for a method
// this version does not know.
func newParams(m uint32) Twin {
	if int(m) < len(paramsTwins) && paramsTwins[m] != nil {
		return paramsTwins[m]()
	}
	return nil
}

// newResult returns a new twin of method m's result; nil for a method
// this version does not know.
func newResult(m uint32) Twin {
	if int(m) < len(resultTwins) && resultTwins[m] != nil {
		return resultTwins[m]()
	}
	return nil
}

// newEvent returns a new twin of an event of stream s and type t; nil for
// a type this version does not know.
func newEvent(s, t uint32) Twin {
	if int(s) < len(eventTwins) && int(t) < len(eventTwins[s]) && eventTwins[s][t] != nil {
		return eventTwins[s][t]()
	}
	return nil
}

// mismatch is the panic of a twin that does not mirror our type; Of and
// Message return it as their error.
type mismatch string

func (m mismatch) Error() string { return "twins: " + string(m) }

// positional reports whether twin type t is a positional array (its
// first field the blank toarray marker).
func positional(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.NumField() > 0 && t.Field(0).Name == "_"
}

// protocolName is the schema table's name of a field of ours: its Go name
// in snake case (MaxFrame: max_frame, DensityDPI: density_dpi, X1: x1).
func protocolName(goName string) string {
	var b strings.Builder
	r := []rune(goName)
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) && (!unicode.IsUpper(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// keyedField is one field of ours matched to its twin's by protocol key.
type keyedField struct {
	own, twin int // field indexes
	key       uint64
	required  bool
}

// keyed matches the fields of our map type own to those of its twin by
// protocol key: own's field's name in the schema table gives the key, the
// twin's `cbor` tag its field. Interface fields (params, result) are left
// to the caller. It panics on a field either side lacks.
func keyed(own, tw reflect.Type) []keyedField {
	fields, ok := ownFields[own]
	if !ok {
		panic(mismatch("codec." + own.Name() + " is in no Fields of the schema table"))
	}
	byKey := map[uint64]int{}
	for i := range tw.NumField() {
		if k, ok := twinKey(tw.Field(i)); ok {
			byKey[k] = i
		}
	}
	var out []keyedField
	for i := range own.NumField() {
		f := own.Field(i)
		if f.Type.Kind() == reflect.Interface {
			continue
		}
		k, ok := fields.Key(protocolName(f.Name))
		if !ok {
			panic(mismatch(fmt.Sprintf("codec.%s.%s (%s) is not in the schema table", own.Name(), f.Name, protocolName(f.Name))))
		}
		j, ok := byKey[k]
		if !ok {
			panic(mismatch(fmt.Sprintf("twin %s has no key %d for codec.%s.%s", tw.Name(), k, own.Name(), f.Name)))
		}
		out = append(out, keyedField{own: i, twin: j, key: k, required: fields.Required(k)})
	}
	return out
}

// twinKey is the protocol key of a twin's field, from its `cbor` tag.
func twinKey(f reflect.StructField) (uint64, bool) {
	name, _, _ := strings.Cut(f.Tag.Get("cbor"), ",")
	k, err := strconv.ParseUint(name, 10, 64)
	return k, err == nil
}
