package xdsgrpc_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	discovery "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"kubeplay/core/xds"
)

func post(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	return request(t, "POST", url, nil, body)
}

// request makes one request with header; it returns the status code and the
// body.
func request(t *testing.T, method, url string, header http.Header, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// httpStream is an HTTP stream as its opening answered.
type httpStream struct {
	URL   string // GET, POST and DELETE it
	ID    string
	Token string
}

// openStream opens an HTTP stream of protocol on the server at base.
func openStream(t *testing.T, base, protocol string) httpStream {
	t.Helper()
	code, body := post(t, base+"/xds/v3/streams?protocol="+protocol, "")
	var st httpStream
	if code != http.StatusCreated || json.Unmarshal(body, &st) != nil || st.ID == "" || st.Token == "" {
		t.Fatalf("open: %d %s", code, body)
	}
	st.URL = base + "/xds/v3/streams/" + st.ID
	return st
}

// auth is the header that proves a request comes from the stream's client.
func (st httpStream) auth() http.Header { return http.Header{xds.StreamTokenHeader: {st.Token}} }

// post posts one request to the stream, as its client.
func (st httpStream) post(t *testing.T, body string) (int, []byte) {
	t.Helper()
	return request(t, "POST", st.URL, st.auth(), body)
}

// read reads the stream's responses, as its client: the next line, and a
// function that stops reading.
func (st httpStream) read(t *testing.T) (next func() map[string]any, stop func()) {
	t.Helper()
	req, _ := http.NewRequest("GET", st.URL, nil)
	req.Header = st.auth()
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("read: %v %v", err, resp)
	}
	lines := bufio.NewScanner(resp.Body)
	return func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("stream ended: %v", lines.Err())
		}
		var v map[string]any
		if err := json.Unmarshal(lines.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}, func() { resp.Body.Close() }
}

// TestXDS_7_RESTMatchesStream: REST-JSON polling answers with the resources
// and version a gRPC stream gets, 304 once the client has that version,
// and 400 naming the field of a malformed request.
func TestXDS_7_RESTMatchesStream(t *testing.T) {
	e := newEnv(t, nil)
	e.apply("clusters", "a", cluster("a", "1s"))
	e.apply("clusters", "b", cluster("b", "2s"))
	hs := httptest.NewServer(e.xs)
	defer hs.Close()

	stream, err := e.ads.StreamAggregatedResources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := follow(t, stream.Recv)
	stream.Send(&discovery.DiscoveryRequest{TypeUrl: clusterType})
	want := f.next()

	code, body := post(t, hs.URL+"/v3/discovery:clusters", `{"node":{"id":"rest"}}`)
	if code != http.StatusOK {
		t.Fatalf("REST: %d %s", code, body)
	}
	var got discovery.DiscoveryResponse
	if err := protojson.Unmarshal(body, &got); err != nil {
		t.Fatalf("REST answer is not a DiscoveryResponse: %v\n%s", err, body)
	}
	if got.VersionInfo != want.VersionInfo || len(got.Resources) != len(want.Resources) {
		t.Fatalf("REST %s %d resources, stream %s %d", got.VersionInfo, len(got.Resources), want.VersionInfo, len(want.Resources))
	}
	for i := range got.Resources {
		a, _ := got.Resources[i].UnmarshalNew()
		b, _ := want.Resources[i].UnmarshalNew()
		if !proto.Equal(a, b) {
			t.Errorf("resource %d: REST %v, stream %v", i, a, b)
		}
	}
	if code, _ := post(t, hs.URL+"/v3/discovery:clusters", `{"version_info":"`+got.VersionInfo+`"}`); code != http.StatusNotModified {
		t.Errorf("up to date: %d, want 304", code)
	}
	code, body = post(t, hs.URL+"/v3/discovery:clusters", `{"resourceNames":"a"}`)
	if code != http.StatusBadRequest || !bytes.Contains(body, []byte("request.resourceNames")) {
		t.Errorf("malformed: %d %s", code, body)
	}
	if code, body := post(t, hs.URL+"/v3/discovery:clusters", `{"typeUrl":"`+listenerType+`"}`); code != http.StatusBadRequest {
		t.Errorf("another type: %d %s", code, body)
	}
	if code, _ := post(t, hs.URL+"/v3/discovery:nothing", `{}`); code != http.StatusNotFound {
		t.Errorf("unknown service: %d", code)
	}
}

