package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kubeplay/internal/launch"
)

const (
	// token is refapi's admin token; kubeplay is given the same (adminTokens).
	token     = launch.RefapiToken
	namespace = "bench"
	mediaJSON = "application/json"
	mediaPB   = "application/vnd.kubernetes.protobuf"
)

// Row keys, in the order the table prints them.
const (
	rowCreate     = "create"
	rowGet        = "get"
	rowListJSONGz = "list-json-gzip"
	rowListJSON   = "list-json"
	rowListPBGz   = "list-pb-gzip"
	rowListPB     = "list-pb"
	rowFanout     = "fanout"
	rowRSS        = "rss"
)

// listVariant is one way of listing every ConfigMap.
type listVariant struct {
	row, accept string
	gzip        bool
}

var listVariants = []listVariant{
	{rowListJSONGz, mediaJSON, true},
	{rowListJSON, mediaJSON, false},
	{rowListPBGz, mediaPB, true},
	{rowListPB, mediaPB, false},
}

// clients are HTTP/1.1 clients of one server, each with its own connections.
type clients struct {
	base  string
	work  *http.Client // cfg.conns connections: creates, GETs, the fan-out's writes
	gzip  *http.Client // one connection that asks for gzip, as Go's client does by default
	plain *http.Client // one connection that does not
	watch *http.Client // a connection per watcher
	all   []*http.Transport
}

func newClients(base string, conns int) *clients {
	c := &clients{base: base}
	mk := func(maxConns int, compression bool) *http.Client {
		t := &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, // both servers' certificates are self-signed
			TLSHandshakeTimeout: 10 * time.Second,
			MaxConnsPerHost:     maxConns,
			MaxIdleConnsPerHost: max(maxConns, 1),
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  !compression,
			Protocols:           new(http.Protocols),
		}
		t.Protocols.SetHTTP1(true) // n connections means n connections, not one HTTP/2 connection
		c.all = append(c.all, t)
		return &http.Client{Transport: t}
	}
	c.work = mk(conns, true)
	c.gzip = mk(1, true)
	c.plain = mk(1, false)
	c.watch = mk(0, true)
	return c
}

func (c *clients) close() {
	for _, t := range c.all {
		t.CloseIdleConnections()
	}
}

// response is what one request got back, its body read whole.
type response struct {
	status       int
	body         []byte
	contentType  string
	uncompressed bool // the server gzipped it and the client inflated it
}

func (c *clients) do(ctx context.Context, hc *http.Client, method, path, accept string, body []byte) (response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", accept)
	if body != nil {
		req.Header.Set("Content-Type", mediaJSON)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	return response{status: resp.StatusCode, body: b, contentType: resp.Header.Get("Content-Type"), uncompressed: resp.Uncompressed}, nil
}

// expect does a request and fails unless it answers with one of the codes.
func (c *clients) expect(ctx context.Context, hc *http.Client, method, path, accept string, body []byte, codes ...int) (response, error) {
	r, err := c.do(ctx, hc, method, path, accept, body)
	if err != nil {
		return r, fmt.Errorf("%s %s: %w", method, path, err)
	}
	for _, code := range codes {
		if r.status == code {
			return r, nil
		}
	}
	return r, fmt.Errorf("%s %s: %d %.300s", method, path, r.status, r.body)
}

// configMap is a ConfigMap named name with size bytes of data.
func configMap(name string, size int, rng *rand.Rand) []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
	data := make([]byte, size)
	for i := range data {
		data[i] = alphabet[rng.IntN(len(alphabet))]
	}
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"data":       map[string]string{"payload": string(data)},
	})
	return b
}

// parallel runs do(0..n-1) on conns goroutines and returns the rate (calls per
// second) from the first start to the last finish; the first error stops it.
func parallel(ctx context.Context, conns, n int, do func(ctx context.Context, i int) error) (float64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	start := time.Now()
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := do(ctx, i); err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return 0, firstErr
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return float64(n) / elapsed.Seconds(), nil
}

