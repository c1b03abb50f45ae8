package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/docent/docent/storage/fault"
)

// SessionCookie is the cookie that opening the printed URL sets, so the
// browser's later requests carry the access token without it in every URL.
const SessionCookie = "docent_session"

// sessionValue is the cookie's value: derived from the token, so the token
// itself never sits in the browser's cookie jar, and stateless, so a restart
// with the same token keeps the browser signed in.
func sessionValue(token string) string {
	sum := sha256.Sum256([]byte("docent-session\x00" + token))
	return hex.EncodeToString(sum[:])
}

// allow applies the access rules before routing. It answers the request
// itself and returns false when the request goes no further:
//   - `?token=T` on a page (not /api/) sets the session cookie and
//     redirects to the same URL without the token, so it does not stay in
//     the address bar and history;
//   - every /api/ route but the health check (GET or HEAD /api/health),
//     and /mcp, need the token, as a bearer header or the session cookie (401
//     otherwise);
//   - a state-changing request from a page of another origin is refused
//     (403), so a site the user visits cannot drive the API through the
//     browser's cookie.
func (s *Server) allow(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.LoopbackOnly && !loopbackHost(r.Host) {
		// DNS rebinding: another site's name pointing at 127.0.0.1.
		s.writeError(w, r, fault.Errorf(codeMisdirected, "this server answers only for localhost and 127.0.0.1, not for %q", r.Host))
		return false
	}
	if s.cfg.Token == "" {
		return true
	}
	api := r.URL.Path == "/api" || strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/mcp"
	if !api && r.URL.Query().Has("token") {
		s.signIn(w, r)
		return false
	}
	if api && !public(r) && !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="docent"`)
		s.writeError(w, r, fault.Errorf(codeUnauthorized, "this API needs the access token: open the URL docent --serve printed, or send Authorization: Bearer TOKEN"))
		return false
	}
	if stateChanging(r.Method) && !sameOrigin(r) {
		s.writeError(w, r, fault.Errorf(codeForbiddenOrigin, "requests from origin %s may not change anything here", r.Header.Get("Origin")))
		return false
	}
	return true
}

// loopbackHost reports whether a Host header names this machine: a
// loopback address or localhost (and its subdomains, which resolve to
// loopback by RFC 6761), with or without a port.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// public reports whether r is for the one API route open without the
// token: the health check, "GET /api/health", which the mux also answers
// for HEAD (as it does every GET route), so both methods are open.
func public(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Path == "/api/health"
}

// authorized reports whether r carries the token or the session cookie.
// Both comparisons take constant time.
func (s *Server) authorized(r *http.Request) bool {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		if ok && strings.EqualFold(scheme, "Bearer") && equal(strings.TrimSpace(tok), s.cfg.Token) {
			return true
		}
	}
	if c, err := r.Cookie(SessionCookie); err == nil && equal(c.Value, s.session) {
		return true
	}
	return false
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// signIn answers a page request carrying ?token=: with the right token it
// sets the session cookie; either way it redirects to the URL without the
// token (a wrong token leads to the page, which says to open the printed
// link).
func (s *Server) signIn(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if equal(q.Get("token"), s.cfg.Token) {
		http.SetCookie(w, &http.Cookie{
			Name: SessionCookie, Value: s.session, Path: "/",
			HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
		})
	}
	q.Del("token")
	target := url.URL{Path: localPath(r.URL.Path), RawQuery: q.Encode()}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, target.String(), http.StatusSeeOther)
}

// localPath is a request's path as a redirect target that stays on this
// server: one leading slash. A browser reads "//evil.example/x" (and
// "/\evil.example/x") in a Location header as another host, which would
// make the sign-in link an open redirect.
func localPath(p string) string {
	return "/" + strings.TrimLeft(p, `/\`)
}

func stateChanging(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// sameOrigin reports whether r's Origin header, when there is one, names
// the host r was sent to. Clients other than browsers send no Origin.
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false // "null" (sandboxed frames, file://) or garbage
	}
	return strings.EqualFold(u.Host, r.Host)
}
