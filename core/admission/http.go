//go:build !js

package admission

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxAnswer bounds what a webhook's answer may hold (kube reads at most
// 3 MiB of one).
const maxAnswer = 3 << 20

// HTTP is the Caller of hosts that reach the network (natively): an HTTPS
// POST as kube-apiserver's webhook client makes it, trusting the
// configuration's caBundle (the system's roots without one), within the
// webhook's timeout. A transport failure is net/http's error, which quotes
// the URL as kube's does; an answer that is no 2xx is refused with the
// generic words of kube's client.
func HTTP(ctx context.Context, url string, caBundle []byte, body []byte, timeout time.Duration) ([]byte, error) {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(caBundle)
		tlsConfig.RootCAs = pool
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	defer client.CloseIdleConnections()
	// The webhook's timeout bounds the call as a deadline, as kube's does
	// (a late answer is "context deadline exceeded").
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 206 {
		return nil, fmt.Errorf("the server responded with the status code %d but did not return more information", resp.StatusCode)
	}
	return answer, nil
}
