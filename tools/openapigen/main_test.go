package main

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// TestK8S_URI_2_GeneratedDocumentsAreCurrent regenerates the documents from
// k8s.io/kubernetes and checks that core/openapi holds them: its index names
// every document by size and SHA-512, so an equal index is equal documents.
// It needs the module (from the module cache, or the network); without it the
// test skips.
func TestK8S_URI_2_GeneratedDocumentsAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("generating the documents takes seconds")
	}
	if err := exec.Command("go", "mod", "download", "k8s.io/kubernetes@"+*kubernetes).Run(); err != nil {
		t.Skipf("k8s.io/kubernetes@%s is not available: %v", *kubernetes, err)
	}
	docs, err := Generate(*kubernetes)
	if err != nil {
		t.Fatal(err)
	}
	got, err := docs.IndexSource()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../core/openapi/documents_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("core/openapi's documents are not what tools/openapigen makes now: run go generate ./core/openapi\n%s", got)
	}
}

// TestServedPaths checks which API paths count as served.
func TestServedPaths(t *testing.T) {
	s := servedPaths(registry())
	for p, want := range map[string]bool{
		"/api/":                               true,
		"/apis/":                              true,
		"/version/":                           true,
		"/apis/apps/":                         true,
		"/api/v1/":                            true,
		"/api/v1/namespaces":                  true,
		"/api/v1/namespaces/{name}":           true,
		"/api/v1/namespaces/{name}/finalize":  true,
		"/api/v1/namespaces/{namespace}/pods": true,
		"/api/v1/pods":                        true,
		"/api/v1/watch/pods":                  true,
		"/api/v1/watch/namespaces/{namespace}/pods/{name}":               true,
		"/api/v1/namespaces/{namespace}/pods/{name}/log":                 true,
		"/api/v1/namespaces/{namespace}/pods/{name}/exec":                true,
		"/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}":        true,
		"/api/v1/namespaces/{namespace}/pods/{name}/ephemeralcontainers": true,
		"/api/v1/persistentvolumes":                                      true,
		"/api/v1/replicationcontrollers":                                 true,
		"/api/v1/podtemplates":                                           true,
		"/api/v1/namespaces/{namespace}/resourcequotas/{name}/status":    true,
		"/api/v1/limitranges":                                            true,
		"/apis/storage.k8s.io/v1/storageclasses/{name}":                  true,
		"/apis/storage.k8s.io/v1/csidrivers":                             true,
		"/apis/resource.k8s.io/v1beta1/resourceclaims":                   false,
		"/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale":  true,
		"/apis/apps/v1/daemonsets":                                       true,
		"/apis/apps/v1beta1/deployments":                                 false,
		"/apis/batch/":                                                   true,
		"/apis/policy/":                                                  true,
		"/logs/":                                                         false,
	} {
		if got := s.has(p); got != want {
			t.Errorf("%s: served %v, want %v", p, got, want)
		}
	}
}
