package wirejson

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// JSON → message, by the plans of schema.go.

// FieldError is a JSON message that does not follow the schema: Path
// names the field as a JSON pointer (RFC 6901) into the line, such as
// "/params/x" ("" for the line's object as a whole), and Msg says what
// was wanted.
type FieldError struct {
	Path string
	Msg  string
}

// Error reports the field and the problem.
func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return "field " + e.Path + ": " + e.Msg
}

// conv converts one JSON value into a message, keeping the first error:
// after it every reader returns zero values, so the conversion code reads
// straight through without checking each step.
type conv struct {
	err error // a *FieldError, or the *SyntaxError of a duplicate key
	// mem is the memory the message may still take, in bytes, when
	// limited is set: each value is charged before it is made.
	mem     int64
	limited bool
}

// charge takes n bytes of the message's memory budget for the value at
// path, and fails there when the budget is spent.
func (c *conv) charge(n int64, path *jpath) bool {
	if !c.limited || c.err != nil {
		return c.err == nil
	}
	if c.mem -= n; c.mem < 0 {
		c.failf(path, "the message takes more memory than wire encode may hold with its line: want a smaller message, or a larger -max-frame (the bound is 1.5 × -max-frame + 32 MiB)")
		return false
	}
	return true
}

func (c *conv) failf(path *jpath, format string, a ...any) {
	if c.err == nil {
		c.err = &FieldError{Path: path.String(), Msg: fmt.Sprintf(format, a...)}
	}
}

// jpath is a field path, built as the conversion descends and turned into
// a JSON pointer only for an error message.
type jpath struct {
	up    *jpath
	key   string
	i     int
	isIdx bool
}

func join(p *jpath, key string) *jpath { return &jpath{up: p, key: key} }

func index(p *jpath, i int) *jpath { return &jpath{up: p, i: i, isIdx: true} }

// String renders the path as a JSON pointer, outermost field first.
func (p *jpath) String() string {
	var segs []*jpath
	for ; p != nil; p = p.up {
		segs = append(segs, p)
	}
	var b strings.Builder
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i].isIdx {
			b.WriteString("/" + strconv.Itoa(segs[i].i))
		} else {
			b.WriteString("/" + pointerEscape(segs[i].key))
		}
	}
	return b.String()
}