// runWorkload runs every row against a freshly started server and records one
// value per row.
// With capture, it keeps the lists' bodies in cfg.listBodies for the floor.
func runWorkload(ctx context.Context, cfg *config, srv *server, capture bool, rec func(string, float64), logf func(string, ...any)) error {
	c := newClients(srv.url, cfg.conns)
	defer c.close()
	cmPath := "/api/v1/namespaces/" + namespace + "/configmaps"

	ns := []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + namespace + `"}}`)
	if _, err := c.expect(ctx, c.work, "POST", "/api/v1/namespaces", mediaJSON, ns, 201, 409); err != nil {
		return err
	}
	// Open every connection (and do every TLS handshake) before timing.
	if _, err := parallel(ctx, cfg.conns, 4*cfg.conns, func(ctx context.Context, _ int) error {
		_, err := c.expect(ctx, c.work, "GET", "/api/v1/namespaces/"+namespace, mediaJSON, nil, 200)
		return err
	}); err != nil {
		return err
	}

	rng := rand.New(rand.NewPCG(1, 2))
	bodies := make([][]byte, cfg.objects)
	for i := range bodies {
		bodies[i] = configMap(fmt.Sprintf("cm-%05d", i), cfg.objectBytes, rng)
	}
	stopProfile := beginPhase(ctx, cfg, srv, rowCreate, cfg.objects, rec)
	rate, err := parallel(ctx, cfg.conns, cfg.objects, func(ctx context.Context, i int) error {
		_, err := c.expect(ctx, c.work, "POST", cmPath, mediaJSON, bodies[i], 201)
		return err
	})
	if err := errors.Join(err, stopProfile()); err != nil {
		return err
	}
	logf("  create: %.0f/s", rate)
	rec(rowCreate, rate)

	stopProfile = beginPhase(ctx, cfg, srv, rowGet, cfg.gets, rec)
	rate, err = parallel(ctx, cfg.conns, cfg.gets, func(ctx context.Context, i int) error {
		_, err := c.expect(ctx, c.work, "GET", fmt.Sprintf("%s/cm-%05d", cmPath, i%cfg.objects), mediaJSON, nil, 200)
		return err
	})
	if err := errors.Join(err, stopProfile()); err != nil {
		return err
	}
	logf("  get: %.0f/s", rate)
	rec(rowGet, rate)

	for _, v := range listVariants {
		stopProfile = beginPhase(ctx, cfg, srv, v.row, cfg.lists+1, rec)
		ms, warm, err := timeLists(ctx, cfg, c, cmPath, v)
		if err := errors.Join(err, stopProfile()); err != nil {
			return err
		}
		if !v.gzip && capture {
			cfg.listBodies[v.accept] = warm.body
		}
		logf("  %s: %.1f ms (of %.1f)", v.row, median(ms), ms)
		rec(v.row, median(ms))
	}

	var fan []float64
	var fanCPU []float64
	stopProfile = startProfile(ctx, cfg, srv, rowFanout)
	for k := range cfg.watchRuns {
		var f fanoutResult
		if f, err = fanout(ctx, c, cfg, srv.pid, k); err != nil {
			err = fmt.Errorf("watch fan-out: %w", err)
			break
		}
		logf("  fan-out %d: writes done after %.1f ms, every watcher had every event after %.1f ms; server CPU %.0f ms",
			k+1, ms(f.writes), ms(f.all), f.cpuMS)
		fan = append(fan, ms(f.all))
		fanCPU = append(fanCPU, f.cpuMS)
	}
	if err := errors.Join(err, stopProfile()); err != nil {
		return err
	}
	logf("  fan-out: %.1f ms (of %.1f)", median(fan), fan)
	rec(rowFanout, median(fan))
	rec(cpuRow(rowFanout), median(fanCPU))

	if cfg.profileDir != "" && srv.profileURL != "" {
		if err := postProfile(ctx, srv, "/heap?out="+url.QueryEscape(filepath.Join(cfg.profileDir, "heap.pprof"))); err != nil {
			return err
		}
	}
	rss, peak, err := memory(srv.pid)
	if err != nil {
		return fmt.Errorf("memory of pid %d: %w", srv.pid, err)
	}
	logf("  rss: %.0f MB (peak %.0f MB)", rss/1e6, peak/1e6)
	rec(rowRSS, rss/1e6)
	return nil
}

