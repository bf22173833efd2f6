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
)

func post(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
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
	open := func() (string, *bufio.Scanner, func()) {
		code, body := post(t, hs.URL+"/xds/v3/streams?protocol=delta", "")
		var created struct{ ID string }
		if code != http.StatusCreated || json.Unmarshal(body, &created) != nil {
			t.Fatalf("open: %d %s", code, body)
		}
		resp, err := http.Get(hs.URL + "/xds/v3/streams/" + created.ID)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("read: %v %v", err, resp)
		}
		return hs.URL + "/xds/v3/streams/" + created.ID, bufio.NewScanner(resp.Body), func() { resp.Body.Close() }
	}
	url, lines, closeRead := open()
	defer closeRead()
	next := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("stream ended: %v", lines.Err())
		}
		var v map[string]any
		if err := json.Unmarshal(lines.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	send := func(body string) {
		t.Helper()
		if code, b := post(t, url, body); code != http.StatusAccepted {
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

	url2, lines2, close2 := open()
	defer close2()
	if code, body := post(t, url2, `{"typeUrl":"type.googleapis.com/no.Such"}`); code != http.StatusBadRequest || !bytes.Contains(body, []byte("unknown type_url")) {
		t.Fatalf("unknown type: %d %s", code, body)
	}
	if !lines2.Scan() || !strings.Contains(lines2.Text(), `"error":{"code":3`) {
		t.Fatalf("unknown type: %s", lines2.Text())
	}
	if code, _ := post(t, url2, `{}`); code != http.StatusNotFound && code != http.StatusGone {
		t.Errorf("post to an ended stream: %d", code)
	}
}
