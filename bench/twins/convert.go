package twins

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// Of returns the twins of m: env, the twin of the message (of the whole
// event, for an event), and body, the twin of a request's params or a
// response's result, nil for other messages and for an error response.
// A request or response without params or result gets the empty map's
// twin, as our encoder writes {} for them.
func Of(m codec.Message) (env, body Twin, err error) {
	defer recoverMismatch(&err)
	v := reflect.ValueOf(m)
	if m == nil || v.IsNil() {
		return nil, nil, fmt.Errorf("twins: no twin for %T", m)
	}
	switch m := m.(type) {
	case *codec.Request:
		body = bodyOf(m.Params)
	case *codec.Response:
		if m.Error == nil {
			body = bodyOf(m.Result)
		}
	case *codec.Event:
		return eventOf(m), nil, nil
	}
	if v = v.Elem(); !hasFields(v.Type()) {
		return nil, nil, fmt.Errorf("twins: no twin for %T", m)
	}
	env = newTwin(twinOf(v.Type()))
	ev := reflect.ValueOf(env).Elem()
	toTwin(ev, v)
	ev.Field(fieldWithKey(ev.Type(), schema.KeyKind)).SetUint(uint64(m.Kind()))
	return env, body, nil
}

// bodyOf is the twin of params or a result (of {} for none).
func bodyOf(p any) Twin {
	v := reflect.ValueOf(p)
	if p == nil || v.IsNil() {
		return new(Empty)
	}
	t := newTwin(twinOf(v.Type().Elem()))
	toTwin(reflect.ValueOf(t).Elem(), v.Elem())
	return t
}

// eventOf is the twin of an event: its kind, then the event's fields and
// its body's, by position.
func eventOf(e *codec.Event) Twin {
	own := []reflect.Value{reflect.ValueOf(e).Elem()}
	name := "EventHead"
	if e.Body != nil {
		b := reflect.ValueOf(e.Body).Elem()
		own, name = append(own, b), b.Type().Name()
	}
	t, ok := twinsByName[name]
	if !ok || !positional(t) {
		panic(mismatch("no event twin for " + name))
	}
	tw := newTwin(t)
	tv := reflect.ValueOf(tw).Elem()
	tv.Field(1).SetUint(uint64(codec.KindEvent)) // after the toarray marker
	for i, p := range positions(tv, 2, own) {
		convert(tv.Field(2+i), p, true)
	}
	return tw
}

// Message converts twins back to our message: the inverse of Of, for
// twins Of made or the decoders filled. For a request or response of a
// method this version does not know, body is ignored and the params or
// result are nil; for an event of a type it does not know (an EventHead
// twin), the body is nil.
func Message(env, body Twin) (m codec.Message, err error) {
	defer recoverMismatch(&err)
	tv := reflect.ValueOf(env)
	if env == nil || tv.IsNil() {
		return nil, fmt.Errorf("twins: no message for %T", env)
	}
	tv = tv.Elem()
	if positional(tv.Type()) {
		return eventFrom(tv)
	}
	own, ok := ownByName[tv.Type().Name()]
	if !ok {
		return nil, fmt.Errorf("twins: no message for %T", env)
	}
	ov := reflect.New(own)
	m, ok = ov.Interface().(codec.Message)
	if !ok {
		return nil, fmt.Errorf("twins: a %T is not a message's twin", env)
	}
	toOwn(ov.Elem(), tv)
	if kind := tv.Field(fieldWithKey(tv.Type(), schema.KeyKind)).Uint(); kind != uint64(m.Kind()) {
		return nil, fmt.Errorf("twins: a %s twin of kind %d", own.Name(), kind)
	}
	switch m := m.(type) {
	case *codec.Request:
		if p := codec.ParamsFor(m.Method); p != nil && body != nil {
			m.Params = ownBody(p, body).(codec.Params)
		}
	case *codec.Response:
		if r := codec.ResultFor(m.Method); r != nil && body != nil {
			m.Result = ownBody(r, body).(codec.Result)
		}
	}
	return m, nil
}

// ownBody fills a new value of like's type from twin body.
func ownBody(like any, body Twin) any {
	v := reflect.New(reflect.TypeOf(like).Elem())
	bv := reflect.ValueOf(body).Elem()
	if want := twinOf(v.Type().Elem()); bv.Type() != want {
		panic(mismatch(fmt.Sprintf("a %s twin where the method wants %s", bv.Type().Name(), want.Name())))
	}
	toOwn(v.Elem(), bv)
	return v.Interface()
}

