package server_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/agent/modeltest"
	"github.com/docent/docent/app/server"
)

// TestSlowBodyIsCutOff: a client that sends its headers and part of a
// body, then nothing, gets 408 once the body's read deadline passes, for
// an upload and for a JSON body alike; before, the connection stayed open
// for as long as the client liked.
func TestSlowBodyIsCutOff(t *testing.T) {
	f := newFixture(t, func(c *server.Config) { c.BodyTimeout = 200 * time.Millisecond })
	for _, tc := range []struct{ name, head, part string }{
		{"upload", "POST /api/documents HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=XX\r\nContent-Length: 20000\r\n",
			"--XX\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nthe first bytes of"},
		{"JSON", "POST /api/tags HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n", `{"name":"sl`},
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(f.ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// Against a hang only: the body's deadline is 200 ms.
		guard := 20 * time.Second
		_ = conn.SetReadDeadline(time.Now().Add(guard))
		fmt.Fprintf(conn, "%sHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n\r\n%s", tc.head, testToken, tc.part)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		var ne net.Error
		switch {
		case err == nil:
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), `"code":"request_timeout"`) {
				t.Errorf("%s: a body cut off answered %d %s, want 408 request_timeout", tc.name, res.StatusCode, b)
			}
		case errors.As(err, &ne) && ne.Timeout():
			t.Errorf("%s: the connection was still open after %v with the body unfinished", tc.name, guard)
		default:
			t.Errorf("%s: no answer: %v", tc.name, err)
		}
	}
}

// TestTurnOutlivesItsBodyDeadline: a chat turn is a POST whose answer
// streams long after its body was read; the body's deadline ends with the
// body (net/http lifts it when it starts watching for the client leaving),
// so the stream stays open for many times that deadline while the model
// holds its answer, and then ends with the whole answer.
func TestTurnOutlivesItsBodyDeadline(t *testing.T) {
	const deadline = 100 * time.Millisecond
	f := newFixture(t, func(c *server.Config) { c.BodyTimeout = deadline })
	hold := make(chan struct{})
	f.model.Enqueue(modeltest.Reply{Text: "First part. Second part.", ChunkRunes: 12, HoldAfterChunks: 1, Hold: hold})
	res, err := f.ts.Client().Do(f.request(t.Context(), http.MethodPost, "/api/documents/"+f.doc.ID+"/chat", map[string]any{"message": "hello", "stream": true}))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("chat: %d %s", res.StatusCode, b)
	}
	sc := bufio.NewScanner(res.Body)
	var seen strings.Builder
	start := time.Now()
	released := false
	for sc.Scan() {
		line := sc.Text()
		seen.WriteString(line + "\n")
		// Keepalives come every 50 ms: wait through ten body deadlines.
		if !released && time.Since(start) > 10*deadline && strings.Contains(seen.String(), "First part.") {
			close(hold)
			released = true
		}
		if strings.Contains(line, `"type":"done"`) || strings.Contains(line, `"type":"error"`) {
			break
		}
	}
	out := seen.String()
	if !released || !strings.Contains(out, `"type":"done"`) || !strings.Contains(out, "Second part.") {
		t.Fatalf("the stream ended before the answer (after %v, body deadline %v): %v\n%s", time.Since(start), deadline, sc.Err(), out)
	}
}
