package kubectl_test

import (
	"bytes"
	"context"
	"testing"

	"kubeplay/core/auth"
	"kubeplay/core/kubectl"
	"kubeplay/core/sandbox"
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