// timeLists lists path as v says: once to warm up and check the answer, which
// it returns, then cfg.lists times, timed, in milliseconds.
func timeLists(ctx context.Context, cfg *config, c *clients, path string, v listVariant) ([]float64, response, error) {
	hc := c.plain
	if v.gzip {
		hc = c.gzip
	}
	r, err := c.expect(ctx, hc, "GET", path, v.accept, nil, 200)
	if err != nil {
		return nil, r, err
	}
	if !strings.HasPrefix(r.contentType, v.accept) {
		return nil, r, fmt.Errorf("list as %s came back as %s", v.accept, r.contentType)
	}
	if v.gzip != r.uncompressed {
		return nil, r, fmt.Errorf("list as %s, asking for gzip %v: the answer was gzipped: %v", v.accept, v.gzip, r.uncompressed)
	}
	if v.accept == mediaJSON {
		var l struct{ Items []json.RawMessage }
		if err := json.Unmarshal(r.body, &l); err != nil {
			return nil, r, fmt.Errorf("list: %w", err)
		}
		if len(l.Items) != cfg.objects {
			return nil, r, fmt.Errorf("list has %d items, want %d", len(l.Items), cfg.objects)
		}
	}
	var ms []float64
	for range cfg.lists {
		start := time.Now()
		if _, err := c.expect(ctx, hc, "GET", path, v.accept, nil, 200); err != nil {
			return nil, r, err
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
	}
	return ms, r, nil
}

// fanoutResult is one fan-out: how long until every watcher had every write,
// how long the writes alone took, and the server's CPU time meanwhile.
type fanoutResult struct {
	all, writes time.Duration
	cpuMS       float64
}

// fanout starts cfg.watchers watches of the namespace's ConfigMaps, then makes
// cfg.writes creates, and returns the time from the first write until every
// watcher has seen every one of them.
func fanout(ctx context.Context, c *clients, cfg *config, pid, run int) (fanoutResult, error) {
	cmPath := "/api/v1/namespaces/" + namespace + "/configmaps"
	r, err := c.expect(ctx, c.work, "GET", cmPath+"?limit=1", mediaJSON, nil, 200)
	if err != nil {
		return fanoutResult{}, err
	}
	var l struct {
		Metadata struct{ ResourceVersion string }
	}
	if err := json.Unmarshal(r.body, &l); err != nil || l.Metadata.ResourceVersion == "" {
		return fanoutResult{}, fmt.Errorf("list's resourceVersion: %v %.200s", err, r.body)
	}
	prefix := fmt.Sprintf("fan%d-", run)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type seen struct {
		at  time.Time
		err error
	}
	ready := make(chan error, cfg.watchers)
	done := make(chan seen, cfg.watchers)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	url := c.base + cmPath + "?watch=true&resourceVersion=" + l.Metadata.ResourceVersion
	for range cfg.watchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
			if err != nil {
				ready <- err
				return
			}
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Accept", mediaJSON)
			resp, err := c.watch.Do(req)
			if err != nil {
				ready <- err
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
				ready <- fmt.Errorf("watch: %d %s", resp.StatusCode, b)
				return
			}
			ready <- nil
			n, err := countUntil(resp.Body, []byte(`"name":"`+prefix), cfg.writes)
			if err == nil && n < cfg.writes {
				err = fmt.Errorf("watch ended after %d of %d events", n, cfg.writes)
			}
			done <- seen{time.Now(), err}
		}()
	}
	for range cfg.watchers {
		select {
		case err := <-ready:
			if err != nil {
				return fanoutResult{}, err
			}
		case <-ctx.Done():
			return fanoutResult{}, ctx.Err()
		}
	}

	rng := rand.New(rand.NewPCG(3, uint64(run)))
	bodies := make([][]byte, cfg.writes)
	for i := range bodies {
		bodies[i] = configMap(fmt.Sprintf("%s%04d", prefix, i), cfg.objectBytes, rng)
	}
	ticks, err := cpuTicks(pid)
	if err != nil {
		return fanoutResult{}, err
	}
	start := time.Now()
	if _, err := parallel(ctx, cfg.conns, cfg.writes, func(ctx context.Context, i int) error {
		_, err := c.expect(ctx, c.work, "POST", cmPath, mediaJSON, bodies[i], 201)
		return err
	}); err != nil {
		return fanoutResult{}, err
	}
	writes := time.Since(start)
	var last time.Time
	timeout := time.After(60 * time.Second)
	for range cfg.watchers {
		select {
		case s := <-done:
			if s.err != nil {
				return fanoutResult{}, s.err
			}
			if s.at.After(last) {
				last = s.at
			}
		case <-timeout:
			return fanoutResult{}, errors.New("not every watcher saw every write within 60s")
		case <-ctx.Done():
			return fanoutResult{}, ctx.Err()
		}
	}
	end, err := cpuTicks(pid)
	if err != nil {
		return fanoutResult{}, err
	}
	return fanoutResult{all: last.Sub(start), writes: writes, cpuMS: float64(end-ticks) * msPerTick}, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// countUntil reads r until it has seen pattern want times (or r ends) and