// pointerEscape escapes a member name for a JSON pointer: ~ as ~0, / as ~1.
func pointerEscape(key string) string {
	if !strings.ContainsAny(key, "~/") {
		return key
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// jobj reads the fields of one JSON object, remembering which were read so
// that end can reject the rest, naming the ones it looked for.
type jobj struct {
	c       *conv
	path    *jpath
	members []jmember
	used    []bool
	wanted  []string
}

func (c *conv) object(v *jval, path *jpath) *jobj {
	o := &jobj{c: c, path: path}
	if v == nil || c.err != nil {
		return o
	}
	if v.kind != jObject {
		c.failf(path, "want an object, got %s", v.describe())
		return o
	}
	var err error
	if o.members, err = v.members(path); err != nil {
		c.err = err
		return o
	}
	o.used = make([]bool, len(o.members))
	return o
}

// take returns the value of key and its path; the value is nil when the
// key is absent or null (null reads as absent, as on the wire).
func (o *jobj) take(key string) (*jval, *jpath) {
	o.wanted = append(o.wanted, key)
	p := join(o.path, key)
	for i := range o.members {
		if m := &o.members[i]; m.key == key {
			o.used[i] = true
			if m.val.kind == jNull {
				return nil, p
			}
			return &m.val, p
		}
	}
	return nil, p
}

// need is take for a required key.
func (o *jobj) need(key string) (*jval, *jpath) {
	v, p := o.take(key)
	if v == nil {
		o.c.failf(p, "required field is missing")
	}
	return v, p
}

// end rejects every field that was not read.
func (o *jobj) end() {
	for i, u := range o.used {
		if !u {
			want := "this object has no fields"
			if len(o.wanted) > 0 {
				want = "want one of " + strings.Join(o.wanted, ", ")
			}
			o.c.failf(join(o.path, o.members[i].key), "unknown field: %s", want)
		}
	}
}

// message converts a message: its kind, then the fields of its struct.
func (c *conv) message(v *jval) codec.Message {
	o := c.object(v, nil)
	kv, kp := o.need(schema.Hello.Name(schema.KeyKind))
	kind := codec.Kind(c.enum(kv, kp, "kind", 64, func(s string) (uint64, bool) {
		k, ok := codec.ParseKind(s)
		return uint64(k), ok
	}, kindNames()))
	if c.err != nil {
		return nil
	}
	var m codec.Message
	for _, t := range messageTypes {
		if t.Kind() == kind && c.charge(int64(reflect.TypeOf(t).Elem().Size()), nil) {
			m = reflect.New(reflect.TypeOf(t).Elem()).Interface().(codec.Message)
		}
	}
	if c.err != nil {
		return nil
	}
	switch e := m.(type) {
	case nil:
		c.failf(kp, "kind %d is not a kind of protocol version 1; it cannot be encoded", uint64(kind))
		return nil
	case *codec.Event:
		c.event(o, e)
	default:
		v := reflect.ValueOf(m).Elem()
		c.fields(o, mustPlan(v.Type()), v, 0)
	}
	o.end()
	return m
}

// fields reads the fields of struct dst from the object o (which the
// caller ends), then checks the protocol's rules that span fields.
func (c *conv) fields(o *jobj, p *plan, dst reflect.Value, level int) {
	var seen uint64 // bit i: field i is present
	for i := range p.fields {
		f := &p.fields[i]
		fd := dst.Field(f.index)
		if f.p.kind == pCaps {
			c.caps(o, f, fd)
			continue
		}
		fv, fp := o.take(f.name)
		if fv == nil {
			if f.required && f.p.kind != pOpt && f.p.kind != pPtr {
				c.failf(fp, "required field is missing")
			}
			continue
		}
		seen |= 1 << i
		if f.p.kind == pParams || f.p.kind == pResult {
			c.methodMap(f, fv, fp, p, dst, level)
			continue
		}
		c.value(f.p, fv, fp, fd, level)
		if f.text != 0 && fd.Len() == 0 {
			nodeOf(dst).SetText(f.text, "") // present, and ""
		}
	}
	if c.err != nil {
		return
	}
	switch d := dst.Addr().Interface().(type) {
	case *codec.Response:
		result := seen&(1<<p.fieldIndex(schema.Response.Name(schema.KeyResponseResult))) != 0
		if d.Error != nil && result {
			c.failf(o.path, "a response carries a result or an error, not both")
		} else if d.Error == nil && !result {
			c.failf(o.path, "a response carries a result or an error (neither is present)")
		}
	case *codec.Scroll:
		if d.Position.Ok && !d.Range.Ok {
			c.failf(join(o.path, schema.Scroll.Name(schema.KeyScrollPosition)), "a scroll position needs a range: want %s beside it", schema.Scroll.Name(schema.KeyScrollRange))
		}
	}
}

// methodMap reads a request's params or a response's result: the map of
// the method that dst's method field names.
func (c *conv) methodMap(f *field, v *jval, path *jpath, p *plan, dst reflect.Value, level int) {
	var m codec.Method
	for _, mf := range p.fields {
		if mf.p.kind == pMethod {
			m = codec.Method(dst.Field(mf.index).Uint())
		}
	}
	o := c.object(v, path)
	if c.err != nil {
		return
	}
	var into any
	what := "a request for unknown method %d is written with empty params {}; its params cannot be encoded"
	if f.p.kind == pParams {
		if x := codec.ParamsFor(m); x != nil {
			into = x
		}
	} else {
		what = "a response to unknown method %d is written with an empty result {}; its result cannot be encoded"
		if x := codec.ResultFor(m); x != nil {
			into = x
		}
	}
	if into == nil {
		if len(o.members) > 0 {
			c.failf(path, what, uint32(m))
		}
		return
	}
	iv := reflect.ValueOf(into)
	if !c.charge(int64(iv.Type().Elem().Size()), path) {
		return
	}
	ip, err := planOf(iv.Type().Elem())
	if err != nil {
		c.failf(path, "no JSON form for %s: %v", iv.Type(), err)
		return
	}
	c.fields(o, ip, iv.Elem(), level)
	o.end()
	dst.Field(f.index).Set(iv)
}

// value reads v into dst by p.
func (c *conv) value(p *plan, v *jval, path *jpath, dst reflect.Value, level int) {
	if c.err != nil {
		return
	}
	switch p.kind {
	case pUint:
		dst.SetUint(c.uint(v, path, p.bits))
	case pInt:
		dst.SetInt(c.int(v, path, p.bits))
	case pBool:
		dst.SetBool(c.boolean(v, path))
	case pString:
		if v != nil && c.charge(int64(v.end-v.off), path) {
			dst.SetString(c.str(v, path))
		}
	case pBytes:
		dst.SetBytes(c.bytes(v, path))
	case pSlice:
		n := c.count(v, path)
		if !c.charge(int64(n)*int64(p.elem.typ.Size()), path) {
			return
		}
		s := reflect.MakeSlice(p.typ, n, n)
		ip := index(path, 0) // one path for every element: an error turns it into text at once
		var e jval
		for it := c.elems(v, path); c.next(&it, &e); ip.i++ {
			c.value(p.elem, &e, ip, s.Index(ip.i), level)
		}
		dst.Set(s)
	case pArray:
		if n := c.count(v, path); n != len(p.fields) {
			if v.kind != jArray {
				c.failf(path, "want an array, got %s", v.describe())
			} else {
				c.failf(path, "want [%s], not %d numbers", p.names(), n)
			}
			return
		}
		var e jval
		for i, it := 0, c.elems(v, path); c.next(&it, &e); i++ {
			c.value(p.fields[i].p, &e, index(path, i), dst.Field(p.fields[i].index), level)
		}
	case pOpt:
		c.value(p.elem, v, path, dst.Field(0), level)
		dst.Field(1).SetBool(true)
	case pPtr:
		if !c.charge(int64(p.elem.typ.Size()), path) {
			return
		}
		n := reflect.New(p.elem.typ)
		c.value(p.elem, v, path, n.Elem(), level)
		dst.Set(n)
	case pStruct:
		if p.recursive {
			if level++; level > schema.MaxNodeDepth {
				c.failf(path, "node tree deeper than %d levels: want at most %d", schema.MaxNodeDepth, schema.MaxNodeDepth)
				return
			}
		}
		o := c.object(v, path)
		c.fields(o, p, dst, level)
		o.end()
	case pMethod:
		dst.SetUint(uint64(c.method(v, path)))
	case pStream:
		dst.SetUint(uint64(c.stream(v, path)))
	default:
		c.failf(path, "no JSON form for %s", p.typ)
	}
}

// names lists a positional struct's field names.
func (p *plan) names() string {
	var s []string
	for _, f := range p.fields {
		s = append(s, f.name)
	}
	return strings.Join(s, ", ")
}

// caps reads a hello's capabilities: a number, or names in
// capability_names, or both when they agree.
func (c *conv) caps(o *jobj, f *field, dst reflect.Value) {
	cv, cp := o.take(f.name)
	nv, np := o.take(capabilityNames)
	if cv == nil && nv == nil {
		c.failf(cp, "required field is missing: want %s or %s", f.name, capabilityNames)
	}
	caps := codec.Capabilities(c.uint(cv, cp, 32))
	if nv != nil {
		var named codec.Capabilities
		ip := index(np, 0)
		var e jval
		for it := c.elems(nv, np); c.next(&it, &e); ip.i++ {
			s := c.str(&e, ip)
			bit, ok := codec.ParseCapability(s)
			if !ok && c.err == nil {
				c.failf(ip, "unknown capability %q: want one of %s, or \"bit N\"", s, strings.Join(codec.CapAll.Names(), ", "))
			}
			named |= bit
		}
		if cv == nil {
			caps = named
		} else if named != caps {
			c.failf(np, "names %s (%d) disagree with capabilities %d (%s); fix one or drop %s", named, uint32(named), uint32(caps), caps, capabilityNames)
		}
	}
	dst.SetUint(uint64(caps))
}

// event reads an event: its stream, seq and type, then its body's fields
// beside them (none for a type this version does not know).
func (c *conv) event(o *jobj, e *codec.Event) {
	n := eventNames
	sv, sp := o.need(n[0])
	e.Stream = c.stream(sv, sp)
	qv, qp := o.need(n[1])
	e.Seq = c.uint(qv, qp, 64)
	tv, tp := o.need(n[2])
	var names []string
	for t := codec.EventType(0); t < 2; t++ {
		if codec.BodyFor(e.Stream, t) != nil {
			names = append(names, codec.EventTypeName(e.Stream, t))
		}
	}
	e.Type = codec.EventType(c.enum(tv, tp, "event type for stream "+e.Stream.String(), 32, func(s string) (uint64, bool) {
		t, ok := codec.ParseEventType(e.Stream, s)
		return uint64(t), ok
	}, names))
	if c.err != nil {
		return
	}
	if body := codec.BodyFor(e.Stream, e.Type); body != nil {
		v := reflect.ValueOf(body)
		if !c.charge(int64(v.Type().Elem().Size()), o.path) {
			return
		}
		p, err := planOf(v.Type().Elem())
		if err != nil {
			c.failf(o.path, "no JSON form for event body %T: %v", body, err)
			return
		}
		c.fields(o, p, v.Elem(), 0)
		e.Body = body
	}
}

func (c *conv) uint(v *jval, path *jpath, bits int) uint64 {
	u, _ := c.integer(v, path, bits, false)
	return u
}

func (c *conv) int(v *jval, path *jpath, bits int) int64 {
	_, i := c.integer(v, path, bits, true)
	return i
}

// integer reads v as an integer of at most bits, signed (i, returned in
// i) or not (u, returned in u), and fails naming the type and its range
// where v is not a number, not an integer, or out of range.
func (c *conv) integer(v *jval, path *jpath, bits int, signed bool) (u uint64, i int64) {
	if v == nil || c.err != nil {
		return 0, 0
	}
	what, typ := "an unsigned integer", "u"
	lo, hi := "0", strconv.FormatUint(1<<bits-1, 10)
	if signed {
		what, typ = "an integer", "i"
		lo, hi = strconv.FormatInt(-1<<(bits-1), 10), strconv.FormatInt(1<<(bits-1)-1, 10)
	}
	if v.kind != jNumber {
		c.failf(path, "want %s (%s%d), got %s", what, typ, bits, v.describe())
		return 0, 0
	}
	lit := v.lit()
	var err error
	if signed {
		i, err = strconv.ParseInt(lit, 10, bits)
	} else {
		u, err = strconv.ParseUint(lit, 10, bits)
	}
	if err != nil {
		if isInteger(lit) {
			c.failf(path, "%s does not fit in %s%d: want %s from %s to %s", lit, typ, bits, what, lo, hi)
		} else {
			c.failf(path, "want %s (%s%d), got %s", what, typ, bits, lit)
		}
	}
	return u, i
}

// isInteger reports whether a JSON number literal has no fraction or
// exponent.
func isInteger(lit string) bool { return !strings.ContainsAny(lit, ".eE") }

func (c *conv) str(v *jval, path *jpath) string {
	if v == nil || c.err != nil {
		return ""
	}
	if v.kind != jString {
		c.failf(path, "want a string, got %s", v.describe())
		return ""
	}
	return v.text()
}

// bytes reads a byte string in standard base64, decoding it from the
// line with no copy of its text, its memory charged before it is made.
func (c *conv) bytes(v *jval, path *jpath) []byte {
	if v == nil || c.err != nil {
		return nil
	}
	if v.kind != jString {
		c.failf(path, "want a string of standard base64, got %s", v.describe())
		return nil
	}
	raw := v.raw()
	raw = raw[1 : len(raw)-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		raw = []byte(v.text()) // escapes, such as \/: rare and short
	}
	if !c.charge(int64(base64.StdEncoding.DecodedLen(len(raw))), path) {
		return nil
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
	n, err := base64.StdEncoding.Strict().Decode(b, raw)
	if err != nil {
		c.failf(path, "want standard base64: %v", err)
	}
	return b[:n]
}

func (c *conv) boolean(v *jval, path *jpath) bool {
	if v == nil || c.err != nil {
		return false
	}
	if v.kind != jBool {
		c.failf(path, "want true or false, got %s", v.describe())
		return false
	}
	return v.boolean()
}

// elems starts a walk over the elements of the array v; it has none
// when v is not an array (an error) or after an error.
func (c *conv) elems(v *jval, path *jpath) elemIter {
	if v == nil || c.err != nil {
		return elemIter{}
	}
	if v.kind != jArray {
		c.failf(path, "want an array, got %s", v.describe())
		return elemIter{}
	}
	return v.iter()
}

// next is it.next until an error.
func (c *conv) next(it *elemIter, e *jval) bool {
	return it.doc != nil && c.err == nil && it.next(e)
}

// count is the number of elements of the array v (0 for anything else).
func (c *conv) count(v *jval, path *jpath) int {
	if v == nil || c.err != nil || v.kind != jArray {
		return 0
	}
	return v.count()
}

// enum reads a name or a number. parse turns a name into its number;
// names lists the known names for the error message.
func (c *conv) enum(v *jval, path *jpath, what string, bits int, parse func(string) (uint64, bool), names []string) uint64 {
	if v == nil || c.err != nil {
		return 0
	}
	switch v.kind {
	case jNumber:
		return c.uint(v, path, bits)
	case jString:
		name := v.text()
		n, ok := parse(name)
		if !ok {
			known := "no names, only numbers"
			if len(names) > 0 {
				known = "known: " + strings.Join(names, ", ") + ", or a number"
			}
			c.failf(path, "unknown %s %q (%s)", what, name, known)
		}
		return n
	}
	c.failf(path, "want a %s name or number, got %s", what, v.describe())
	return 0
}

// kindNames lists the kinds' protocol names, for error messages.
func kindNames() []string {
	var out []string
	for k := codec.Kind(0); k.Known(); k++ {
		out = append(out, k.String())
	}
	return out
}

func methodNames() []string {
	var out []string
	for _, m := range codec.Methods() {
		out = append(out, m.String())
	}
	return out
}

func (c *conv) method(v *jval, path *jpath) codec.Method {
	return codec.Method(c.enum(v, path, "method", 32, func(s string) (uint64, bool) {
		m, ok := codec.ParseMethod(s)
		return uint64(m), ok
	}, methodNames()))
}

func (c *conv) stream(v *jval, path *jpath) codec.Stream {
	return codec.Stream(c.enum(v, path, "stream", 32, func(s string) (uint64, bool) {
		st, ok := codec.ParseStream(s)
		return uint64(st), ok
	}, []string{codec.StreamTree.String(), codec.StreamFrames.String()}))
}
