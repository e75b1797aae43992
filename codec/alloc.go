package codec

// Decoding allocates a message and its parameters, result or event body
// together, as one object: the pair lives and dies together anyway.

// with is a message's head and its body (params, result or event body)
// in one allocation.
type with[H, B any] struct {
	head H
	body B
}

// The pointer types of a body type B that hold its methods.
type (
	paramsPtr[B any] interface {
		*B
		Params
	}
	resultPtr[B any] interface {
		*B
		Result
	}
	eventBodyPtr[B any] interface {
		*B
		EventBody
	}
)

func requestOf[P any, PT paramsPtr[P]]() *Request { return requestFor[P, PT](*new(P)) }

// requestFor returns a request whose Params point at a copy of p,
// allocated with it.
func requestFor[P any, PT paramsPtr[P]](p P) *Request {
	x := new(with[Request, P])
	x.body = p
	x.head.Params = PT(&x.body)
	return &x.head
}

// newRequest returns a request whose Params already point at an empty
// parameter set of method m, allocated with it (nil Params for an unknown
// method).
func newRequest(m Method) *Request {
	var r *Request
	if m.Known() {
		r = methods[m].newRequest()
	} else {
		r = new(Request)
	}
	r.Method = m
	return r
}

func responseOf[R any, RT resultPtr[R]](d *decoder) (*Response, Result) {
	var x *with[Response, R]
	if d.r != nil {
		x = keptResponse[R](d.r)
	} else {
		x = new(with[Response, R])
	}
	return &x.head, RT(&x.body)
}

// inlineWindows is how many windows a snapshot response has room for in
// its own allocation: a phone's screen shows an app, the status and
// navigation bars, and sometimes an input method or a dialog.
const inlineWindows = 5

// snapshotResponse is a snapshot response with room for its windows.
type snapshotResponse struct {
	r    Response
	s    Snapshot
	wins [inlineWindows]Window
}

// snapshotResponseOf returns a snapshot response and its result; the
// snapshot's windows go to d.winBuf, when they fit.
func snapshotResponseOf(d *decoder) (*Response, Result) {
	var x *snapshotResponse
	if d.r != nil {
		x = d.r.snapshotResponse()
	} else {
		x = new(snapshotResponse)
	}
	d.winBuf = x.wins[:]
	return &x.r, &x.s
}

// newResponse returns a response of method m and an empty result of m
// allocated with it; the decoder sets Result to it only when key 3 comes.
func newResponse(m Method, d *decoder) (*Response, Result) {
	var r *Response
	var res Result
	if m.Known() && methods[m].newResponse != nil {
		r, res = methods[m].newResponse(d)
	} else {
		r, res = new(Response), ResultFor(m)
	}
	r.Method = m
	return r, res
}

func eventOf[B any, BT eventBodyPtr[B]]() *Event { return eventFor[B, BT](*new(B)) }

// eventFor returns an event whose Body points at a copy of b, allocated
// with it; the caller sets its stream and type.
func eventFor[B any, BT eventBodyPtr[B]](b B) *Event {
	x := new(with[Event, B])
	x.body = b
	x.head.Body = BT(&x.body)
	return &x.head
}

// newEvent returns an event whose Body points at an empty body for its
// stream and type, allocated with it (nil Body for an unknown type).
func newEvent(s Stream, t EventType) *Event {
	var e *Event
	switch {
	case s == StreamTree && t == TypeWindowChanged:
		e = eventOf[WindowChanged]()
	case s == StreamTree && t == TypeContentChanged:
		e = eventOf[ContentChanged]()
	case s == StreamFrames && t == TypeFrame:
		e = eventOf[ScreenFrame]()
	default:
		e = new(Event)
	}
	e.Stream, e.Type = s, t
	return e
}
