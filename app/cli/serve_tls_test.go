package cli

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/docent/docent/app/server"
)

// served is a `docent --serve` running in the test, as Run starts it.
type served struct {
	url, token, fingerprint string // what it printed
	stderr                  *syncBuffer
}

var fingerprintPattern = regexp.MustCompile(`(?m)^Certificate fingerprint \(SHA-256\): ((?:[0-9A-F]{2}:){31}[0-9A-F]{2})$`)

// serve starts `docent --serve` with args on the data directory and waits
// for the URL it prints; the server stops when the test ends.
func serve(t *testing.T, data string, args ...string) served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errOut := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, append([]string{"--data-dir", data, "--serve"}, args...), &IOStreams{In: strings.NewReader(""), Out: out, Err: errOut})
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != ExitOK {
			t.Errorf("docent --serve %v ended with %d: %s", args, code, errOut.String())
		}
	})
	var s served
	// Against a hang only: the server prints its URL as soon as it listens.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		text := out.String()
		if _, after, ok := strings.Cut(text, "serving on "); ok {
			line, _, _ := strings.Cut(after, "\n")
			s.url, s.token, _ = strings.Cut(line, "/?token=")
			if m := fingerprintPattern.FindStringSubmatch(text); m != nil {
				s.fingerprint = m[1]
			}
			s.stderr = errOut
			return s
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("docent --serve %v ended with %d before printing a URL: %s", args, code, errOut.String())
		default:
		}
	}
	t.Fatalf("docent --serve %v printed no URL: %q", args, out.String())
	return s
}

func certFingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	hex := fmt.Sprintf("% X", sum[:])
	return strings.ReplaceAll(hex, " ", ":")
}

