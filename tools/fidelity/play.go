package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fxamacker/cbor/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Bounds on what one request may take: the harness never hangs on a server.
const (
	requestTimeout = 15 * time.Second       // a whole non-watch exchange (kube waits 3 s for a too-new resourceVersion)
	watchQuiet     = 300 * time.Millisecond // a watch is read until this long passes without bytes…
	watchMax       = 3 * time.Second        // …or this long in all
	settleMax      = 2 * time.Second        // how long a FlowSchema's status write is waited for
	maxBody        = 16 << 20               // bytes kept of an answer
)

// userAgent is what both servers see; its first segment is the default field manager.
const userAgent = "fidelity-harness/1.0"

// A target is a server the sessions are played against.
type target struct {
	name   string
	base   string
	token  string
	client *http.Client
	// apf maps APF FlowSchema and PriorityLevelConfiguration uids to names.
	apf map[string]string
	// collections are its namespaced collections (namespacedCollections).
	discovery   sync.Once
	collections []string
}

func newTarget(name, base, token string) *target {
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, // both serve self-signed certificates or plain HTTP
		ForceAttemptHTTP2:   true,
		DisableCompression:  true, // answers are compared as sent
		MaxIdleConnsPerHost: 4,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
	}
	return &target{name: name, base: strings.TrimSuffix(base, "/"), token: token, client: &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// raw is an answer as received.
type raw struct {
	err    string // what went wrong below HTTP (a closed connection, a timeout), or ""
	status int
	header http.Header
	body   []byte // decompressed
	// watchEnd says how a watch's reading ended: "server" (it closed the stream)
	// or "bounded" (the harness stopped reading).
	watchEnd string
}

// send plays one step against t, resolving placeholders with st.
func (t *target) send(ctx context.Context, s Step, st *serverState) raw {
	body, err := requestBody(s, st)
	if err != nil {
		return raw{err: "request body: " + err.Error()}
	}
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, s.Method, t.base+s.URL(st.resolve), bytes.NewReader(body))
	if err != nil {
		return raw{err: "request: " + err.Error()}
	}
	if body == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	req.Header.Set("User-Agent", userAgent)
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	for _, h := range s.Header {
		req.Header.Add(h[0], st.resolve(h[1]))
	}
	res, err := t.client.Do(req)
	if err != nil {
		return raw{err: transportError(err)}
	}
	defer res.Body.Close()
	out := raw{status: res.StatusCode, header: res.Header}
	var rerr error
	if s.Watch && res.StatusCode == http.StatusOK {
		out.body, out.watchEnd, rerr = readWatch(res.Body, cancel)
	} else {
		out.body, rerr = io.ReadAll(io.LimitReader(res.Body, maxBody))
	}
	if rerr != nil && out.watchEnd != "bounded" {
		out.err = "reading the body: " + transportError(rerr)
	}
	if out.status/100 == 2 && s.Kind == "FlowSchema" && isWrite(s.Verb) && !strings.Contains(s.URL(st.resolve), "dryRun") {
		t.settleFlowSchemas(ctx, st.resolve("{{ns}}"))
	}
	if res.Header.Get("Content-Encoding") == "gzip" && len(out.body) > 0 {
		zr, err := gzip.NewReader(bytes.NewReader(out.body))
		if err == nil {
			out.body, err = io.ReadAll(io.LimitReader(zr, maxBody))
		}
		if err != nil {
			out.err = "gzip: " + err.Error()
		}
	}
	return out
}

// readWatch reads a watch until the server ends it, nothing came for
// watchQuiet, or watchMax passed; then it stops the request.
func readWatch(body io.Reader, stop context.CancelFunc) ([]byte, string, error) {
	type chunk struct {
		b   []byte
		err error
	}
	chunks := make(chan chunk, 16)
	go func() {
		for {
			buf := make([]byte, 32<<10)
			n, err := body.Read(buf)
			chunks <- chunk{buf[:n], err}
			if err != nil {
				close(chunks)
				return
			}
		}
	}()
	var got []byte
	deadline := time.NewTimer(watchMax)
	defer deadline.Stop()
	quiet := time.NewTimer(watchQuiet)
	defer quiet.Stop()
	finish := func(end string, err error) ([]byte, string, error) {
		stop()
		for range chunks { // let the reader end
		}
		return got, end, err
	}
	for {
		select {
		case c, ok := <-chunks:
			if !ok {
				return finish("server", nil)
			}
			if len(got) < maxBody {
				got = append(got, c.b...)
			}
			if c.err != nil {
				if c.err == io.EOF {
					return finish("server", nil)
				}
				return finish("server", c.err)
			}
			quiet.Reset(watchQuiet)
		case <-quiet.C:
			return finish("bounded", nil)
		case <-deadline.C:
			return finish("bounded", nil)
		}
	}
}