// TestXDS_7_HTTPStream: the stream a page drives over fetch: open, read the
// responses as lines, post requests (subscribe, ACK, NACK); the NACK is
// visible in the status; the server ends a stream that asks for an unknown
// type with an error line.
func TestXDS_7_HTTPStream(t *testing.T) {
	e := newEnv(t, nil)
	e.apply("clusters", "a", cluster("a", "1s"))
	hs := httptest.NewServer(e.xs)
	defer hs.Close()
	st := openStream(t, hs.URL, "delta")
	next, stop := st.read(t)
	defer stop()
	send := func(body string) {
		t.Helper()
		if code, b := st.post(t, body); code != http.StatusAccepted {
			t.Fatalf("post: %d %s", code, b)
		}
	}
	send(`{"typeUrl":"` + clusterType + `","resourceNamesSubscribe":["a"]}`)
	r1 := next()
	res := r1["resources"].([]any)[0].(map[string]any)
	if res["name"] != "a" || res["resource"].(map[string]any)["connectTimeout"] != "1s" || r1["nonce"] == "" {
		t.Fatalf("first response: %v", r1)
	}
	send(`{"typeUrl":"` + clusterType + `","responseNonce":"` + r1["nonce"].(string) + `"}`)
	e.apply("clusters", "a", cluster("a", "2s"))
	r2 := next()
	send(`{"typeUrl":"` + clusterType + `","responseNonce":"` + r2["nonce"].(string) + `","errorDetail":{"code":3,"message":"refused"}}`)
	deadline := 100
	for ; deadline > 0; deadline-- {
		if ts := typeStatus(t, e.xs, clusterType); ts.NACK != nil && ts.NACK.Message == "refused" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if deadline == 0 {
		t.Fatalf("NACK not visible: %+v", typeStatus(t, e.xs, clusterType))
	}
	resp, err := http.Get(hs.URL + "/xds/v3/status")
	if err != nil {
		t.Fatal(err)
	}
	status, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(status, []byte(`"nack":{"nonce":"2"`)) {
		t.Errorf("status: %s", status)
	}

	st2 := openStream(t, hs.URL, "delta")
	next2, stop2 := st2.read(t)
	defer stop2()
	if code, body := st2.post(t, `{"typeUrl":"type.googleapis.com/no.Such"}`); code != http.StatusBadRequest || !bytes.Contains(body, []byte("unknown type_url")) {
		t.Fatalf("unknown type: %d %s", code, body)
	}
	if e, _ := next2()["error"].(map[string]any); e == nil || e["code"] != 3.0 {
		t.Fatalf("unknown type: no error line")
	}
	if code, _ := st2.post(t, `{}`); code != http.StatusNotFound && code != http.StatusGone {
		t.Errorf("post to an ended stream: %d", code)
	}
}

// A page of another site took over someone's HTTP stream: ids were "1",
// "2"…, and its no-cors GET of /xds/v3/streams/1 drained the responses the
// stream's reader was waiting for. Ids are random now (128 bits and more),
// and a stream answers only requests carrying the token its opening
// answered, in a header such a page cannot send: a read, a post or a delete
// without it (or with another's) is refused with 403 and changes nothing.
func TestROB_3_XDSHTTPStreamAnswersOnlyItsClient(t *testing.T) {
	e := newEnv(t, nil)
	e.apply("clusters", "a", cluster("a", "1s"))
	hs := httptest.NewServer(e.xs)
	defer hs.Close()
	st, other := openStream(t, hs.URL, "delta"), openStream(t, hs.URL, "delta")
	for _, s := range []httpStream{st, other} {
		if len(s.ID) < 26 || len(s.Token) < 26 {
			t.Errorf("id %q and token %q: want 128 random bits each", s.ID, s.Token)
		}
	}
	if st.ID == other.ID || st.Token == other.Token || st.ID == st.Token {
		t.Errorf("two streams %+v and %+v share an id or a token", st, other)
	}
	if code, body := st.post(t, `{"typeUrl":"`+clusterType+`","resourceNamesSubscribe":["a"]}`); code != http.StatusAccepted {
		t.Fatalf("subscribe: %d %s", code, body)
	}
	for name, h := range map[string]http.Header{
		"no token":               nil,
		"a wrong token":          {xds.StreamTokenHeader: {"AAAAAAAAAAAAAAAAAAAAAAAAAA"}},
		"another stream's token": other.auth(),
	} {
		for _, method := range []string{"GET", "POST", "DELETE"} {
			body := ""
			if method == "POST" {
				body = `{"typeUrl":"` + clusterType + `","resourceNamesUnsubscribe":["a"]}`
			}
			code, answer := request(t, method, st.URL+"?timeoutSeconds=1", h, body)
			var status struct{ Kind, Reason, Message string }
			if code != http.StatusForbidden || json.Unmarshal(answer, &status) != nil || status.Reason != "Forbidden" || !strings.Contains(status.Message, xds.StreamTokenHeader) {
				t.Errorf("%s with %s: %d %s, want 403 naming %s", method, name, code, answer, xds.StreamTokenHeader)
			}
		}
	}
	next, stop := st.read(t)
	defer stop()
	if r := next(); r["resources"].([]any)[0].(map[string]any)["name"] != "a" {
		t.Fatalf("the client's response: %v", r)
	}
	requests := int64(0)
	for _, s := range e.xs.Status() {
		requests += s.Requests
	}
	if n := len(e.xs.Status()); n != 2 || requests != 1 {
		t.Errorf("%d streams open with %d requests, want both open and the client's one request", n, requests)
	}
}
