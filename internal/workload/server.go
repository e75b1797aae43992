package workload

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// Server serves the workload page and counts what the page reports: that
// it has loaded (Ready) and the keydowns it has seen (Keys).
//
//	GET  /           the page
//	GET  /photo.png  the photo (Photo, as PNG)
//	POST /ready      the page has loaded, its image too, and started moving
//	POST /key        the page saw a keydown
type Server struct {
	page, photo []byte
	readyOnce   sync.Once
	ready       chan struct{}
	keys        atomic.Int64
}

// New returns a Server with the page and the photo made.
func New() (*Server, error) {
	photo, err := photoPNG()
	if err != nil {
		return nil, err
	}
	return &Server{page: []byte(page()), photo: photo, ready: make(chan struct{})}, nil
}

// Ready is closed once a page has loaded and started scrolling.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Keys is how many keydowns the pages served have reported.
func (s *Server) Keys() int64 { return s.keys.Load() }

// ServeHTTP serves the routes in Server's doc.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route := r.Method + " " + r.URL.Path
	switch route {
	case "GET /":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(s.page)
	case "GET /photo.png":
		w.Header().Set("Content-Type", "image/png")
		w.Write(s.photo)
	case "POST /ready":
		s.readyOnce.Do(func() { close(s.ready) })
		w.WriteHeader(http.StatusNoContent)
	case "POST /key":
		s.keys.Add(1)
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "workload: no route "+route, http.StatusNotFound)
	}
}

// Serve starts a Server on a loopback port for the test and returns it
// with its URL; it stops when the test ends.
func Serve(t testing.TB) (*Server, string) {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatalf("workload: %v", err)
	}
	hs := httptest.NewServer(s) // 127.0.0.1
	t.Cleanup(hs.Close)
	return s, hs.URL
}
