package apiserver

import (
	"strings"
	"testing"
	"time"

	"kubeplay/core/object"
)

func TestK8S_NAME_1_UniquePerNamespace(t *testing.T) {
	s := newTestServer(t, testConfig{})
	a := s.createCM("default", "a", nil)
	s.do("POST", "/api/v1/namespaces/default/configmaps", cm("a", nil, nil)).
		wantStatus(t, 409, "AlreadyExists", `configmaps "a" already exists`)
	// The same name in another namespace is another object.
	s.createCM("kube-system", "a", nil)
	// Cluster-scoped names are unique cluster-wide.
	ns := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "team"}}
	s.do("POST", "/api/v1/namespaces", ns).must(t, 201)
	s.do("POST", "/api/v1/namespaces", ns).wantStatus(t, 409, "AlreadyExists", `namespaces "team" already exists`)

	// Server-set metadata.
	uid := a.str("metadata", "uid")
	if len(uid) != 36 || a.str("metadata", "creationTimestamp") == "" || a.str("metadata", "resourceVersion") == "" {
		t.Fatalf("server-set metadata missing: %s", a.Body)
	}
	if _, err := time.Parse(time.RFC3339, a.str("metadata", "creationTimestamp")); err != nil {
		t.Fatal(err)
	}
	// A deleted name can be reused, as a new object.
	s.do("DELETE", "/api/v1/namespaces/default/configmaps/a", nil).must(t, 200)
	again := s.createCM("default", "a", nil)
	if again.str("metadata", "uid") == uid {
		t.Fatal("re-created object kept its uid")
	}
}

func TestK8S_NAME_1_GenerateName(t *testing.T) {
	s := newTestServer(t, testConfig{})
	body := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"generateName": "job-"}}
	seen := map[string]bool{}
	for i := 0; i < 5; i++ {
		r := s.do("POST", "/api/v1/namespaces/default/configmaps", body).must(t, 201)
		name := r.str("metadata", "name")
		if !strings.HasPrefix(name, "job-") || len(name) != len("job-")+5 || seen[name] {
			t.Fatalf("generated name %q", name)
		}
		seen[name] = true
	}
	// Neither name nor generateName.
	s.do("POST", "/api/v1/namespaces/default/configmaps", map[string]any{"metadata": map[string]any{}}).
		wantStatus(t, 422, "Invalid", `ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required`)
}

func TestK8S_NAME_1_Validation(t *testing.T) {
	s := newTestServer(t, testConfig{})
	rev := s.srv.Store().Revision()
	r := s.do("POST", "/api/v1/namespaces/default/configmaps", cm("Bad_Name", nil, nil)).
		wantStatus(t, 422, "Invalid", `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`)
	causes, _ := object.Path(r.Obj, "details", "causes").([]any)
	if len(causes) != 1 || object.Path(causes[0], "reason") != "FieldValueInvalid" || object.Path(causes[0], "field") != "metadata.name" {
		t.Fatalf("causes: %s", r.Body)
	}
	if object.Path(r.Obj, "details", "kind") != "ConfigMap" || object.Path(r.Obj, "details", "name") != "Bad_Name" {
		t.Fatalf("details: %s", r.Body)
	}
	// Namespaces are RFC 1123 labels; Services RFC 1035 labels.
	s.do("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "a.b"}}).
		wantStatus(t, 422, "Invalid", "")
	svc := map[string]any{"metadata": map[string]any{"name": "1abc"}, "spec": map[string]any{"ports": []any{map[string]any{"port": 80}}}}
	r = s.do("POST", "/api/v1/namespaces/default/services", svc).wantStatus(t, 422, "Invalid", "")
	if !strings.Contains(r.str("message"), "a DNS-1035 label must consist of lower case alphanumeric characters") {
		t.Fatalf("service name message: %s", r.str("message"))
	}
	long := strings.Repeat("a", 254)
	r = s.do("POST", "/api/v1/namespaces/default/configmaps", cm(long, nil, nil)).wantStatus(t, 422, "Invalid", "")
	if !strings.Contains(r.str("message"), "must be no more than 253 characters") {
		t.Fatalf("long name: %s", r.str("message"))
	}
	// Bad label keys and values are rejected with the same wording.
	r = s.do("POST", "/api/v1/namespaces/default/configmaps", cm("ok", map[string]string{"-bad": "x y"}, nil)).wantStatus(t, 422, "Invalid", "")
	if got := len(object.Path(r.Obj, "details", "causes").([]any)); got != 2 {
		t.Fatalf("want 2 causes: %s", r.Body)
	}
	if s.srv.Store().Revision() != rev {
		t.Fatal("an invalid create changed the store")
	}
}