// pinnedClient trusts the one certificate whose SHA-256 fingerprint a
// person read beside the URL, as they would compare it on another device.
func pinnedClient(fp string) *http.Client {
	return &http.Client{
		Transport: &http.Transport{TLSClientConfig: &tls.Config{
			InsecureSkipVerify: true, // no authority vouches for it: the fingerprint does
			VerifyConnection: func(cs tls.ConnectionState) error {
				if got := certFingerprint(cs.PeerCertificates[0].Raw); got != fp {
					return fmt.Errorf("certificate fingerprint %s, printed %s", got, fp)
				}
				return nil
			},
		}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// TestServeBeyondLoopbackSpeaksHTTPS: `--listen 0.0.0.0:PORT` serves
// HTTPS with a certificate Docent makes in the data directory; the
// printed fingerprint is the certificate's, which is valid for 127.0.0.1;
// a client that checks it signs in and gets a Secure cookie (and no HSTS);
// plain HTTP is refused; the next start keeps the certificate.
func TestServeBeyondLoopbackSpeaksHTTPS(t *testing.T) {
	data := t.TempDir()
	s := serve(t, data, "--listen", "0.0.0.0:0")
	if !strings.HasPrefix(s.url, "https://127.0.0.1:") || s.fingerprint == "" {
		t.Fatalf("printed %q, fingerprint %q: want an https URL and the certificate's fingerprint", s.url, s.fingerprint)
	}
	client := pinnedClient(s.fingerprint)

	res, err := client.Get(s.url + "/?token=" + s.token)
	if err != nil {
		t.Fatalf("sign in over HTTPS, checking the printed fingerprint: %v", err)
	}
	res.Body.Close()
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == server.SessionCookie {
			cookie = c
		}
	}
	if res.StatusCode != http.StatusSeeOther || cookie == nil || !cookie.Secure || !cookie.HttpOnly {
		t.Fatalf("sign-in: %d, cookie %+v: want 303 and a Secure, HttpOnly session cookie", res.StatusCode, cookie)
	}
	if h := res.Header.Get("Strict-Transport-Security"); h != "" {
		t.Errorf("HSTS %q for a self-made certificate", h)
	}
	req, _ := http.NewRequest("GET", s.url+"/api/documents", nil)
	req.AddCookie(cookie)
	res, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.TLS == nil {
		t.Fatalf("API with the cookie over HTTPS: %d %s", res.StatusCode, body)
	}

	// The certificate names this address: a client that trusts it (and
	// checks the name, as a browser does once it is accepted) connects.
	leaf := res.TLS.PeerCertificates[0]
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	strict := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if res, err := strict.Get(s.url + "/api/health"); err != nil {
		t.Errorf("a client that trusts the certificate and checks the name 127.0.0.1: %v", err)
	} else {
		res.Body.Close()
	}
	if leaf.PublicKeyAlgorithm != x509.ECDSA || leaf.NotAfter.Before(time.Now().AddDate(1, 0, 0)) {
		t.Errorf("certificate: %v key, valid until %v", leaf.PublicKeyAlgorithm, leaf.NotAfter)
	}
	if !strings.Contains(strings.Join(leaf.DNSNames, ","), "localhost") {
		t.Errorf("certificate names %v, want localhost among them", leaf.DNSNames)
	}

	// Plain HTTP to the same port is refused, saying why.
	res, err = http.Get("http://" + strings.TrimPrefix(s.url, "https://") + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "HTTP request to an HTTPS server") {
		t.Errorf("plain HTTP: %d %s, want 400 and why", res.StatusCode, body)
	}

	// The key is the user's alone.
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(filepath.Join(data, tlsKeyFile)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("key file: %v %v, want mode 0600", fi, err)
		}
	}
	if !strings.Contains(s.stderr.String(), "made an HTTPS certificate") {
		t.Errorf("first start does not say it made a certificate: %s", s.stderr.String())
	}
}

// TestServeKeepsItsCertificate: a second start on the same data
// directory serves the same certificate (the fingerprint a person checked
// stays valid).
func TestServeKeepsItsCertificate(t *testing.T) {
	data := t.TempDir()
	cert, made, err := loadOrCreateCertificate(data, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil || !made {
		t.Fatalf("make: %v, made %v", err, made)
	}
	s := serve(t, data, "--listen", "0.0.0.0:0")
	if want := fingerprint(cert); s.fingerprint != want {
		t.Errorf("fingerprint %s, want the kept certificate's %s", s.fingerprint, want)
	}
	if strings.Contains(s.stderr.String(), "made an HTTPS certificate") {
		t.Errorf("a certificate was made again: %s", s.stderr.String())
	}
	if res, err := pinnedClient(s.fingerprint).Get(s.url + "/api/health"); err != nil {
		t.Errorf("health over HTTPS: %v", err)
	} else {
		res.Body.Close()
	}
}

// TestInsecureHTTPBeyondLoopbackWarns: plain HTTP beyond loopback only
// when asked, and with a warning.
func TestInsecureHTTPBeyondLoopbackWarns(t *testing.T) {
	data := t.TempDir()
	s := serve(t, data, "--listen", "0.0.0.0:0", "--insecure-http")
	if !strings.HasPrefix(s.url, "http://127.0.0.1:") || s.fingerprint != "" {
		t.Fatalf("printed %q (fingerprint %q), want a plain http URL", s.url, s.fingerprint)
	}
	res, err := http.Get(s.url + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("plain HTTP with --insecure-http: %d", res.StatusCode)
	}
	if !strings.Contains(s.stderr.String(), "--insecure-http") || !strings.Contains(s.stderr.String(), "take over the session") {
		t.Errorf("no warning: %s", s.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(data, tlsCertFile)); err == nil {
		t.Errorf("a certificate was made for plain HTTP")
	}
}

// TestGivenCertificateServesHTTPS: --tls-cert and --tls-key serve HTTPS
// with that certificate, on loopback too, and nothing is made.
func TestGivenCertificateServesHTTPS(t *testing.T) {
	dir := t.TempDir()
	certPEM, keyPEM, err := newSelfSignedCertificate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	if err := os.WriteFile(certPath, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	s := serve(t, data, "--listen", "127.0.0.1:0", "--tls-cert", certPath, "--tls-key", keyPath)
	if !strings.HasPrefix(s.url, "https://127.0.0.1:") || s.fingerprint != fingerprint(cert) {
		t.Fatalf("printed %q with fingerprint %q, want https and %s", s.url, s.fingerprint, fingerprint(cert))
	}
	res, err := pinnedClient(s.fingerprint).Get(s.url + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if _, err := os.Stat(filepath.Join(data, tlsCertFile)); err == nil {
		t.Errorf("a certificate was made although one was given")
	}
}

func TestServeTLSFlagsThatDoNotGoTogether(t *testing.T) {
	cert := filepath.Join(t.TempDir(), "c.pem")
	for _, args := range [][]string{
		{"--serve", "--tls-cert", cert},
		{"--serve", "--tls-key", cert},
		{"--serve", "--tls-cert", cert, "--tls-key", cert, "--insecure-http"},
		{"--tls-cert", cert, "--tls-key", cert},
		{"--insecure-http"},
	} {
		if code, _, errOut := docent(t, t.TempDir(), args...); code != ExitUsage {
			t.Errorf("%v: exit %d %q, want a usage error", args, code, errOut)
		}
	}
	// A certificate that cannot be read is a clear error, not a plain server.
	code, _, errOut := docent(t, t.TempDir(), "--serve", "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", cert)
	if code == ExitOK || !strings.Contains(errOut, "--tls-cert") {
		t.Errorf("missing certificate: exit %d %q", code, errOut)
	}
}

// TestFailedHandshakesAreLoggedOncePerClient: a browser that does not
// trust the self-made certificate fails a handshake at every connection.
// With DOCENT_LOG_LEVEL=debug the log has one line for that client, at
// debug, however often it tries; another client gets its own line; and
// nothing reaches the process's standard log (where net/http wrote a line
// for each).
func TestFailedHandshakesAreLoggedOncePerClient(t *testing.T) {
	t.Setenv("DOCENT_LOG_LEVEL", "debug")
	var stdlog syncBuffer
	log.SetOutput(&stdlog)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	s := serve(t, t.TempDir(), "--listen", "0.0.0.0:0")
	addr := strings.TrimPrefix(s.url, "https://")

	// refuse connects from the address from (nil: the system picks) and
	// refuses the certificate, as a browser does before a person accepts
	// it. The server logs the failure, then closes the connection: reading
	// to its end waits for the log.
	refuse := func(from net.Addr) {
		t.Helper()
		raw, err := (&net.Dialer{LocalAddr: from}).Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connect from %v: %v", from, err)
		}
		defer raw.Close()
		if err := tls.Client(raw, &tls.Config{ServerName: "127.0.0.1"}).Handshake(); err == nil {
			t.Fatal("a client with the system's authorities accepted the self-made certificate")
		}
		_ = raw.SetReadDeadline(time.Now().Add(30 * time.Second)) // against a hang only
		if _, err := io.Copy(io.Discard, raw); err != nil {
			t.Fatalf("the server did not close the connection after the failed handshake: %v", err)
		}
	}
	handshakeLines := func() []string {
		var lines []string
		for line := range strings.Lines(s.stderr.String() + stdlog.String()) {
			if strings.Contains(line, "TLS handshake") {
				lines = append(lines, line)
			}
		}
		return lines
	}

	refuse(nil)
	refuse(nil)
	if lines := handshakeLines(); len(lines) != 1 || !strings.Contains(lines[0], "level=DEBUG") || !strings.Contains(lines[0], "client=127.0.0.1 ") {
		t.Fatalf("after two failed handshakes from 127.0.0.1, the log has %d lines about them, want one at debug naming the client:\n%s", len(lines), strings.Join(lines, ""))
	}
	refuse(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)})
	refuse(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)})
	if lines := handshakeLines(); len(lines) != 2 || !strings.Contains(lines[1], "client=127.0.0.2 ") {
		t.Errorf("after two more from 127.0.0.2, %d lines, want one more naming it:\n%s", len(lines), strings.Join(lines, ""))
	}
}
