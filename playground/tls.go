package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// TLS that needs no installation (WORK-1): the command keeps a CA of its
// own and a serving certificate it signs for every name this server may be
// reached by (localhost, this machine's addresses, --allowed-hosts, the
// --listen host), and every kubeconfig it writes embeds the CA, so kubectl
// verifies the server and, over TLS, sends its token. --tls-cert and
// --tls-key use a pair of one's own instead.

// tlsOptions are the command's TLS flags.
type tlsOptions struct {
	on                bool
	dir               string // where the CA and the serving pair are kept
	certFile, keyFile string // --tls-cert, --tls-key: used as they are
}

// serving is what a TLS listener serves with: its certificate, and the CA
// that a kubeconfig embeds (the pair's own chain's last, for a pair given).
type serving struct {
	config *tls.Config
	caPEM  []byte
}

const (
	caFile, caKeyFile       = "ca.crt", "ca.key"
	servingFile, servingKey = "serving.crt", "serving.key"
	caLifetime              = 10 * 365 * 24 * time.Hour
	servingLifetime         = 365 * 24 * time.Hour
	renewBefore             = 30 * 24 * time.Hour
)

// loadTLS makes the serving certificate: the given pair, or the kept CA's
// (made on first use) for names, renewed when it does not cover them all
// or expires within renewBefore.
func loadTLS(o tlsOptions, names []string, now time.Time) (*serving, error) {
	if o.certFile != "" || o.keyFile != "" {
		if o.certFile == "" || o.keyFile == "" {
			return nil, errors.New("--tls-cert and --tls-key go together")
		}
		pair, err := tls.LoadX509KeyPair(o.certFile, o.keyFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert %s, --tls-key %s: %w", o.certFile, o.keyFile, err)
		}
		last := pair.Certificate[len(pair.Certificate)-1]
		return &serving{config: serverConfig(pair), caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: last})}, nil
	}
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return nil, fmt.Errorf("--tls-dir: %w", err)
	}
	ca, caKey, caPEM, err := keptCA(o.dir, now)
	if err != nil {
		return nil, err
	}
	pair, err := keptServing(o.dir, ca, caKey, names, now)
	if err != nil {
		return nil, err
	}
	return &serving{config: serverConfig(pair), caPEM: caPEM}, nil
}

func serverConfig(pair tls.Certificate) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
}

// keptCA reads the CA kept in dir, or makes and keeps one.
func keptCA(dir string, now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, []byte, error) {
	certPath, keyPath := filepath.Join(dir, caFile), filepath.Join(dir, caKeyFile)
	if certPEM, err := os.ReadFile(certPath); err == nil {
		cert, key, err := parsePair(certPEM, keyPath)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("the kept CA %s: %w (remove %s to make a new one)", certPath, err, dir)
		}
		return cert, key, certPEM, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "kubeplay-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, nil, err
	}
	cert, _ := x509.ParseCertificate(der)
	certPEM, err := writePair(certPath, keyPath, der, key)
	return cert, key, certPEM, err
}

// keptServing reads the serving pair kept in dir when it covers names and
// is not about to expire; otherwise it signs a new one with the CA.
func keptServing(dir string, ca *x509.Certificate, caKey *ecdsa.PrivateKey, names []string, now time.Time) (tls.Certificate, error) {
	certPath, keyPath := filepath.Join(dir, servingFile), filepath.Join(dir, servingKey)
	if certPEM, err := os.ReadFile(certPath); err == nil {
		if cert, _, err := parsePair(certPEM, keyPath); err == nil && covers(cert, names) && now.Add(renewBefore).Before(cert.NotAfter) &&
			cert.CheckSignatureFrom(ca) == nil {
			return tls.LoadX509KeyPair(certPath, keyPath)
		}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "kubeplay"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(servingLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, err
	}
	if _, err := writePair(certPath, keyPath, der, key); err != nil {
		return tls.Certificate{}, err
	}
	return tls.LoadX509KeyPair(certPath, keyPath)
}

// covers says whether cert names every one of names.
func covers(cert *x509.Certificate, names []string) bool {
	for _, n := range names {
		if cert.VerifyHostname(n) != nil {
			return false
		}
	}
	return true
}

func parsePair(certPEM []byte, keyPath string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	b, _ := pem.Decode(certPEM)
	if b == nil {
		return nil, nil, errors.New("no PEM certificate")
	}
	cert, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, err
	}
	kb, _ := pem.Decode(keyPEM)
	if kb == nil {
		return nil, nil, fmt.Errorf("%s: no PEM key", keyPath)
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", keyPath, err)
	}
	return cert, key, nil
}

func writePair(certPath, keyPath string, der []byte, key *ecdsa.PrivateKey) ([]byte, error) {
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		return nil, err
	}
	return certPEM, os.WriteFile(certPath, certPEM, 0o644)
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}

// servingNames are the names a serving certificate covers: localhost, every
// address of this machine, the --listen host and the --allowed-hosts.
func servingNames(listen string, allowedHosts []string) []string {
	names := []string{"localhost", "127.0.0.1", "::1"}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLinkLocalUnicast() {
				names = append(names, ipn.IP.String())
			}
		}
	}
	if host, _, err := net.SplitHostPort(listen); err == nil && host != "" && !net.ParseIP(host).IsUnspecified() {
		names = append(names, host)
	}
	for _, h := range allowedHosts {
		if h = strings.TrimSpace(h); h != "" {
			names = append(names, h)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// defaultTLSDir is where the CA is kept: under --data when there is one,
// else in the user's configuration directory.
func defaultTLSDir(data string) string {
	if data != "" {
		return filepath.Join(data, "tls")
	}
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "kubeplay", "tls")
	}
	return filepath.Join(os.TempDir(), "kubeplay-tls")
}
