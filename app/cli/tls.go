package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/docent/docent/storage/fault"
	"github.com/docent/docent/storage/secret"
)

// `docent --serve` beyond loopback speaks HTTPS, as Syncthing and Jupyter
// do: the sign-in token, the session cookie and every document would
// otherwise cross the network readable by anyone on it. With no
// certificate given (--tls-cert, --tls-key), Docent makes one on first use
// and keeps it in the data directory; no authority vouches for it, so the
// URL is printed with the certificate's SHA-256 fingerprint, which a person
// compares with what the browser on the other device shows.

// The self-made certificate's files inside the data directory.
const (
	tlsCertFile = "tls-cert.pem"
	tlsKeyFile  = "tls-key.pem"
)

// certificateLifetime is how long a self-made certificate is valid; an
// expired one (or one about to expire) is made anew, with a new
// fingerprint. Browsers do not cap the lifetime of a certificate a person
// accepted by hand, and a long one spares checking a new fingerprint on
// every device every year.
const certificateLifetime = 5 * 365 * 24 * time.Hour

// loadOrCreateCertificate returns the certificate kept in dir, making it
// (and its key, readable by the user alone) when there is none, or when
// the one there cannot be read or has expired. made says it was just made.
func loadOrCreateCertificate(dir string, logger *slog.Logger) (cert tls.Certificate, made bool, err error) {
	certPath, keyPath := filepath.Join(dir, tlsCertFile), filepath.Join(dir, tlsKeyFile)
	cert, err = tls.LoadX509KeyPair(certPath, keyPath)
	switch {
	case err == nil && time.Until(cert.Leaf.NotAfter) > 7*24*time.Hour:
		if err := secret.MakePrivate(keyPath, logger); err != nil {
			return tls.Certificate{}, false, err
		}
		return cert, false, nil
	case err == nil:
		logger.Warn("the HTTPS certificate expires soon or has expired; making a new one (its fingerprint changes)", "path", certPath, "not_after", cert.Leaf.NotAfter)
	case errors.Is(err, fs.ErrNotExist):
	default:
		logger.Warn("the HTTPS certificate in the data directory cannot be used; making a new one (its fingerprint changes)", "path", certPath, "err", err)
	}
	certPEM, keyPEM, err := newSelfSignedCertificate(time.Now())
	if err != nil {
		return tls.Certificate{}, false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return tls.Certificate{}, false, fmt.Errorf("create the data directory: %w", err)
	}
	// The key first: a crash between the two leaves a pair that does not
	// load, which is made anew on the next start.
	if err := secret.WritePrivateFile(keyPath, keyPEM); err != nil {
		return tls.Certificate{}, false, fmt.Errorf("write the HTTPS key: %w", err)
	}
	if err := secret.WritePrivateFile(certPath, certPEM); err != nil {
		return tls.Certificate{}, false, fmt.Errorf("write the HTTPS certificate: %w", err)
	}
	cert, err = tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, false, fmt.Errorf("load the new HTTPS certificate: %w", err)
	}
	return cert, true, nil
}

// loadCertificate loads a certificate and key the user gave.
func loadCertificate(certPath, keyPath string) (tls.Certificate, error) {
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return tls.Certificate{}, fault.Errorf(fault.Invalid, "load --tls-cert %s and --tls-key %s: %v", certPath, keyPath, err)
	}
	return cert, nil
}

// newSelfSignedCertificate makes an ECDSA P-256 key and a self-signed
// server certificate for the names this machine is reached by: its host
// name, localhost, the loopback addresses and the addresses of its network
// interfaces now. Both are returned PEM-encoded.
func newSelfSignedCertificate(now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("make an HTTPS key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, nil, fmt.Errorf("make a certificate serial number: %w", err)
	}
	dnsNames, ips := machineNames()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"Docent"}, CommonName: "Docent on " + dnsNames[0]},
		NotBefore:             now.Add(-time.Hour), // a little clock skew between devices
		NotAfter:              now.Add(certificateLifetime),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              dnsNames,
		IPAddresses:           ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("make the HTTPS certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the HTTPS key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

// machineNames are the DNS names (the host name first, then localhost) and
// the IP addresses (loopback, then the interfaces' unicast addresses) a
// certificate of this machine is made for.
func machineNames() ([]string, []net.IP) {
	var names []string
	if host, err := os.Hostname(); err == nil && host != "" && host != "localhost" {
		names = append(names, host)
		if !strings.Contains(host, ".") {
			names = append(names, host+".local") // mDNS, as phones reach a laptop
		}
	}
	names = append(names, "localhost")
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.IsGlobalUnicast() {
				ips = append(ips, n.IP)
			}
		}
	}
	return names, ips
}

// fingerprint is a certificate's SHA-256 fingerprint as browsers show it:
// upper-case hex pairs joined by colons.
func fingerprint(cert tls.Certificate) string {
	sum := sha256.Sum256(cert.Certificate[0])
	pairs := make([]string, len(sum))
	for i, b := range sum {
		pairs[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(pairs, ":")
}

// serverErrorLog is the HTTP server's ErrorLog: its lines go to logger, at
// warn, but for a failed TLS handshake. A browser that has not accepted
// the self-made certificate fails one at every connection it opens (and
// every scanner on the network does too), which said nothing new after
// the first; one line per client address is logged, at debug.
func serverErrorLog(logger *slog.Logger) *log.Logger {
	return log.New(&serverErrors{logger: logger, seen: map[string]bool{}}, "", 0)
}

// handshakeClientsKept is how many client addresses serverErrors keeps:
// past it, it forgets them all, and each logs one line again.
const handshakeClientsKept = 1024

type serverErrors struct {
	logger *slog.Logger

	mu   sync.Mutex
	seen map[string]bool // the clients whose failed handshake was logged, by IP address
}

// tlsHandshakeError starts net/http's line for a failed handshake:
// "http: TLS handshake error from 192.0.2.1:53000: remote error: tls: bad certificate".
const tlsHandshakeError = "http: TLS handshake error from "

func (e *serverErrors) Write(p []byte) (int, error) {
	line := strings.TrimSpace(string(p))
	rest, ok := strings.CutPrefix(line, tlsHandshakeError)
	if !ok {
		e.logger.Warn("HTTP server", "err", line)
		return len(p), nil
	}
	addr, reason, _ := strings.Cut(rest, ": ")
	client := addr
	if host, _, err := net.SplitHostPort(addr); err == nil {
		client = host // one line per machine, not per connection's port
	}
	e.mu.Lock()
	first := !e.seen[client]
	if first {
		if len(e.seen) >= handshakeClientsKept {
			clear(e.seen)
		}
		e.seen[client] = true
	}
	e.mu.Unlock()
	if first {
		e.logger.Debug("TLS handshake failed; a browser does this until the certificate is accepted (later ones from this client are not logged)",
			"client", client, "err", reason)
	}
	return len(p), nil
}
