package session

import (
	"errors"
	"reflect"
	"testing"

	"github.com/wirebench/wirebench/codec"
)

func TestAgentHelloReadyAtOnce(t *testing.T) {
	dev := codec.Device{Model: "Pixel", SDK: 34, ABI: "arm64-v8a", Display: codec.Display{Width: 1080, Height: 1920, DensityDPI: 420}}
	a := NewAgent(AgentConfig{MaxFrame: 1 << 20, Capabilities: codec.CapTree | codec.CapInput, Token: codec.Some("tok"), Name: "sim/2", Device: codec.Some(dev)}, t0)
	ms := messages(t, a.PollTransmit())
	if len(ms) != 1 {
		t.Fatalf("a new agent queued %d messages, want its hello", len(ms))
	}
	want := &codec.Hello{Versions: []uint32{1}, MaxFrame: 1 << 20, Capabilities: codec.CapTree | codec.CapInput, Token: codec.Some("tok"), Agent: "sim/2", Device: codec.Some(dev)}
	if !reflect.DeepEqual(ms[0], want) {
		t.Fatalf("hello %#v, want %#v", ms[0], want)
	}
	if a.Connected() {
		t.Fatal("agent connected before any welcome")
	}
}

func TestHandshakeSelectsHighestCommonVersionAndSmallerFrame(t *testing.T) {
	p := pairUnconnected(t, HostConfig{Versions: []uint32{1, 2, 3}, MaxFrame: 8192, Session: 77},
		AgentConfig{Versions: []uint32{5, 2, 1}, MaxFrame: 1 << 20, Capabilities: codec.CapTree, Name: "x"})
	hs := ofType[*Connected](p.he)
	if len(hs) != 1 {
		t.Fatalf("host events %v, want one Connected", p.he)
	}
	c := hs[0]
	if c.Version != 2 || c.MaxFrame != 8192 || c.Session != 77 || c.Capabilities != codec.CapTree || c.Agent != "x" {
		t.Fatalf("Connected %+v, want version 2, max frame 8192, session 77, caps tree, agent x", c)
	}
	ws := ofType[*Welcomed](p.ae)
	if len(ws) != 1 || ws[0].Version != 2 || ws[0].MaxFrame != 8192 || ws[0].Session != 77 {
		t.Fatalf("agent events %v, want Welcomed version 2, max frame 8192, session 77", p.ae)
	}
	if p.h.MaxFrame() != 8192 || p.a.MaxFrame() != 8192 || p.h.Version() != 2 || p.a.Version() != 2 {
		t.Fatalf("limits host %d agent %d, versions %d %d", p.h.MaxFrame(), p.a.MaxFrame(), p.h.Version(), p.a.Version())
	}
	// The agent's limit is the smaller one too.
	p2 := pairUnconnected(t, HostConfig{}, AgentConfig{MaxFrame: 5000, Capabilities: codec.CapTree})
	if p2.h.MaxFrame() != 5000 || p2.a.MaxFrame() != 5000 {
		t.Fatalf("limits host %d agent %d, want 5000", p2.h.MaxFrame(), p2.a.MaxFrame())
	}
}

// pairUnconnected runs a handshake and keeps its events.
func pairUnconnected(t testing.TB, hc HostConfig, ac AgentConfig) *pair {
	p := &pair{t: t, now: t0, h: NewHost(hc, t0), a: NewAgent(ac, t0)}
	p.pump()
	return p
}

func TestHandshakeNoCommonVersion(t *testing.T) {
	p := pairUnconnected(t, HostConfig{Versions: []uint32{1}}, AgentConfig{Versions: []uint32{2, 3}, Capabilities: codec.CapAll})
	cl := ofType[*Closed](p.he)
	if len(cl) != 1 || cl[0].Reason != CloseRejected {
		t.Fatalf("host events %v, want Closed rejected", p.he)
	}
	wantCode(t, cl[0].Err, codec.CodeNoCommonVersion, "[2 3]", "[1]", "redeploy")
	acl := ofType[*Closed](p.ae)
	if len(acl) != 1 || acl[0].Reason != CloseRejected {
		t.Fatalf("agent events %v, want Closed rejected", p.ae)
	}
	wantCode(t, acl[0].Err, codec.CodeNoCommonVersion, "[2 3]", "[1]", "redeploy")
	if p.h.Connected() || p.a.Connected() {
		t.Fatal("a side is connected after a failed handshake")
	}
	_, err := p.h.Request(p.now, codec.MethodDeviceInfo, nil, 0)
	wantCode(t, err, codec.CodeDisconnected, "reconnect")
}