// eventFrom converts an event twin to our event.
func eventFrom(tv reflect.Value) (codec.Message, error) {
	if kind := tv.Field(1).Uint(); kind != uint64(codec.KindEvent) {
		return nil, fmt.Errorf("twins: an event twin of kind %d", kind)
	}
	e := &codec.Event{}
	ev := reflect.ValueOf(e).Elem()
	// The head first (Stream, Seq, Type), to know the body.
	for i := range 3 {
		convert(ev.FieldByName(tv.Type().Field(2+i).Name), tv.Field(2+i), true)
	}
	e.Body = codec.BodyFor(e.Stream, e.Type)
	if e.Body == nil {
		if tv.Type() != twinsByName["EventHead"] {
			return nil, fmt.Errorf("twins: a %s twin of an event type this version does not know", tv.Type().Name())
		}
		positions(tv, 2, []reflect.Value{ev}) // checks the head's names
		return e, nil
	}
	bv := reflect.ValueOf(e.Body).Elem()
	if bv.Type().Name() != tv.Type().Name() {
		return nil, fmt.Errorf("twins: a %s twin of a %s event", tv.Type().Name(), bv.Type().Name())
	}
	for i, p := range positions(tv, 2, []reflect.Value{ev, bv}) {
		convert(p, tv.Field(2+i), true)
	}
	return e, nil
}

// positions lists the fields of own's values, interfaces left out, that
// the twin's fields from index first on hold, in the twin's order (the
// wire's): each by its name, in the first of own that has it. It panics
// unless they match one to one by name.
func positions(tv reflect.Value, first int, own []reflect.Value) []reflect.Value {
	var out []reflect.Value
	fields := 0
	for _, o := range own {
		for i := range o.NumField() {
			if o.Type().Field(i).Type.Kind() != reflect.Interface {
				fields++
			}
		}
	}
	for j := first; j < tv.NumField(); j++ {
		name := tv.Type().Field(j).Name
		var f reflect.Value
		for _, o := range own {
			if sf, ok := o.Type().FieldByName(name); ok && sf.Type.Kind() != reflect.Interface {
				f = o.FieldByIndex(sf.Index)
				break
			}
		}
		if !f.IsValid() {
			panic(mismatch(fmt.Sprintf("twin %s has field %s at position %d, which ours lack", tv.Type().Name(), name, j-1)))
		}
		out = append(out, f)
	}
	if fields != len(out) {
		panic(mismatch(fmt.Sprintf("twin %s has %d positions, ours %d", tv.Type().Name(), tv.NumField()-first, fields)))
	}
	return out
}

// toTwin fills the twin tv from our struct v: by protocol key for a map,
// by position for an array.
func toTwin(tv, v reflect.Value) {
	if positional(tv.Type()) {
		for i, p := range positions(tv, 1, []reflect.Value{v}) {
			convert(tv.Field(1+i), p, true)
		}
		return
	}
	for _, f := range keyedFields(v.Type(), tv.Type()) {
		if f.text != 0 { // a node's text, present as the node says
			if n := v.Addr().Interface().(*codec.Node); n.Has(1 << f.text) {
				p := reflect.New(v.Field(f.own).Type())
				p.Elem().Set(v.Field(f.own))
				tv.Field(f.twin).Set(p)
			}
			continue
		}
		convert(tv.Field(f.twin), v.Field(f.own), f.required)
	}
}

// toOwn fills our struct v from the twin tv; the inverse of toTwin.
func toOwn(v, tv reflect.Value) {
	if positional(tv.Type()) {
		for i, p := range positions(tv, 1, []reflect.Value{v}) {
			convert(p, tv.Field(1+i), true)
		}
		return
	}
	for _, f := range keyedFields(v.Type(), tv.Type()) {
		if f.text != 0 { // a node's text: present, perhaps empty
			if p := tv.Field(f.twin); !p.IsNil() {
				v.Addr().Interface().(*codec.Node).SetText(f.text, p.Elem().String())
			}
			continue
		}
		convert(v.Field(f.own), tv.Field(f.twin), f.required)
	}
}

// keyedCache holds keyed's answers by pair of types.
var keyedCache sync.Map // [2]reflect.Type -> []keyedField

