package rfbgate

import (
	"context"
	"io"

	"github.com/coder/websocket"
)

// ByteStream reads and writes ws as one byte stream, as noVNC does:
// binary messages read back to back, each Write one binary message, with
// no context (so no allocation per message; close ws to end a blocked
// Read). Text messages (glass's page events, on a stream opened with the
// subprotocol "glass") are skipped: they are not RFB. A close frame from
// the peer comes back from Read as a websocket.CloseError with its code
// and reason. The relay reads its browsers this way; a Go viewer of glass
// can too.
func ByteStream(ws *websocket.Conn) io.ReadWriter { return &clientStream{ws: ws, text: skipText} }

// clientStream is ByteStream's stream.
type clientStream struct {
	ws *websocket.Conn
	r  io.Reader // the message being read
	// text takes each text message whole, outside the byte stream (the
	// relay: a page's command, or the viewer's end; ByteStream: skipped);
	// an error ends the stream.
	text func(msg io.Reader) error
}

// skipText reads a text message and drops it.
func skipText(msg io.Reader) error {
	_, err := io.Copy(io.Discard, msg)
	return err
}

// Read reads the next bytes of the browser's stream. A close frame from
// the browser comes back as a websocket.CloseError with its code and reason.
func (s *clientStream) Read(p []byte) (int, error) {
	for {
		if err := s.next(); err != nil {
			return 0, err
		}
		n, _, err := s.readMessage(p)
		if n > 0 || err != nil {
			return n, err
		}
	}
}

// next waits for a binary message to read, unless one is being read; it
// hands each text message to s.text, never to the byte stream.
func (s *clientStream) next() error {
	for s.r == nil {
		typ, r, err := s.ws.Reader(context.Background())
		if err != nil {
			return err
		}
		if typ == websocket.MessageBinary {
			s.r = r
			return nil
		}
		if err := s.text(r); err != nil {
			return err
		}
	}
	return nil
}

// readMessage reads the next bytes of the message being read (next has
// found one); end reports that the message is over, and the next call to
// next waits for another.
func (s *clientStream) readMessage(p []byte) (n int, end bool, err error) {
	n, err = s.r.Read(p)
	if err == io.EOF {
		s.r, end, err = nil, true, nil
	}
	return n, end, err
}

// Write sends p as one binary message.
func (s *clientStream) Write(p []byte) (int, error) {
	if err := s.ws.Write(context.Background(), websocket.MessageBinary, p); err != nil {
		return 0, err
	}
	return len(p), nil
}