// transportError names what went wrong below HTTP in words that do not depend
// on addresses or timing, so both servers' failures compare.
func transportError(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET),
		strings.Contains(err.Error(), "stream error"), strings.Contains(err.Error(), "connection reset"),
		strings.Contains(err.Error(), "server closed"), strings.Contains(err.Error(), "EOF"):
		return "connection closed"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	}
	return "error: " + err.Error()
}

// requestBody resolves a step's body and encodes it as BodyAs says.
func requestBody(s Step, st *serverState) ([]byte, error) {
	if s.Body == "" && s.BodyAs == "" {
		return nil, nil
	}
	text := st.resolve(s.Body)
	switch s.BodyAs {
	case reprProtobuf:
		return protobufBody([]byte(text))
	case reprCBOR:
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		b, err := cborEncMode.Marshal(cborValue(v))
		if err != nil {
			return nil, err
		}
		return append(append([]byte(nil), selfDescribed...), b...), nil
	}
	return []byte(text), nil
}

// cborValue is a JSON value as a client's CBOR carries it: integers as
// integers, other numbers as floats.
func cborValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = cborValue(x)
		}
	case []any:
		for i, x := range v {
			v[i] = cborValue(x)
		}
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

var cborEncMode = func() cbor.EncMode {
	m, err := cbor.EncOptions{Sort: cbor.SortBytewiseLexical}.EncMode()
	if err != nil {
		panic(err)
	}
	return m
}()

// protobufBody encodes a JSON object as kube's protobuf, through its Go type.
func protobufBody(j []byte) ([]byte, error) {
	var tm struct{ APIVersion, Kind string }
	if err := json.Unmarshal(j, &tm); err != nil {
		return nil, err
	}
	gvk, err := gvkOf(tm.APIVersion, tm.Kind)
	if err != nil {
		return nil, err
	}
	obj, err := scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(j, obj); err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	var buf bytes.Buffer
	if err := pbSerializer.Encode(obj, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func gvkOf(apiVersion, kind string) (schema.GroupVersionKind, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return gv.WithKind(kind), nil
}

// sendBoth plays a step against both targets at once.
func sendBoth(ctx context.Context, targets [2]*target, s Step, states [2]*serverState) [2]raw {
	var out [2]raw
	var wg sync.WaitGroup
	for i := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = targets[i].send(ctx, s, states[i])
		}()
	}
	wg.Wait()
	return out
}

// settleFlowSchemas waits (up to settleMax) until the API Priority and
// Fairness controller of t has written the Dangling condition of each of the
// session's FlowSchemas for the level it names now: both servers' controllers
// write it moments after a FlowSchema changes, and a session racing them would
// compare their timing, not their answers.
func (t *target) settleFlowSchemas(ctx context.Context, ns string) {
	deadline := time.Now().Add(settleMax)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, "GET", t.base+"/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas?labelSelector=fid-session%3D"+ns, nil)
		if err != nil {
			return
		}
		req.Header.Set("Authorization", "Bearer "+t.token)
		res, err := t.client.Do(req)
		if err != nil {
			return
		}
		var list struct {
			Items []struct {
				Spec struct {
					PriorityLevelConfiguration struct{ Name string }
				}
				Status struct {
					Conditions []struct{ Type, Message string }
				}
			}
		}
		err = json.NewDecoder(res.Body).Decode(&list)
		res.Body.Close()
		if err != nil {
			return
		}
		settled := true
		for _, fs := range list.Items {
			ok := false
			for _, c := range fs.Status.Conditions {
				ok = ok || c.Type == "Dangling" && strings.Contains(c.Message, `"`+fs.Spec.PriorityLevelConfiguration.Name+`"`)
			}
			settled = settled && ok
		}
		if settled {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// loadAPFNames learns the uids of t's FlowSchemas and PriorityLevelConfigurations.
func (t *target) loadAPFNames(ctx context.Context) error {
	t.apf = map[string]string{}
	for _, res := range []string{"flowschemas", "prioritylevelconfigurations"} {
		req, err := http.NewRequestWithContext(ctx, "GET", t.base+"/apis/flowcontrol.apiserver.k8s.io/v1/"+res, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+t.token)
		res2, err := t.client.Do(req)
		if err != nil {
			return err
		}
		var list struct {
			Items []struct {
				Metadata struct{ Name, UID string }
			}
		}
		err = json.NewDecoder(res2.Body).Decode(&list)
		res2.Body.Close()
		if err != nil {
			return fmt.Errorf("%s: listing %s: %w", t.name, res, err)
		}
		for _, it := range list.Items {
			t.apf[it.Metadata.UID] = strings.TrimSuffix(res, "s") + "/" + it.Metadata.Name
		}
	}
	return nil
}

// logf writes progress to stderr.
func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
