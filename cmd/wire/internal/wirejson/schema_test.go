package wirejson

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// TestPlans walks every type the JSON form meets, from every message,
// parameter, result and event body of codec, and checks that each field
// of a struct with a schema table is named by the table, key by key (the
// plans refuse a field the table does not name, or names out of key
// order), and that the positional structs are the ones the protocol
// writes as arrays.
func TestPlans(t *testing.T) {
	roots := []reflect.Type{tResult, tParams}
	for _, m := range messageTypes {
		if _, ok := m.(*codec.Event); !ok {
			roots = append(roots, reflect.TypeOf(m).Elem())
		}
	}
	for _, m := range codec.Methods() {
		roots = append(roots, reflect.TypeOf(codec.ParamsFor(m)).Elem(), reflect.TypeOf(codec.ResultFor(m)).Elem())
	}
	for _, s := range []codec.Stream{codec.StreamTree, codec.StreamFrames} {
		for ty := codec.EventType(0); ty < 4; ty++ {
			if b := codec.BodyFor(s, ty); b != nil {
				roots = append(roots, reflect.TypeOf(b).Elem())
			}
		}
	}
	seen := map[reflect.Type]bool{}
	var walk func(p *plan)
	walk = func(p *plan) {
		if seen[p.typ] {
			return
		}
		seen[p.typ] = true
		if p.elem != nil {
			walk(p.elem)
		}
		table, keyed := tables[p.typ]
		if p.kind == pStruct && !keyed && !positional[p.typ] {
			t.Errorf("codec.%s has no schema table and is not a positional struct", p.typ.Name())
		}
		for i, f := range p.fields {
			if keyed {
				k := uint64(i + keyBase(p.typ))
				if table.Name(k) != f.name || table.Required(k) != f.required {
					t.Errorf("codec.%s.%s: named %q (required %v), key %d of the table is %q (required %v)",
						p.typ.Name(), p.typ.Field(f.index).Name, f.name, f.required, k, table.Name(k), table.Required(k))
				}
			}
			walk(f.p)
		}
	}
	for _, r := range roots {
		p, err := planOf(r)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		walk(p)
	}
	for typ := range tables {
		if !seen[typ] {
			t.Errorf("the table of %s is not reached from any message", typ)
		}
	}
	for typ := range positional {
		if !seen[typ] {
			t.Errorf("positional %s is not reached from any message", typ)
		}
	}
	if !mustPlan(reflect.TypeFor[codec.Node]()).recursive {
		t.Error("the node plan is not marked recursive")
	}
	if got := strings.Join(eventNames, ","); got != "stream,seq,type" {
		t.Errorf("an event's head is named %s", got)
	}
}

// positional are the structs the protocol writes as arrays, whose JSON
// names are their Go names in snake_case.
var positional = map[reflect.Type]bool{
	reflect.TypeFor[codec.WindowChanged]():  true,
	reflect.TypeFor[codec.ContentChanged](): true,
	reflect.TypeFor[codec.ScreenFrame]():    true,
	reflect.TypeFor[codec.NodeBounds]():     true,
	reflect.TypeFor[codec.ScrollRange]():    true,
	reflect.TypeFor[codec.ScrollPosition](): true,
	reflect.TypeFor[codec.Bounds]():         true,
}

// TestPlanRefusesUnnamedField: a struct with a table whose Go field the
// table does not name has no plan, and the error names the field.
func TestPlanRefusesUnnamedField(t *testing.T) {
	type Display struct {
		Width, Height, DensityDPI, Rotation uint32
		Refresh                             uint32
	}
	typ := reflect.TypeFor[Display]()
	tables[typ] = schema.Display
	defer delete(tables, typ)
	if _, err := planOf(typ); err == nil || !contains(err.Error(), `Display.Refresh: its schema table has no field "refresh"`) {
		t.Errorf("got %v", err)
	}
	type Reordered struct{ Height, Width, DensityDPI, Rotation uint32 }
	typ = reflect.TypeFor[Reordered]()
	tables[typ] = schema.Display
	defer delete(tables, typ)
	if _, err := planOf(typ); err == nil || !contains(err.Error(), "key 1 in its schema table") {
		t.Errorf("got %v", err)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"DeadlineMS": "deadline_ms", "DensityDPI": "density_dpi", "X1": "x1", "SDK": "sdk",
		"ResPkg": "res_pkg", "EvictEventLess": "evict_event_less", "MaxFPS": "max_fps", "UptimeMS": "uptime_ms", "ID": "id", "ABI": "abi"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestFieldAddedToSchema: the JSON form follows a struct and its table
// with nothing written for either. A display as it was before rotation
// was added does not match today's table, and is refused; with the field
// added to the struct (as the table has it) it is written and read with
// the new field, named by the table.
func TestFieldAddedToSchema(t *testing.T) {
	type displayBefore struct{ Width, Height, DensityDPI uint32 }
	type displayAfter struct{ Width, Height, DensityDPI, Rotation uint32 }
	before, after := reflect.TypeFor[displayBefore](), reflect.TypeFor[displayAfter]()
	tables[before], tables[after] = schema.Display, schema.Display
	defer delete(tables, before)
	defer delete(tables, after)
	if _, err := planOf(before); err == nil || !contains(err.Error(), "its schema table has 4 keys, the struct 3 fields") {
		t.Errorf("the struct without the table's new field: %v", err)
	}
	p, err := planOf(after)
	if err != nil {
		t.Fatal(err)
	}
	w := &writer{}
	w.value(p, reflect.ValueOf(displayAfter{1080, 2400, 420, 3}))
	if got, want := string(w.b), `{"width":1080,"height":2400,"density_dpi":420,"rotation":3}`; got != want {
		t.Errorf("wrote %s, want %s", got, want)
	}
	v, err := parseJSON(w.b)
	if err != nil {
		t.Fatal(err)
	}
	var back displayAfter
	c := &conv{}
	c.value(p, v, nil, reflect.ValueOf(&back).Elem(), 0)
	if c.err != nil || back != (displayAfter{1080, 2400, 420, 3}) {
		t.Errorf("read back %+v, %v", back, c.err)
	}
}
