package netconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/faultproxy"
	"github.com/wirebench/wirebench/internal/testio"
	"github.com/wirebench/wirebench/session"
)

// agents serves every connection on a loopback port with an agent that
// presents no token, until the test ends.
func agents(t *testing.T) string {
	t.Helper()
	return testio.Serve(t, func(c net.Conn) {
		a := session.NewAgent(session.AgentConfig{Name: "t"}, time.Now())
		d := New(c, a)
		defer d.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		d.Run(ctx, func() bool { return !a.Connected() && a.Version() != 0 })
	})
}

func dialer(addr string) func(context.Context) (net.Conn, error) {
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
}

// TestRedialStopsAtARefusedHandshake: a bad token is not something a
// redial fixes.
func TestRedialStopsAtARefusedHandshake(t *testing.T) {
	rd := NewRedialer(RedialConfig{Dial: dialer(agents(t)), Host: session.HostConfig{Token: codec.Some("secret")}})
	defer rd.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var closed *session.Closed
	err := rd.Run(ctx, func() bool {
		for e, ok := rd.PollEvent(); ok; e, ok = rd.PollEvent() {
			if c, ok := e.(*session.Closed); ok {
				closed = c
			}
		}
		return false
	})
	if !errors.Is(err, ErrRedialStopped) || closed == nil || closed.Reason != session.CloseRejected {
		t.Fatalf("Run: %v after %+v; want ErrRedialStopped after a rejected handshake", err, closed)
	}
	if _, err := rd.Request(time.Now(), codec.MethodDeviceInfo, nil, 0); err == nil || err.(*codec.Error).Code != codec.CodeDisconnected {
		t.Fatalf("request after the stop: %v", err)
	}
}

// TestRedialOnceEndsAtTheFirstFailure: with Once, a refused dial ends Run.
func TestRedialOnceEndsAtTheFirstFailure(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	rd := NewRedialer(RedialConfig{Dial: dialer(addr), Once: true})
	var attempts []*Attempt
	err := rd.Run(context.Background(), func() bool {
		for e, ok := rd.PollEvent(); ok; e, ok = rd.PollEvent() {
			if a, ok := e.(*Attempt); ok {
				attempts = append(attempts, a)
			}
		}
		return false
	})
	if !errors.Is(err, ErrRedialStopped) || len(attempts) != 1 || attempts[0].Err == nil || attempts[0].Retry != 0 {
		t.Fatalf("Run: %v, attempts %+v; want one failed attempt and no retry", err, attempts)
	}
}

// TestRedialWakesOnceAtTheEndOfTheBackoff: after a cut link (through the
// fault proxy) the Redialer reports Redialing, runs step once when the
// backoff ends and dials then, so the step call after that one sees the
// new dial's Attempt. The session that closed is no longer taken for the
// current one once the Redialer has hung up: that stale close made step's
// wake at the end of the backoff count as "done", and Run went round once
// more, calling step again before it dialed.
func TestRedialWakesOnceAtTheEndOfTheBackoff(t *testing.T) {
	p, err := faultproxy.New(agents(t), faultproxy.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	rd := NewRedialer(RedialConfig{Dial: dialer(p.Addr()), Host: session.HostConfig{Session: 1}})
	defer rd.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	calls, redialingAt, attemptAt := 0, 0, 0
	var log []string
	second := false
	err = rd.Run(ctx, func() bool {
		calls++
		for e, ok := rd.PollEvent(); ok; e, ok = rd.PollEvent() {
			switch e := e.(type) {
			case *session.Connected:
				log = append(log, fmt.Sprint("connected ", e.Session))
				if e.Session == 1 {
					p.Cut()
				}
				second = e.Session == 2
			case *session.Closed:
				log = append(log, "closed "+e.Reason.String())
			case *Redialing:
				log = append(log, "redialing")
				redialingAt = calls
			case *Attempt:
				log = append(log, fmt.Sprint("attempt ", e.N, " ", e.Err))
				if redialingAt > 0 {
					attemptAt = calls
				}
			}
		}
		return second
	})
	if err != nil {
		t.Fatalf("Run: %v after %q", err, log)
	}
	if redialingAt == 0 || attemptAt != redialingAt+2 {
		t.Fatalf("step saw the Redialing on call %d and the next Attempt on call %d, want 2 calls later (one wake at the end of the backoff); events %q",
			redialingAt, attemptAt, log)
	}
	// The redialed session is the Redialer's like the first: Close ends
	// it and redialing.
	if err := rd.Close(); err != nil {
		t.Fatalf("Close after a redial: %v", err)
	}
	if err := rd.Run(ctx, nil); !errors.Is(err, ErrRedialStopped) {
		t.Fatalf("Run after Close: %v, want ErrRedialStopped", err)
	}
	if _, err := rd.Request(time.Now(), codec.MethodDeviceInfo, nil, 0); err == nil || !strings.Contains(err.Error(), "not redialing") {
		t.Fatalf("request after Close: %v", err)
	}
}
