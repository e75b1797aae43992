package wirejson

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// The JSON form is driven by codec's schema: a plan, made once per Go
// type by reflection, names each field of a codec struct by the protocol
// name of its key in codec's Fields table (the Go field's name in
// snake_case must be one of the table's names), and orders the fields by
// key. A field added to a codec type and its table shows up in the JSON
// form with no change here. What this file lists by hand is only what
// codec's exported API does not say: which table belongs to which type.

// pkind is how a plan writes and reads a value.
type pkind uint8

const (
	pUint   pkind = iota // an unsigned integer of bits bits
	pInt                 // a signed integer of bits bits
	pBool                // true or false
	pString              // a text string (codec.Code too)
	pBytes               // a byte string, as standard base64
	pSlice               // an array of elem
	pOpt                 // codec.Opt[elem]: present or absent
	pPtr                 // a pointer to elem: present or absent
	pStruct              // an object of fields
	pArray               // a struct written as an array of its fields (codec.Bounds)
	pMethod              // a codec.Method, by name (by number when unknown)
	pStream              // a codec.Stream, by name (by number when unknown)
	pCaps                // codec.Capabilities, a number with capability_names beside it
	pParams              // codec.Params: an object of the method's parameters
	pResult              // codec.Result: an object of the method's result
)

// plan is how one Go type is written and read.
type plan struct {
	kind   pkind
	typ    reflect.Type
	bits   int     // pUint, pInt
	elem   *plan   // pSlice, pOpt, pPtr
	fields []field // pStruct, pArray, in key order
	// recursive is set on a struct type that contains itself (codec.Node):
	// the reader bounds its nesting by schema.MaxNodeDepth.
	recursive bool
}

// field is one field of a struct plan.
type field struct {
	name     string // the protocol name
	index    int    // the Go field's index
	required bool   // the schema requires the key (every field of a positional struct)
	p        *plan
	// unless is, for a result, the Go index of the error beside it,
	// which leaves the result out when set (a response carries one of
	// them); -1 otherwise.
	unless int
	// text is, for an optional text of a codec.Node, its key: its
	// presence is the node's to say (Node.Has, Node.SetText), since an
	// empty one may be present. 0 otherwise (key 0 is no text's).
	text int
}

// capabilityNames is the informational field the JSON form adds beside
// a hello's capabilities: their names.
const capabilityNames = "capability_names"

var (
	tMethod = reflect.TypeFor[codec.Method]()
	tStream = reflect.TypeFor[codec.Stream]()
	tCaps   = reflect.TypeFor[codec.Capabilities]()
	tParams = reflect.TypeFor[codec.Params]()
	tResult = reflect.TypeFor[codec.Result]()
	tBounds = reflect.TypeFor[codec.Bounds]()
	tTexts  = reflect.TypeFor[codec.NodeTexts]()
)

// messageTypes are the message structs of the known kinds; a message's
// table names key 0 "kind", written from the message's Kind.
var messageTypes = []codec.Message{&codec.Hello{}, &codec.Welcome{}, &codec.Request{}, &codec.Response{}, &codec.Ping{}, &codec.Pong{}, &codec.Event{}}

// tables maps each struct of codec that is a protocol map to its Fields
// table. The parameter and result structs are found through the method
// table (init). A struct without a table is positional on the wire (an
// event, its body, a node's bounds, a scroll range): its fields are named
// by their Go names in snake_case.
var tables = map[reflect.Type]schema.Map{
	// the messages (a Pong's map is a Ping's)
	reflect.TypeFor[codec.Hello](): schema.Hello, reflect.TypeFor[codec.Welcome](): schema.Welcome,
	reflect.TypeFor[codec.Request](): schema.Request, reflect.TypeFor[codec.Response](): schema.Response,
	reflect.TypeFor[codec.Ping](): schema.Ping, reflect.TypeFor[codec.Pong](): schema.Ping,
	// the maps inside them
	reflect.TypeFor[codec.Device](): schema.Device, reflect.TypeFor[codec.Display](): schema.Display,
	reflect.TypeFor[codec.Error](): schema.Error, reflect.TypeFor[codec.Snapshot](): schema.Snapshot,
	reflect.TypeFor[codec.Window](): schema.Window, reflect.TypeFor[codec.Node](): schema.Node,
	reflect.TypeFor[codec.Scroll](): schema.Scroll,
}

func init() {
	for _, m := range codec.Methods() {
		tables[reflect.TypeOf(codec.ParamsFor(m)).Elem()] = m.ParamMap()
		tables[reflect.TypeOf(codec.ResultFor(m)).Elem()] = m.ResultMap()
	}
}

var plans = struct {
	sync.Mutex
	m map[reflect.Type]*plan
}{m: map[reflect.Type]*plan{}}

// planOf returns the plan of t, making it (and those of the types it
// holds) on first use. An error names a field the schema does not.
func planOf(t reflect.Type) (*plan, error) {
	plans.Lock()
	defer plans.Unlock()
	return makePlan(t, map[reflect.Type]bool{})
}

// nodeOf returns the codec.Node that v, a struct of its type, holds.
func nodeOf(v reflect.Value) *codec.Node {
	if v.CanAddr() {
		return v.Addr().Interface().(*codec.Node)
	}
	n := v.Interface().(codec.Node)
	return &n
}

