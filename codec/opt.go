package codec

// Opt is an optional field: Ok reports whether the field is present, and Val
// holds its value when it is. The zero Opt is absent.
type Opt[T any] struct {
	Val T
	Ok  bool
}

// Some returns a present Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{Val: v, Ok: true} }

// Get returns the value and whether it is present.
func (o Opt[T]) Get() (T, bool) { return o.Val, o.Ok }

// Or returns the value when present and def otherwise.
func (o Opt[T]) Or(def T) T {
	if o.Ok {
		return o.Val
	}
	return def
}

// IsZero reports whether the field is absent (for encoding/json's omitzero).
func (o Opt[T]) IsZero() bool { return !o.Ok }

// Ptr returns a pointer to a copy of the value when present and nil
// otherwise, for mappings that spell optional fields as pointers (JSON,
// the benchmark peers' twins).
func (o Opt[T]) Ptr() *T {
	if !o.Ok {
		return nil
	}
	v := o.Val
	return &v
}

// OptFrom is the inverse of Ptr: present with *p when p is not nil.
func OptFrom[T any](p *T) Opt[T] {
	if p == nil {
		return Opt[T]{}
	}
	return Some(*p)
}
