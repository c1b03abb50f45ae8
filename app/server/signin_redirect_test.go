package server_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawGet sends a request line as written, which no client library would
// send as is ("GET //evil.example/x"), and returns the server's answer.
func rawGet(t *testing.T, base, target string) *http.Response {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second)) // against a hang only
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", target); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	res.Body.Close()
	return res
}

// TestSignInRedirectsOnlyToThisServer: the sign-in link's redirect drops
// the token and stays on this server, whatever the path looks like; a
// path a browser reads as another host ("//evil.example/x",
// "/\evil.example/x") is not an open redirect.
func TestSignInRedirectsOnlyToThisServer(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct{ target, want string }{
		{"/?token=" + testToken + "&view=docs", "/?view=docs"},
		{"/documents/doc_1?token=" + testToken, "/documents/doc_1"},
		{"//evil.example/x?token=" + testToken, "/evil.example/x"},
		{"///evil.example/x?token=" + testToken, "/evil.example/x"},
		{`/\evil.example/x?token=` + testToken, "/evil.example/x"},
		{`/%5Cevil.example/x?token=` + testToken, "/evil.example/x"},
		{"/%2F%2Fevil.example/x?token=" + testToken, "/evil.example/x"},
		{"//evil.example/x?token=wrong", "/evil.example/x"},
	} {
		res := rawGet(t, f.ts.URL, tc.target)
		loc := res.Header.Get("Location")
		if res.StatusCode != http.StatusSeeOther || loc != tc.want {
			t.Errorf("GET %s: %d Location %q, want 303 to %q", tc.target, res.StatusCode, loc, tc.want)
		}
	}
}