// mustPlan is planOf for the types of codec that TestPlans checks.
func mustPlan(t reflect.Type) *plan {
	p, err := planOf(t)
	if err != nil {
		panic(err)
	}
	return p
}

// makePlan makes t's plan; making lists the structs being made, so that
// a struct met again inside itself is marked recursive.
func makePlan(t reflect.Type, making map[reflect.Type]bool) (*plan, error) {
	if p, ok := plans.m[t]; ok {
		if making[t] {
			p.recursive = true
		}
		return p, nil
	}
	p := &plan{typ: t}
	switch {
	case t == tMethod:
		p.kind = pMethod
	case t == tStream:
		p.kind = pStream
	case t == tCaps:
		p.kind = pCaps
	case t == tParams:
		p.kind = pParams
	case t == tResult:
		p.kind = pResult
	case t.Kind() == reflect.Bool:
		p.kind = pBool
	case t.Kind() == reflect.String:
		p.kind = pString
	case t.Kind() >= reflect.Uint8 && t.Kind() <= reflect.Uint64:
		p.kind, p.bits = pUint, t.Bits()
	case t.Kind() >= reflect.Int8 && t.Kind() <= reflect.Int64:
		p.kind, p.bits = pInt, t.Bits()
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		p.kind = pBytes
	case t.Kind() == reflect.Slice, t.Kind() == reflect.Pointer:
		p.kind = pSlice
		if t.Kind() == reflect.Pointer {
			p.kind = pPtr
		}
		plans.m[t] = p
		elem, err := makePlan(t.Elem(), making)
		if err != nil {
			delete(plans.m, t)
			return nil, err
		}
		p.elem = elem
		return p, nil
	case isOpt(t):
		p.kind = pOpt
		plans.m[t] = p
		elem, err := makePlan(t.Field(0).Type, making)
		if err != nil {
			delete(plans.m, t)
			return nil, err
		}
		p.elem = elem
		return p, nil
	case t.Kind() == reflect.Struct:
		p.kind = pStruct
		if t == tBounds {
			p.kind = pArray
		}
		plans.m[t] = p
		making[t] = true
		err := p.makeFields(making)
		delete(making, t)
		if err != nil {
			delete(plans.m, t)
			return nil, err
		}
		return p, nil
	default:
		return nil, fmt.Errorf("no JSON form for %s", t)
	}
	plans.m[t] = p
	return p, nil
}

// isOpt reports whether t is a codec.Opt[T].
func isOpt(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == tMethod.PkgPath() && strings.HasPrefix(t.Name(), "Opt[")
}

// makeFields names p's fields from the struct's table, in key order, or
// by their snake_case names for a positional struct.
func (p *plan) makeFields(making map[reflect.Type]bool) error {
	t := p.typ
	table, keyed := tables[t]
	// A node's Empty set is no field of the protocol: it says which of
	// the texts beside it are present though "".
	emptyAt := -1
	for i := range t.NumField() {
		if t.Field(i).Type == tTexts {
			emptyAt = i
		}
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || i == emptyAt {
			continue
		}
		name := snake(sf.Name)
		f := field{name: name, index: i, required: true, unless: -1}
		if ef, ok := t.FieldByName("Error"); ok && sf.Type == tResult && ef.Type == reflect.TypeFor[*codec.Error]() {
			f.unless = ef.Index[0]
		}
		if keyed {
			k, ok := table.Key(name)
			if !ok {
				return fmt.Errorf("codec.%s.%s: its schema table has no field %q", t.Name(), sf.Name, name)
			}
			f.required = table.Required(k)
			if emptyAt >= 0 && !f.required && sf.Type.Kind() == reflect.String {
				f.text = int(k)
			}
			if k != uint64(len(p.fields)+keyBase(t)) {
				return fmt.Errorf("codec.%s.%s: field %q is key %d in its schema table, but the struct holds it in place %d", t.Name(), sf.Name, name, k, len(p.fields)+keyBase(t))
			}
		}
		fp, err := makePlan(sf.Type, making)
		if err != nil {
			return fmt.Errorf("codec.%s.%s: %w", t.Name(), sf.Name, err)
		}
		f.p = fp
		p.fields = append(p.fields, f)
	}
	if keyed && table.Len() != len(p.fields)+keyBase(t) {
		return fmt.Errorf("codec.%s: its schema table has %d keys, the struct %d fields", t.Name(), table.Len(), len(p.fields)+keyBase(t))
	}
	return nil
}

// keyBase is the key of a struct's first field: 1 in a message map,
// whose key 0 is the kind, 0 elsewhere.
func keyBase(t reflect.Type) int {
	if reflect.PointerTo(t).Implements(reflect.TypeFor[codec.Message]()) {
		return 1
	}
	return 0
}

// snake is a Go field name in snake_case: DeadlineMS is deadline_ms,
// DensityDPI density_dpi, X1 x1.
func snake(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (nextLower && unicode.IsUpper(r[i-1])) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// fieldIndex returns the place of the field named name among p's
// fields, or -1.
func (p *plan) fieldIndex(name string) int {
	for i := range p.fields {
		if p.fields[i].name == name {
			return i
		}
	}
	return -1
}
