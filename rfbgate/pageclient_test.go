package rfbgate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// pageClient is a Go stand-in for the /glass/ page: it opens a viewer's
// stream with the subprotocol "glass", speaks RFB on its binary messages
// and keeps glass's events (its text messages) apart.
type pageClient struct {
	t      testing.TB
	ws     *websocket.Conn
	rfb    *byteQueue
	Init   []byte
	Hello  map[string]any
	mu     sync.Mutex
	events []map[string]any
	nextID int64
	done   chan struct{}
	closed *websocket.CloseError // how the stream ended, once done
}

// byteQueue holds the binary bytes received, for reads that wait.
type byteQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	buf     bytes.Buffer
	err     error
	discard bool // after the handshake: count nothing, keep nothing
}

func newByteQueue() *byteQueue {
	q := &byteQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *byteQueue) Read(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.buf.Len() == 0 && q.err == nil {
		q.cond.Wait()
	}
	if q.buf.Len() > 0 {
		return q.buf.Read(p)
	}
	return 0, q.err
}

func (q *byteQueue) put(b []byte, err error) {
	q.mu.Lock()
	if err != nil {
		q.err = err
	} else if !q.discard {
		q.buf.Write(b)
	}
	q.mu.Unlock()
	q.cond.Broadcast()
}

// pageWriter sends the RFB handshake's bytes as binary messages.
type pageWriter struct{ ws *websocket.Conn }

func (w pageWriter) Write(p []byte) (int, error) {
	if err := w.ws.Write(context.Background(), websocket.MessageBinary, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// dialPage opens a page's stream (query: "ticket=T" or "resume=R", with
// &agent= if wanted) and runs the RFB handshake; it fails the test if
// either fails.
func dialPage(t testing.TB, baseURL, query string) *pageClient {
	t.Helper()
	p, err := tryPage(baseURL, query)
	if err != nil {
		t.Fatalf("page stream %s: %v", query, err)
	}
	p.t = t
	t.Cleanup(p.Close)
	return p
}

// tryPage is dialPage that returns its error; a stream that failed after
// its hello comes back with the hello (and how it ended) all the same.
func tryPage(baseURL, query string) (*pageClient, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(baseURL, "http")+"/v1/streams/computers/glass?"+query,
		&websocket.DialOptions{Subprotocols: []string{subprotocolGlass}})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(-1)
	p := &pageClient{ws: ws, rfb: newByteQueue(), done: make(chan struct{})}
	go p.read()
	if ws.Subprotocol() != subprotocolGlass {
		ws.CloseNow()
		<-p.done
		return nil, fmt.Errorf("glass chose subprotocol %q", ws.Subprotocol())
	}
	if ev := p.waitFor(5*time.Second, func(ev map[string]any) bool { return ev["type"] == "hello" }); ev != nil {
		p.Hello = ev
	} else {
		ws.CloseNow()
		<-p.done
		return nil, fmt.Errorf("no hello within 5 s")
	}
	fail := func(err error) (*pageClient, error) {
		ws.CloseNow()
		<-p.done
		return p, err
	}
	hs := make(chan error, 1)
	go func() {
		init, err := rfbHandshake(struct {
			io.Reader
			io.Writer
		}{p.rfb, pageWriter{ws}})
		p.Init = init
		hs <- err
	}()
	select {
	case err = <-hs:
	case <-time.After(10 * time.Second):
		err = fmt.Errorf("RFB handshake not done within 10 s")
	}
	if err != nil {
		return fail(err)
	}
	p.rfb.mu.Lock()
	p.rfb.discard = true
	p.rfb.buf.Reset()
	p.rfb.mu.Unlock()
	return p, nil
}

func (p *pageClient) read() {
	defer close(p.done)
	for {
		typ, b, err := p.ws.Read(context.Background())
		if err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				p.mu.Lock()
				p.closed = &ce
				p.mu.Unlock()
			}
			p.rfb.put(nil, err)
			return
		}
		if typ == websocket.MessageBinary {
			p.rfb.put(b, nil)
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal(b, &ev); err != nil {
			ev = map[string]any{"type": "not JSON", "raw": string(b)}
		}
		p.mu.Lock()
		p.events = append(p.events, ev)
		p.mu.Unlock()
	}
}

// waitFor returns the first event (since the start) that pred accepts,
// or nil after d.
func (p *pageClient) waitFor(d time.Duration, pred func(map[string]any) bool) map[string]any {
	return p.waitAfter(0, d, pred)
}

// waitAfter is waitFor among the events after the first n.
func (p *pageClient) waitAfter(n int, d time.Duration, pred func(map[string]any) bool) map[string]any {
	deadline := time.Now().Add(d)
	for {
		p.mu.Lock()
		for _, ev := range p.events[min(n, len(p.events)):] {
			if pred(ev) {
				p.mu.Unlock()
				return ev
			}
		}
		p.mu.Unlock()
		if time.Now().After(deadline) {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lastState waits until the latest state event satisfies pred and returns
// it; it fails the test after d.
func (p *pageClient) lastState(d time.Duration, pred func(map[string]any) bool) map[string]any {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		var last map[string]any
		p.mu.Lock()
		for _, ev := range p.events {
			if ev["type"] == "state" {
				last = ev
			}
		}
		p.mu.Unlock()
		if last != nil && pred(last) {
			return last
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("page %s: no state as wanted within %v; last %v", p.Hello["name"], d, last)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// all returns the events so far.
func (p *pageClient) all() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.events...)
}

// command sends {"id", "op"} and returns glass's reply.
func (p *pageClient) command(op string) map[string]any {
	p.t.Helper()
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	p.mu.Unlock()
	if err := p.ws.Write(context.Background(), websocket.MessageText, fmt.Appendf(nil, `{"id":%d,"op":%q}`, id, op)); err != nil {
		p.t.Fatalf("command %s: %v", op, err)
	}
	rep := p.waitFor(5*time.Second, func(ev map[string]any) bool { return ev["type"] == "reply" && ev["id"] == float64(id) })
	if rep == nil {
		p.t.Fatalf("command %s: no reply within 5 s", op)
	}
	return rep
}

// commandRaw sends one text message as it is and returns glass's next
// reply.
func (p *pageClient) commandRaw(text string) map[string]any {
	p.t.Helper()
	n := len(p.all())
	if err := p.ws.Write(context.Background(), websocket.MessageText, []byte(text)); err != nil {
		p.t.Fatalf("text: %v", err)
	}
	rep := p.waitAfter(n, 5*time.Second, func(ev map[string]any) bool { return ev["type"] == "reply" })
	if rep == nil {
		p.t.Fatalf("text %q: no reply", text)
	}
	return rep
}

// Send sends RFB messages as binary messages.
func (p *pageClient) Send(b ...[]byte) {
	p.t.Helper()
	for _, m := range b {
		if err := p.ws.Write(context.Background(), websocket.MessageBinary, m); err != nil {
			p.t.Fatalf("send: %v", err)
		}
	}
}

// ended waits for the stream to end and returns its close frame (nil if
// there was none).
func (p *pageClient) ended(d time.Duration) *websocket.CloseError {
	select {
	case <-p.done:
	case <-time.After(d):
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

func (p *pageClient) Close() {
	p.ws.Close(websocket.StatusNormalClosure, "")
	<-p.done
}

// mint calls computers.watch over HTTP with body and returns its answer.
func mint(t testing.TB, baseURL, body string) map[string]string {
	t.Helper()
	resp, err := http.Post(baseURL+"/v1/tools/computers.watch", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("watch %s: %d %v %v", body, resp.StatusCode, m, err)
	}
	return m
}