func TestHandshakeWelcomeCarriesOnlyTheError(t *testing.T) {
	h := NewHost(HostConfig{Token: codec.Some("secret")}, t0)
	h.Receive(t0, frame(t, stdHello(codec.CapAll, 4096)))
	ms := messages(t, h.PollTransmit())
	if len(ms) != 1 {
		t.Fatalf("sent %v", ms)
	}
	w := ms[0].(*codec.Welcome)
	if w.Version.Ok || w.MaxFrame.Ok || w.Session.Ok || w.Error == nil {
		t.Fatalf("welcome %+v, want only an error", w)
	}
	wantCode(t, w.Error, codec.CodeBadToken, "no token")
	// Closed: nothing more is read or sent.
	h.Receive(t0, frame(t, &codec.Ping{Nonce: 1}))
	if b := h.PollTransmit(); b != nil {
		t.Fatalf("closed host answered: %x", b)
	}
}

func TestHandshakeToken(t *testing.T) {
	cases := []struct {
		name  string
		host  codec.Opt[string]
		agent codec.Opt[string]
		ok    bool
		msg   string
	}{
		{"right", codec.Some("t0k"), codec.Some("t0k"), true, ""},
		{"wrong", codec.Some("t0k"), codec.Some("t0K"), false, "not this host's"},
		{"missing", codec.Some("t0k"), codec.Opt[string]{}, false, "no token"},
		{"host needs none", codec.Opt[string]{}, codec.Some("anything"), true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := pairUnconnected(t, HostConfig{Token: c.host}, AgentConfig{Token: c.agent, Capabilities: codec.CapAll})
			if p.h.Connected() != c.ok || p.a.Connected() != c.ok {
				t.Fatalf("connected host %v agent %v, want %v", p.h.Connected(), p.a.Connected(), c.ok)
			}
			if !c.ok {
				cl := ofType[*Closed](p.ae)
				if len(cl) != 1 {
					t.Fatalf("agent events %v", p.ae)
				}
				wantCode(t, cl[0].Err, codec.CodeBadToken, c.msg)
			}
		})
	}
}

func TestCapabilitiesCountOnlyOnceAVersionIsSelected(t *testing.T) {
	h := NewHost(HostConfig{}, t0)
	if _, err := h.Request(t0, codec.MethodDeviceInfo, nil, 0); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("request before the hello: %v, want ErrNotConnected", err)
	}
	if h.Capabilities() != 0 {
		t.Fatalf("capabilities %v before the hello", h.Capabilities())
	}
	// A hello whose versions do not match: its capabilities never count.
	h.Receive(t0, frame(t, &codec.Hello{Versions: []uint32{9}, MaxFrame: 4096, Capabilities: codec.CapAll, Agent: "x"}))
	if h.Capabilities() != 0 {
		t.Fatalf("capabilities %v after a hello with no common version", h.Capabilities())
	}
	h2, _ := connectedHost(t, HostConfig{}, stdHello(codec.CapTree|1<<30, 4096))
	if h2.Capabilities() != codec.CapTree|1<<30 {
		t.Fatalf("capabilities %v, want tree and bit 30", h2.Capabilities())
	}
}

func TestHandshakeRefusesBadHello(t *testing.T) {
	t.Run("max_frame below minimum", func(t *testing.T) {
		_, w := connectedHost(t, HostConfig{}, stdHello(codec.CapAll, 100))
		wantCode(t, w.Error, codec.CodeBadRequest, "100", "4096")
	})
	t.Run("first message not a hello", func(t *testing.T) {
		h := NewHost(HostConfig{}, t0)
		h.Receive(t0, frame(t, &codec.Response{ID: 1, Method: codec.MethodTap, Result: &codec.Empty{}}))
		w := messages(t, h.PollTransmit())[0].(*codec.Welcome)
		wantCode(t, w.Error, codec.CodeBadRequest, "response")
	})
	t.Run("hello does not decode", func(t *testing.T) {
		h := NewHost(HostConfig{}, t0)
		h.Receive(t0, rawFrame([]byte{0xa1, 0x00, 0x00})) // a hello with no fields
		w := messages(t, h.PollTransmit())[0].(*codec.Welcome)
		wantCode(t, w.Error, codec.CodeBadRequest, "hello")
		e, _ := h.PollEvent()
		if c, ok := e.(*Closed); !ok || c.Reason != CloseRejected {
			t.Fatalf("event %#v, want Closed rejected", e)
		}
	})
}

func TestAgentRefusesBadWelcome(t *testing.T) {
	cases := []struct {
		name string
		w    *codec.Welcome
		code codec.Code
	}{
		{"unknown version", &codec.Welcome{Version: codec.Some[uint32](7), MaxFrame: codec.Some[uint32](4096)}, codec.CodeNoCommonVersion},
		{"limit above the agent's", &codec.Welcome{Version: codec.Some[uint32](1), MaxFrame: codec.Some[uint32](1 << 30)}, codec.CodeBadRequest},
		{"limit missing", &codec.Welcome{Version: codec.Some[uint32](1)}, codec.CodeBadRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := NewAgent(AgentConfig{MaxFrame: 1 << 20}, t0)
			a.Receive(t0, frame(t, c.w))
			e, _ := a.PollEvent()
			cl, ok := e.(*Closed)
			if !ok || cl.Reason != CloseProtocol {
				t.Fatalf("event %#v, want Closed protocol", e)
			}
			wantCode(t, cl.Err, c.code)
		})
	}
}
