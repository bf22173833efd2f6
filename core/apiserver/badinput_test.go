package apiserver

import (
	"strings"
	"testing"
)

// The bad-input list: every case gets a Status with kube's code and
// reason, and none of them changes stored state.
func TestK8S_BadInput_NothingStored(t *testing.T) {
	s := newTestServer(t, testConfig{})
	s.createCM("default", "a", nil)
	rev := s.srv.Store().Revision()
	const coll = "/api/v1/namespaces/default/configmaps"
	big := `{"metadata":{"name":"big"},"data":{"k":"` + strings.Repeat("x", 3<<20) + `"}}`
	cases := []struct {
		name, method, path, body, contentType string
		code                                  int
		reason                                string
	}{
		{"unknown path", "GET", "/nope", "", "", 404, "NotFound"},
		{"unknown version", "GET", "/apis/apps/v9/widgets", "", "", 404, "NotFound"},
		{"bad verb", "PATCH", coll, "{}", "application/merge-patch+json", 405, "MethodNotAllowed"},
		{"unparseable body", "POST", coll, `{"metadata":`, "application/json", 400, "BadRequest"},
		{"not an object", "POST", coll, `"text"`, "application/json", 400, "BadRequest"},
		{"wrong kind", "POST", coll, `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"x"}}`, "application/json", 400, "BadRequest"},
		{"wrong apiVersion", "POST", coll, `{"kind":"ConfigMap","apiVersion":"apps/v1","metadata":{"name":"x"}}`, "application/json", 400, "BadRequest"},
		{"wrong metadata type", "POST", coll, `{"metadata":{"name":7}}`, "application/json", 400, "BadRequest"},
		{"unsupported content type", "POST", coll, `{"metadata":{"name":"x"}}`, "text/plain", 415, "UnsupportedMediaType"},
		{"body over 3 MiB", "POST", coll, big, "application/json", 413, "RequestEntityTooLarge"},
		{"invalid name", "POST", coll, `{"metadata":{"name":"UPPER"}}`, "application/json", 422, "Invalid"},
		{"malformed resourceVersion", "GET", coll + "?resourceVersion=x", "", "", 400, "BadRequest"},
		{"malformed limit", "GET", coll + "?limit=ten", "", "", 400, "BadRequest"},
		{"malformed timeoutSeconds", "GET", coll + "?watch=1&timeoutSeconds=soon", "", "", 400, "BadRequest"},
		{"empty limit", "GET", coll + "?limit=", "", "", 400, "BadRequest"}, // kube: any watch value but 0/false is true, an empty int is 400
		{"malformed label selector", "GET", coll + "?labelSelector=a%20in%20(b", "", "", 400, "BadRequest"},
		{"malformed field selector", "GET", coll + "?fieldSelector=metadata.name", "", "", 400, "BadRequest"},
		{"malformed continue", "GET", coll + "?continue=%25%25", "", "", 400, "BadRequest"},
		{"namespace mismatch", "POST", coll, `{"metadata":{"name":"x","namespace":"kube-system"}}`, "application/json", 400, "BadRequest"},
		{"delete options unparseable", "DELETE", coll + "/a", `{`, "application/json", 400, "BadRequest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body any
			if c.body != "" {
				body = c.body
			}
			headers := []string{}
			if c.contentType != "" {
				headers = append(headers, "Content-Type", c.contentType)
			}
			r := s.do(c.method, c.path, body, headers...)
			r.wantStatus(t, c.code, c.reason, "")
			if r.str("message") == "" {
				t.Fatal("Status without a message")
			}
			if c.code == 405 && r.Header.Get("Allow") == "" {
				t.Fatal("405 without Allow")
			}
		})
	}
	if s.srv.Store().Revision() != rev {
		t.Fatalf("bad input changed the store: revision %d → %d", rev, s.srv.Store().Revision())
	}
	s.do("GET", coll+"/a", nil).must(t, 200)
}

func TestK8S_BadInput_Messages(t *testing.T) {
	s := newTestServer(t, testConfig{})
	const coll = "/api/v1/namespaces/default/configmaps"
	s.do("GET", coll+"?labelSelector=a%20in%20(b", nil).wantStatus(t, 400, "BadRequest",
		"unable to parse requirement: found '', expected: ',' or ')'")
	s.do("GET", coll+"?fieldSelector=metadata.name", nil).wantStatus(t, 400, "BadRequest",
		"invalid selector: 'metadata.name'; can't understand 'metadata.name'")
	s.do("GET", coll+"?limit=ten", nil).wantStatus(t, 400, "BadRequest", `strconv.ParseInt: parsing "ten": invalid syntax`)
	s.do("POST", coll, `{"metadata":{"name":"x"}}`, "Content-Type", "text/plain").wantStatus(t, 415, "UnsupportedMediaType",
		"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor")
	s.do("POST", coll, `not json`).wantStatus(t, 400, "BadRequest",
		"the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u') (6e6f74206a736f6e)")
	s.do("POST", coll, `{"metadata":{"name":1}}`).wantStatus(t, 400, "BadRequest",
		`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string`)
	s.do("POST", coll, `{"metadata":{"name":"x","namespace":"kube-system"}}`).wantStatus(t, 400, "BadRequest",
		"the namespace of the provided object does not match the namespace sent on the request")
}