// returns how many times it saw it, matches split across reads included.
func countUntil(r io.Reader, pattern []byte, want int) (int, error) {
	buf := make([]byte, 64<<10)
	keep := len(pattern) - 1 // a partial match at the end of one read
	tail, n := 0, 0
	for n < want {
		m, err := r.Read(buf[tail:])
		if m > 0 {
			data := buf[:tail+m]
			n += bytes.Count(data, pattern)
			tail = min(keep, len(data))
			copy(buf, data[len(data)-tail:])
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// serverVersion is /version's gitVersion.
func serverVersion(ctx context.Context, srv *server) string {
	c := newClients(srv.url, 1)
	defer c.close()
	r, err := c.expect(ctx, c.work, "GET", "/version", mediaJSON, nil, 200)
	if err != nil {
		return "?"
	}
	var v struct{ GitVersion string }
	if json.Unmarshal(r.body, &v) != nil {
		return "?"
	}
	return v.GitVersion
}

// beginPhase starts measuring a phase of ops operations: the server's CPU time
// (recorded per operation as row cpuRow(phase), in the unit cpuRowDefs gives it)
// and, with -profile, a CPU profile. The returned func ends it.
func beginPhase(ctx context.Context, cfg *config, srv *server, phase string, ops int, rec func(string, float64)) (end func() error) {
	start, cpuErr := cpuTicks(srv.pid)
	stopProfile := startProfile(ctx, cfg, srv, phase)
	return func() error {
		err := stopProfile()
		if now, err := cpuTicks(srv.pid); err == nil && cpuErr == nil {
			perOp := float64(now-start) * msPerTick / float64(ops)
			if phase == rowCreate || phase == rowGet {
				perOp *= 1000 // µs, as cpuRowDefs says
			}
			rec(cpuRow(phase), perOp)
		}
		return err
	}
}

// startProfile starts a CPU profile of the server for one phase, when -profile
// asks for one and the server offers it; the returned func stops it and writes
// -profile/PHASE.pprof.
func startProfile(ctx context.Context, cfg *config, srv *server, phase string) (stop func() error) {
	if cfg.profileDir == "" || srv.profileURL == "" {
		return func() error { return nil }
	}
	out := filepath.Join(cfg.profileDir, phase+".pprof")
	if err := postProfile(ctx, srv, "/start?out="+url.QueryEscape(out)); err != nil {
		return func() error { return err }
	}
	return func() error { return postProfile(ctx, srv, "/stop") }
}

// postProfile asks the server's profile control for something.
func postProfile(ctx context.Context, srv *server, path string) error {
	req, err := http.NewRequestWithContext(ctx, "POST", srv.profileURL+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return fmt.Errorf("profile %s: %d %s", path, resp.StatusCode, b)
	}
	return nil
}
