package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"

	"github.com/docent/docent/app/server"
)

// routeRequest makes a request for a route pattern, with placeholder ids.
func routeRequest(t *testing.T, base, pattern string) *http.Request {
	t.Helper()
	method, path, _ := strings.Cut(pattern, " ")
	for _, p := range []string{"{id}", "{schema_id}", "{schema_revid}", "{prompt_id}", "{prompt_revid}", "{tag_id}", "{extraction_id}", "{thread_id}"} {
		path = strings.ReplaceAll(path, p, "x_missing")
	}
	var body *strings.Reader
	if stateChangingMethod(method) {
		body = strings.NewReader(`{}`)
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}

// sendUntilStream is send, but an event stream, which lasts until the
// client leaves, is left after its headers.
func (f *fixture) sendUntilStream(req *http.Request) (int, []byte) {
	f.t.Helper()
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	res, err := f.ts.Client().Do(req.WithContext(ctx))
	if err != nil {
		f.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		return res.StatusCode, nil
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		f.t.Fatalf("%s %s: read body: %v", req.Method, req.URL.Path, err)
	}
	return res.StatusCode, b
}

func stateChangingMethod(m string) bool {
	return m == "POST" || m == "PUT" || m == "PATCH" || m == "DELETE"
}

// TestAccessToEveryRoute builds its table from Server.Routes, so a route
// added later is checked without editing this test.
func TestAccessToEveryRoute(t *testing.T) {
	f := newFixture(t)
	routes := f.srv.Routes()
	if len(routes) < 38 {
		t.Fatalf("only %d routes: %v", len(routes), routes)
	}
	for _, pattern := range routes {
		t.Run(pattern, func(t *testing.T) {
			public := pattern == "GET /api/health"
			check := func(name string, setup func(*http.Request), want func(int) bool) {
				t.Helper()
				req := routeRequest(t, f.ts.URL, pattern)
				setup(req)
				status, b := f.sendUntilStream(req)
				if !want(status) {
					t.Errorf("%s: status %d: %s", name, status, b)
				}
				if status == http.StatusUnauthorized && !strings.Contains(string(b), `"code":"unauthorized"`) {
					t.Errorf("%s: 401 without the code: %s", name, b)
				}
			}
			is401 := func(s int) bool { return s == http.StatusUnauthorized }
			not401 := func(s int) bool { return s != http.StatusUnauthorized }
			if public {
				is401 = not401
			}
			check("no token", func(*http.Request) {}, is401)
			check("wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+strings.Repeat("0", 64)) }, is401)
			check("wrong cookie", func(r *http.Request) { r.AddCookie(&http.Cookie{Name: server.SessionCookie, Value: testToken}) }, is401)
			check("token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+testToken) }, not401)
			method, _, _ := strings.Cut(pattern, " ")
			if stateChangingMethod(method) {
				check("foreign origin", func(r *http.Request) {
					r.Header.Set("Authorization", "Bearer "+testToken)
					r.Header.Set("Origin", "https://evil.example")
				}, func(s int) bool { return s == http.StatusForbidden })
				check("same origin", func(r *http.Request) {
					r.Header.Set("Authorization", "Bearer "+testToken)
					r.Header.Set("Origin", f.ts.URL)
				}, func(s int) bool { return s != http.StatusForbidden && s != http.StatusUnauthorized })
			}
		})
	}
}

// TestCookieFlow: the printed URL signs the browser in with a cookie and
// drops the token from the address; the API then accepts the cookie.
func TestCookieFlow(t *testing.T) {
	f := newFixture(t)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	res, err := client.Get(f.ts.URL + "/?token=" + testToken + "&view=docs")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/?view=docs" {
		t.Fatalf("sign-in: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == server.SessionCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" || strings.Contains(cookie.Value, testToken) {
		t.Fatalf("session cookie %+v", cookie)
	}
	res, err = client.Get(f.ts.URL + "/api/documents")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("API with the cookie: %d", res.StatusCode)
	}

	// A wrong token sets nothing; the page itself is served without one.
	anon, _ := cookiejar.New(nil)
	client.Jar = anon
	res, err = client.Get(f.ts.URL + "/?token=wrong")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if len(res.Cookies()) != 0 || res.StatusCode != http.StatusSeeOther {
		t.Errorf("wrong token: %d, cookies %v", res.StatusCode, res.Cookies())
	}
	res, err = client.Get(f.ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("UI without a token: %d", res.StatusCode)
	}
	res, err = client.Get(f.ts.URL + "/api/documents")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("API without the cookie: %d", res.StatusCode)
	}
}

// TestHealthIsOpenToHEADToo: the mux answers HEAD on every GET route, and
// monitors probe with HEAD, so the health check is open to both methods;
// HEAD of any other route still needs the token.
func TestHealthIsOpenToHEADToo(t *testing.T) {
	f := newFixture(t)
	if status, b := f.send(mustRequest(t, http.MethodHead, f.ts.URL+"/api/health")); status != http.StatusOK {
		t.Errorf("HEAD /api/health without a token: %d %s, want 200", status, b)
	}
	if status, b := f.send(mustRequest(t, http.MethodHead, f.ts.URL+"/api/documents")); status != http.StatusUnauthorized {
		t.Errorf("HEAD /api/documents without a token: %d %s, want 401", status, b)
	}
}

// A server on loopback answers only for loopback names: a page on another
// name rebound to 127.0.0.1 gets nothing, not even the UI.
func TestLoopbackServerRefusesOtherHostNames(t *testing.T) {
	f := newFixture(t, func(c *server.Config) { c.LoopbackOnly = true })
	for _, tc := range []struct {
		host string
		want int
	}{
		{"evil.example:8765", http.StatusMisdirectedRequest},
		{"127.0.0.1.evil.example", http.StatusMisdirectedRequest},
		{"localhost:8765", http.StatusOK},
		{"app.localhost", http.StatusOK},
		{"127.0.0.1:8765", http.StatusOK},
		{"[::1]:8765", http.StatusOK},
	} {
		for _, path := range []string{"/", "/api/health"} {
			req := f.request(t.Context(), http.MethodGet, path, nil)
			req.Host = tc.host
			status, body := f.send(req)
			if status != tc.want {
				t.Errorf("GET %s with Host %s: %d %s, want %d", path, tc.host, status, body, tc.want)
			}
		}
	}
}
