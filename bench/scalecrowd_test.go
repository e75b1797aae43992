package bench

// The viewers of BenchmarkRelayScale: rfbviewer viewers through glass's
// WebSocket, opened many at once, and glass's status API read for one of
// them.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirebench/wirebench/internal/rfbviewer"
	"github.com/wirebench/wirebench/rfbgate"
)

// crowdMember is one viewer of the crowd.
type crowdMember struct {
	v      *rfbviewer.Viewer
	ws     *websocket.Conn
	stream string // its stream id, as computers.watch returned it
}

// close ends the member's WebSocket (and so its decoding).
func (m *crowdMember) close() {
	m.v.Stop()
	m.ws.CloseNow()
}

// crowd is the viewers of one glass, at addr, of computer "scale".
type crowd struct {
	addr    string
	members []*crowdMember
}

// openMember asks glass for a ticket and opens a viewer: the time to its
// first full update counts from just before the WebSocket dial.
func openMember(ctx context.Context, addr, surface string) (*crowdMember, error) {
	return openMemberVia(ctx, addr, addr, surface, rfbviewer.Options{})
}

// openMemberVia is openMember with the viewer's WebSocket dialled to via
// (a faultproxy in front of glass at addr) and its options.
func openMemberVia(ctx context.Context, addr, via, surface string, opt rfbviewer.Options) (*crowdMember, error) {
	body := fmt.Sprintf(`{"agent":"scale","surface":%q}`, surface)
	resp, err := http.Post("http://"+addr+"/v1/tools/computers.watch", "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	var tk struct{ Ticket, Stream string }
	err = json.NewDecoder(resp.Body).Decode(&tk)
	resp.Body.Close()
	if err != nil || tk.Ticket == "" {
		return nil, fmt.Errorf("watch: status %d, %v", resp.StatusCode, err)
	}
	dctx, cancel := context.WithTimeout(ctx, 120*time.Second) // a crowd queues in the dial limiter
	defer cancel()
	since := time.Now()
	ws, _, err := websocket.Dial(dctx, "ws://"+via+"/v1/streams/computers/glass?ticket="+tk.Ticket, &websocket.DialOptions{Subprotocols: []string{"binary"}})
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(-1)
	hs := make(chan error, 1)
	var v *rfbviewer.Viewer
	go func() {
		var err error
		opt.Since = since
		v, err = rfbviewer.Dial(rfbgate.ByteStream(ws), opt)
		hs <- err
	}()
	select {
	case err = <-hs:
	case <-dctx.Done():
		err = fmt.Errorf("handshake: %w", dctx.Err())
	}
	if err != nil {
		ws.CloseNow()
		return nil, err
	}
	return &crowdMember{v: v, ws: ws, stream: tk.Stream}, nil
}

// grow opens viewers until there are n, 16 at a time, and waits until
// every new one has had its first full update.
func (c *crowd) grow(b *testing.B, n int) {
	add := n - len(c.members)
	if add <= 0 {
		return
	}
	fresh := make([]*crowdMember, add)
	errs := make([]error, add)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range fresh {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fresh[i], errs[i] = openMember(context.Background(), c.addr, fmt.Sprintf("v%03d", len(c.members)+i))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			for _, m := range fresh {
				if m != nil {
					m.close()
				}
			}
			b.Fatalf("viewer %d: %v", len(c.members)+i, err)
		}
	}
	c.members = append(c.members, fresh...)
	deadline := time.Now().Add(120 * time.Second)
	for _, m := range fresh {
		for m.v.Stats().FirstFull == 0 {
			if err := m.v.Err(); err != nil || time.Now().After(deadline) {
				b.Fatalf("a viewer had no full update within 120 s of the crowd's opening: %v (stats %+v)", err, m.v.Stats())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// check fails b if a viewer's decoding ended.
func (c *crowd) check(b *testing.B) {
	for i, m := range c.members {
		select {
		case <-m.v.Done():
			b.Fatalf("viewer %d ended: %v", i, m.v.Err())
		default:
		}
	}
}

// crowdSample is the crowd's counters at a moment, summed over members
// (except the one skipped, -1 for none).
type crowdSample struct {
	at       time.Time
	bytes    int64
	updates  int64
	viewers  int
	minUpdts []int64 // each member's updates, for the slowest one's rate
}

func (c *crowd) sample(skip int) crowdSample {
	s := crowdSample{at: time.Now()}
	for i, m := range c.members {
		if i == skip {
			continue
		}
		st := m.v.Stats()
		s.bytes += st.Bytes
		s.updates += st.Updates
		s.minUpdts = append(s.minUpdts, st.Updates)
		s.viewers++
	}
	return s
}

// closeAll ends every member.
func (c *crowd) closeAll() {
	for _, m := range c.members {
		m.close()
	}
	c.members = nil
}

// viewerQueue is what glass's status API says of one viewer in shared
// mode; ok is false when the fields are absent (per-viewer mode, or a
// glass without the hub).
type viewerQueue struct {
	queued, skipped int64
	ok              bool
}

// statusOf reads GET /v1/computers/scale and returns the queue of the
// viewer on stream.
func statusOf(addr, stream string) (viewerQueue, error) {
	resp, err := http.Get("http://" + addr + "/v1/computers/scale")
	if err != nil {
		return viewerQueue{}, err
	}
	defer resp.Body.Close()
	var st struct {
		Viewers []struct {
			Stream  string `json:"stream"`
			Queued  *int64 `json:"queued_bytes"`
			Skipped *int64 `json:"skipped_updates"`
		} `json:"viewers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return viewerQueue{}, fmt.Errorf("status: %v", err)
	}
	for _, v := range st.Viewers {
		if v.Stream == stream {
			if v.Queued == nil || v.Skipped == nil {
				return viewerQueue{}, nil
			}
			return viewerQueue{queued: *v.Queued, skipped: *v.Skipped, ok: true}, nil
		}
	}
	return viewerQueue{}, fmt.Errorf("status: no viewer on stream %s among %d", stream, len(st.Viewers))
}
