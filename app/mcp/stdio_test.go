package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docent/docent/agent"
	docentmcp "github.com/docent/docent/app/mcp"
)

// rawClient speaks JSON-RPC lines to ServeStdio, as a client that sends
// what it likes.
type rawClient struct {
	t   *testing.T
	in  *io.PipeWriter
	out *bufio.Reader
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("send %.80q: %v", line, err)
	}
}

// answer reads the next line the server writes.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func (c *rawClient) next() answer {
	c.t.Helper()
	type read struct {
		line string
		err  error
	}
	got := make(chan read, 1)
	go func() {
		line, err := c.out.ReadString('\n')
		got <- read{line, err}
	}()
	var line string
	select {
	case r := <-got:
		if r.err != nil {
			c.t.Fatalf("read the answer: %v", r.err)
		}
		line = r.line
	case <-time.After(30 * time.Second): // against a hang only
		c.t.Fatal("no answer: the server wrote nothing more")
	}
	var a answer
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		c.t.Fatalf("the answer %.200q is not JSON: %v", line, err)
	}
	return a
}

// serveStdio serves f's agent on pipes, as `docent mcp` serves stdin and
// stdout, and returns a raw client on them; the server must return when
// the test ends and closes its input.
func serveStdio(t *testing.T, f *fixture) *rawClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- docentmcp.ServeStdio(ctx, docentmcp.Options{Agent: func() *agent.Agent { return f.agent }, Edge: "stdio"}, false, inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(30 * time.Second): // against a hang only
			t.Error("ServeStdio did not return when its input closed")
		}
	})
	return &rawClient{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
}

// TestStdioAnswersBadInputAndGoesOn: malformed JSON-RPC, a line that is
// JSON but no message, a request before initialize, an unknown method, a
// 10 MB argument and a message over the limit each get an error, and the
// same session serves the calls after them.
func TestStdioAnswersBadInputAndGoesOn(t *testing.T) {
	f := newFixture(t, false)
	c := serveStdio(t, f)

	expectError := func(what string, code int, id string) {
		t.Helper()
		a := c.next()
		if a.Error == nil || a.Error.Code != code || string(a.ID) != id {
			t.Errorf("%s: answer id %s error %+v, want code %d for id %s", what, a.ID, a.Error, code, id)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if a := c.next(); a.Error == nil || string(a.ID) != "1" {
		t.Errorf("a request before initialize: %+v", a)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if a := c.next(); a.Error != nil || !strings.Contains(string(a.Result), `"docent"`) {
		t.Fatalf("initialize: %+v %s", a.Error, a.Result)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"`) // cut short
	expectError("malformed JSON", -32700, "null")
	c.send(`42`)
	expectError("JSON but no message", -32600, "null")
	c.send(`{"id":4,"method":"ping"}`)
	expectError("no jsonrpc version", -32600, "4")
	c.send(`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`)
	expectError("an id that is an object", -32600, "null")
	c.send(`{"jsonrpc":"2.0","id":5,"method":"no/such"}`)
	expectError("an unknown method", -32601, "5")
	c.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_ocr_text","arguments":{"document_id":"` + f.doc.ID + `","page_num":"one"}}}`)
	if a := c.next(); a.Error != nil || !strings.Contains(string(a.Result), `"isError":true`) || !strings.Contains(string(a.Result), "page_num") {
		t.Errorf("a wrong argument type: %+v %s", a.Error, a.Result)
	}

	// A 10 MB argument is read and answered; a message over 16 MiB is
	// refused alone.
	big := strings.Repeat("x", 10<<20)
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_tag","arguments":{"tag_id":"` + big + `"}}}`)
	if a := c.next(); string(a.ID) != "7" || a.Error != nil || !strings.Contains(string(a.Result), `"isError":true`) {
		t.Errorf("a 10 MB argument: id %s error %+v result %.200s", a.ID, a.Error, a.Result)
	}
	c.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_tag","arguments":{"tag_id":"` + strings.Repeat(big, 2) + `"}}}`)
	expectError("a message over the limit", -32600, "8") // its id, from its start

	// The session goes on.
	c.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get_document","arguments":{"document_id":"` + f.doc.ID + `"}}}`)
	if a := c.next(); a.Error != nil || string(a.ID) != "9" || !strings.Contains(string(a.Result), "acme.txt") {
		t.Errorf("after the bad input, get_document: %+v %.300s", a.Error, a.Result)
	}
	if _, err := f.db.GetDocument(context.Background(), f.doc.ID); err != nil {
		t.Errorf("the document: %v", err)
	}
}

// TestStdioBadResourceURIIsNotFound: a resource URI with a control
// character, or with a character Go quotes in a way JSON does not read
// (\x7f, \U0010ffff), is "Resource not found" with the URI as JSON data,
// whether no template takes it (the SDK's answer) or Docent's handler
// does not find it; and the session answers the next request.
func TestStdioBadResourceURIIsNotFound(t *testing.T) {
	f := newFixture(t, false)
	c := serveStdio(t, f)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if a := c.next(); a.Error != nil {
		t.Fatalf("initialize: %+v", a.Error)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, uri := range badResourceURIs {
		id := strconv.Itoa(10 + i)
		params, _ := json.Marshal(map[string]string{"uri": uri})
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"resources/read","params":` + string(params) + `}`)
		a := c.next()
		if string(a.ID) != id || a.Error == nil || int64(a.Error.Code) != sdk.CodeResourceNotFound || a.Error.Message != "Resource not found" {
			t.Errorf("read %+q: answer id %s error %+v result %.100s, want Resource not found (%d) for id %s", uri, a.ID, a.Error, a.Result, sdk.CodeResourceNotFound, id)
		}
		var data struct{ URI string }
		if err := json.Unmarshal(a.Error.Data, &data); err != nil || data.URI != uri {
			t.Errorf("read %+q: the error's data %s (%v), want the URI", uri, a.Error.Data, err)
		}
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"docent://documents/` + f.doc.ID + `"}}`)
	if a := c.next(); a.Error != nil || string(a.ID) != "2" || !strings.Contains(string(a.Result), "Invoice A-1") {
		t.Errorf("after the bad URIs, reading the document: %+v %.300s", a.Error, a.Result)
	}
}