func keyedFields(own, tw reflect.Type) []keyedField {
	k := [2]reflect.Type{own, tw}
	if f, ok := keyedCache.Load(k); ok {
		return f.([]keyedField)
	}
	f := keyed(own, tw)
	keyedCache.Store(k, f)
	return f
}

// convert sets dst from src, one of them ours and the other the twin's:
// an Opt and a pointer, pointers, structs (keyed or positional), a struct
// and an array (codec.Bounds and [4]int32), slices, and scalars of the
// same kind. A slice that is empty becomes nil where the field is
// optional and an empty slice where it is required, as our decoder
// leaves them.
func convert(dst, src reflect.Value, required bool) {
	switch {
	case isOpt(src.Type()): // ours to a pointer
		if src.Field(1).Bool() {
			p := reflect.New(dst.Type().Elem())
			convert(p.Elem(), src.Field(0), true)
			dst.Set(p)
		}
	case isOpt(dst.Type()): // a pointer to ours
		if !src.IsNil() {
			convert(dst.Field(0), src.Elem(), true)
			dst.Field(1).SetBool(true)
		}
	case src.Kind() == reflect.Pointer:
		if !src.IsNil() {
			p := reflect.New(dst.Type().Elem())
			convert(p.Elem(), src.Elem(), true)
			dst.Set(p)
		}
	case src.Kind() == reflect.Struct && dst.Kind() == reflect.Struct:
		if hasFields(src.Type()) || isOwnPositional(src.Type(), dst.Type()) {
			toTwin(dst, src)
		} else {
			toOwn(dst, src)
		}
	case src.Kind() == reflect.Struct && dst.Kind() == reflect.Array: // codec.Bounds
		arrayOf(dst, src, true)
	case src.Kind() == reflect.Array && dst.Kind() == reflect.Struct:
		arrayOf(src, dst, false)
	case src.Kind() == reflect.Slice:
		convertSlice(dst, src, required)
	default:
		dst.Set(src.Convert(dst.Type()))
	}
}

// convertSlice is convert for slices: the same backing array where the
// element types convert as they are ([]uint32, []string, []byte), new
// converted elements otherwise.
func convertSlice(dst, src reflect.Value, required bool) {
	switch {
	case src.Len() == 0 && !required:
		dst.SetZero()
	case src.Len() == 0:
		dst.Set(reflect.MakeSlice(dst.Type(), 0, 0))
	case src.Type().Elem().Kind() != reflect.Struct:
		dst.Set(src.Convert(dst.Type()))
	default:
		s := reflect.MakeSlice(dst.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			convert(s.Index(i), src.Index(i), true)
		}
		dst.Set(s)
	}
}

// arrayOf copies between an array and our struct of as many fields of
// the element's kind, by position: into the array when toArray.
func arrayOf(arr, st reflect.Value, toArray bool) {
	if arr.Len() != st.NumField() {
		panic(mismatch(fmt.Sprintf("%s has %d fields, its twin %s %d elements", st.Type(), st.NumField(), arr.Type(), arr.Len())))
	}
	for i := range arr.Len() {
		if toArray {
			arr.Index(i).Set(st.Field(i).Convert(arr.Type().Elem()))
		} else {
			st.Field(i).Set(arr.Index(i).Convert(st.Field(i).Type()))
		}
	}
}

// isOpt reports whether t is a codec.Opt.
func isOpt(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == reflect.TypeFor[codec.Kind]().PkgPath() &&
		t.NumField() == 2 && t.Field(0).Name == "Val" && t.Field(1).Name == "Ok"
}

// isOwnPositional reports whether src is ours and dst its positional twin
// (a struct of ours without a schema map, such as codec.ScrollRange).
func isOwnPositional(src, dst reflect.Type) bool {
	return src.PkgPath() == reflect.TypeFor[codec.Kind]().PkgPath() && positional(dst)
}

// fieldWithKey is the index of the twin's field of protocol key k.
func fieldWithKey(tw reflect.Type, k uint64) int {
	for i := range tw.NumField() {
		if got, ok := twinKey(tw.Field(i)); ok && got == k {
			return i
		}
	}
	panic(mismatch(fmt.Sprintf("twin %s has no key %d", tw.Name(), k)))
}

// recoverMismatch turns a mismatch panic into *err.
func recoverMismatch(err *error) {
	if r := recover(); r != nil {
		m, ok := r.(mismatch)
		if !ok {
			panic(r)
		}
		*err = m
	}
}
