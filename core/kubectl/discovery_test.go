package kubectl_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kubeplay/core/auth"
	"kubeplay/core/kubectl"
	"kubeplay/core/sandbox"
	"kubeplay/core/web"
)

// apiOnly is a fresh API-only sandbox and a kubectl Env over it.
func apiOnly(t *testing.T) (*kubectl.Env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	admin := auth.Admin()
	sb, err := sandbox.New(sandbox.Config{APIOnly: true, Tokenless: &admin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	var out, errOut bytes.Buffer
	return &kubectl.Env{Handler: sb, Server: "http://127.0.0.1:8080", Stdout: &out, Stderr: &errOut}, &out, &errOut
}

func TestLEARN_1_ResolveAsKubectl(t *testing.T) {
	env, _, errOut := apiOnly(t)
	c := &kubectl.Cmd{Env: env, Ctx: context.Background()}
	for arg, want := range map[string]string{
		"po": "/api/v1/namespaces/ns/pods", "pods": "/api/v1/namespaces/ns/pods", "pod": "/api/v1/namespaces/ns/pods",
		"Pod": "/api/v1/namespaces/ns/pods", "deploy": "/apis/apps/v1/namespaces/ns/deployments",
		"deployments.apps": "/apis/apps/v1/namespaces/ns/deployments", "Deployment": "/apis/apps/v1/namespaces/ns/deployments",
		"deployments.v1.apps": "/apis/apps/v1/namespaces/ns/deployments", "no": "/api/v1/nodes", "hpa": "/apis/autoscaling/v2/namespaces/ns/horizontalpodautoscalers",
		"crd": "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "ev": "/api/v1/namespaces/ns/events",
		"events.events.k8s.io": "/apis/events.k8s.io/v1/namespaces/ns/events",
	} {
		r, err := c.Resolve(arg)
		if err != nil || r.Path("ns", "") != want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", arg, r.Path("ns", ""), err, want)
		}
	}
	if got, want := errOut.String(), "Warning: short name \"ev\" could also match lower priority resource events.events.k8s.io\n"; got != want {
		t.Errorf("ambiguous short name: stderr %q, want %q", got, want)
	}
	if _, err := c.Resolve("frobs"); err == nil || err.Error() != `the server doesn't have a resource type "frobs"` {
		t.Errorf("unknown: %v", err)
	}
	if r, err := c.ResourceFor("apps/v1", "Deployment"); err != nil || r.Resource != "deployments" {
		t.Errorf("ResourceFor: %+v %v", r, err)
	}
	if _, err := c.ResourceFor("example.com/v1", "Frob"); err == nil || err.Error() != `no matches for kind "Frob" in version "example.com/v1"` {
		t.Errorf("ResourceFor unknown: %v", err)
	}
	all, err := c.Category("all")
	if err != nil || len(all) == 0 || all[0].Resource != "pods" {
		t.Errorf("all: %+v %v", all, err)
	}
}

// A type missing from a discovery an earlier command line fetched (a CRD made
// since) makes kubectl fetch discovery again, once; a miss in the command
// that fetched it does not.
func TestLEARN_1_StaleDiscoveryFetchedAgain(t *testing.T) {
	env, out, errOut := apiOnly(t)
	sb := env.Handler
	var paths []string
	env.Handler = web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		paths = append(paths, r.URL.Path)
		sb.ServeHTTP(w, r)
	})
	run := func(args ...string) int {
		paths = nil
		out.Reset()
		errOut.Reset()
		return kubectl.Run(context.Background(), env, args)
	}
	if code := run("get", "widgets"); code != 1 || errOut.String() != "error: the server doesn't have a resource type \"widgets\"\n" ||
		strings.Join(paths, " ") != "/api /apis" {
		t.Fatalf("fresh miss: %d %q %v", code, errOut.String(), paths)
	}
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},
	"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget"},
	"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
	r := httptest.NewRequest("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", strings.NewReader(crd))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	sb.ServeHTTP(w, r)
	if w.Code != 201 {
		t.Fatalf("CRD: %d %s", w.Code, w.Body)
	}
	for i := 0; ; i++ {
		code := run("get", "widgets")
		if code == 0 {
			break
		}
		if i == 200 {
			t.Fatalf("widgets never served: %q", errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := strings.Join(paths, " "); got != "/api /apis /apis/example.com/v1/namespaces/default/widgets" {
		t.Errorf("stale miss: requests %s", got)
	}
	if errOut.String() != "No resources found in default namespace.\n" {
		t.Errorf("stale miss: stderr %q", errOut.String())
	}
}
