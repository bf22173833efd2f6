package serviceaccount

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/client/clienttest"
	"kubeplay/core/clock"
	obj "kubeplay/core/object"
	"kubeplay/core/web"
)

func newHarness(t *testing.T, newController func(h web.Handler, clk clock.Clock) *Controller) (*clienttest.API, *Controller) {
	clk := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	api := clienttest.New(t, clk)
	api.Create("/api/v1/namespaces", obj.Object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "team"}})
	api.Create("/api/v1/namespaces", obj.Object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "leaving"},
		"status": map[string]any{"phase": "Terminating"}})
	c := newController(api, clk)
	api.Run(c.namespaces, c.objects)
	return api, c
}

func sync(t *testing.T, api *clienttest.API, c *Controller, ns string) []string {
	t.Helper()
	ws, err := api.Sync(c.sync, ns, c.namespaces, c.objects)
	if err != nil {
		t.Fatalf("sync %s: %v", ns, err)
	}
	return clienttest.Changes(ws)
}

// TestSIM_1_ServiceAccountPerNamespace: every namespace that is not
// terminating gets its default ServiceAccount, again when it is deleted; one
// there already (or a namespace going: Forbidden) is left alone.
func TestSIM_1_ServiceAccountPerNamespace(t *testing.T) {
	api, c := newHarness(t, NewServiceAccounts)
	if got := sync(t, api, c, "team"); !slices.Equal(got, []string{"create serviceaccounts team/default"}) {
		t.Fatalf("writes %q", got)
	}
	if got := sync(t, api, c, "team"); len(got) != 0 {
		t.Errorf("with its ServiceAccount: %q", got)
	}
	if got := sync(t, api, c, "leaving"); len(got) != 0 {
		t.Errorf("terminating namespace: %q", got)
	}
	api.Remove("/api/v1/namespaces/team/serviceaccounts/default")
	if got := sync(t, api, c, "team"); !slices.Equal(got, []string{"create serviceaccounts team/default"}) {
		t.Errorf("deleted: %q, want it back", got)
	}
	api.Remove("/api/v1/namespaces/team/serviceaccounts/default")
	api.Refuse(func(clienttest.Write) *apierrors.Status {
		return clienttest.Errorf(http.StatusForbidden, "Forbidden", "unable to create new content in namespace team because it is being terminated")
	})
	if _, err := api.Sync(c.sync, "team", c.namespaces, c.objects); err != nil {
		t.Errorf("refused as the namespace goes: %v, want no retry", err)
	}
}

// TestSIM_1_RootCAPublisher: every namespace gets kube-root-ca.crt with the
// CA bundle and kube's description; a changed bundle is put back, other
// fields kept.
func TestSIM_1_RootCAPublisher(t *testing.T) {
	api, c := newHarness(t, NewRootCAPublisher)
	sync(t, api, c, "team")
	cm := api.MustGet("/api/v1/namespaces/team/configmaps/kube-root-ca.crt")
	if obj.Path(cm, "data", "ca.crt") != rootCA || obj.StringMap(obj.Meta(cm), "annotations")["kubernetes.io/description"] != caDescription {
		t.Fatalf("ConfigMap %v", cm)
	}
	api.Edit("/api/v1/namespaces/team/configmaps/kube-root-ca.crt", func(o obj.Object) {
		o["data"] = map[string]any{"ca.crt": "tampered", "extra": "x"}
		obj.Meta(o)["labels"] = map[string]any{"kept": "yes"}
	})
	if got := sync(t, api, c, "team"); !slices.Equal(got, []string{"update configmaps team/kube-root-ca.crt"}) {
		t.Fatalf("writes %q", got)
	}
	cm = api.MustGet("/api/v1/namespaces/team/configmaps/kube-root-ca.crt")
	if d := cm["data"].(map[string]any); d["ca.crt"] != rootCA || d["extra"] != nil || obj.Labels(cm)["kept"] != "yes" {
		t.Errorf("put back: %v", cm)
	}
}
