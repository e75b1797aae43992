package twins

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/tinylib/msgp/msgp"
	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// Twin is what every twin implements: the methods msgp generates.
type Twin interface {
	msgp.Marshaler
	msgp.Unmarshaler
	msgp.Sizer
}

// twinsByName holds every twin type, by the name of the codec type it
// mirrors (for an event, the name of its body's type).
var twinsByName = map[string]reflect.Type{}

// resultTwins holds the twin of each method's result, by method.
var resultTwins []reflect.Type

// newTwin returns a new twin of type t.
func newTwin(t reflect.Type) Twin { return reflect.New(t).Interface().(Twin) }

// ownFields holds the schema table's Fields of each struct of ours that
// is a protocol map; ownByName those listed in init by name, where
// Message finds the message type of an envelope twin.
var (
	ownFields = map[reflect.Type]schema.Map{} // and those of params and results, from the method table
	ownByName = map[string]reflect.Type{}
)

func init() {
	for _, t := range []any{
		Hello{}, Device{}, Display{}, Welcome{}, Error{}, Ping{}, Pong{}, Request{}, Response{},
		SnapshotParams{}, BoundsParams{}, TapParams{}, LongPressParams{}, SwipeParams{}, KeyParams{}, TypeTextParams{},
		SetTextParams{}, ScreenshotParams{}, FramesStartParams{}, FramesStopParams{}, ResyncParams{}, DeviceInfoParams{},
		Snapshot{}, Window{}, Node{}, Scroll{}, ScrollRange{}, ScrollPosition{}, BoundsResult{}, NodeBounds{},
		ScreenshotResult{}, FramesStartResult{}, ResyncResult{}, Empty{},
		EventHead{}, WindowChanged{}, ContentChanged{}, ScreenFrame{},
	} {
		twinsByName[reflect.TypeOf(t).Name()] = reflect.TypeOf(t)
	}
	for _, m := range []struct {
		own    any
		fields schema.Map
	}{
		{codec.Hello{}, schema.Hello}, {codec.Welcome{}, schema.Welcome}, {codec.Request{}, schema.Request},
		{codec.Response{}, schema.Response}, {codec.Ping{}, schema.Ping}, {codec.Pong{}, schema.Ping},
		{codec.Device{}, schema.Device}, {codec.Display{}, schema.Display}, {codec.Error{}, schema.Error},
		{codec.Snapshot{}, schema.Snapshot}, {codec.Window{}, schema.Window}, {codec.Node{}, schema.Node},
		{codec.Scroll{}, schema.Scroll},
	} {
		t := reflect.TypeOf(m.own)
		ownFields[t], ownByName[t.Name()] = m.fields, t
	}
	resultTwins = make([]reflect.Type, len(codec.Methods())+1)
	for _, m := range codec.Methods() {
		p, r := reflect.TypeOf(codec.ParamsFor(m)).Elem(), reflect.TypeOf(codec.ResultFor(m)).Elem()
		ownFields[p], ownFields[r] = m.ParamMap(), m.ResultMap()
		resultTwins[m] = twinOf(r)
	}
}

// hasFields reports whether own, a struct of ours, is a protocol map.
func hasFields(own reflect.Type) bool {
	_, ok := ownFields[own]
	return ok
}

// twinOf is the twin of our type own; it panics when there is none (a
// type of ours the twins lack: TestSchema names it).
func twinOf(own reflect.Type) reflect.Type {
	t, ok := twinsByName[own.Name()]
	if !ok {
		panic(mismatch("no twin for codec." + own.Name()))
	}
	return t
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
	required  bool
	// text is, for an optional text of codec.Node, its key: its presence
	// is the node's to say (Node.Has, Node.SetText), since an empty one
	// may be present, and its twin is a *string. 0 otherwise (key 0 is
	// no text's).
	text int
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
	emptyAt := -1 // a node's Empty set, which is no protocol field
	for i := range own.NumField() {
		if own.Field(i).Type == reflect.TypeFor[codec.NodeTexts]() {
			emptyAt = i
		}
	}
	var out []keyedField
	for i := range own.NumField() {
		f := own.Field(i)
		if f.Type.Kind() == reflect.Interface || i == emptyAt {
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
		kf := keyedField{own: i, twin: j, required: fields.Required(k)}
		if emptyAt >= 0 && !kf.required && f.Type.Kind() == reflect.String {
			kf.text = int(k)
		}
		out = append(out, kf)
	}
	return out
}

// twinKey is the protocol key of a twin's field, from its `cbor` tag.
func twinKey(f reflect.StructField) (uint64, bool) {
	name, _, _ := strings.Cut(f.Tag.Get("cbor"), ",")
	k, err := strconv.ParseUint(name, 10, 64)
	return k, err == nil
}
