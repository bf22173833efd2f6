package e2e

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"kubeplay/core/apiserver"
)

// TestK8S_URI_4_ClientGoDynamic: client-go's dynamic client creates a
// CustomResourceDefinition and, once it is established, custom objects
// (defaulted by their schema, refused with kube's 422 when they break it),
// and a dynamic informer on the type sees every change.
func TestK8S_URI_4_ClientGoDynamic(t *testing.T) {
	hs, _ := startServer(t, apiserver.Config{})
	dc, err := dynamic.NewForConfig(&rest.Config{Host: hs.URL, BearerToken: "kubeplay", QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(widgetCRDYAML), &crd.Object); err != nil {
		t.Fatal(err)
	}
	crds := dc.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cgEventually(t, ctx, "the definition established", func() string {
		got, err := crds.Get(ctx, "widgets.example.com", metav1.GetOptions{})
		if err != nil {
			return err.Error()
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			if m := c.(map[string]any); m["type"] == "Established" && m["status"] == "True" {
				return ""
			}
		}
		return "not established"
	})

	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, "default", nil)
	inf := factory.ForResource(gvr).Informer()
	seen := map[string]string{}
	events := make(chan string, 100)
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { events <- "ADDED " + o.(*unstructured.Unstructured).GetName() },
		UpdateFunc: func(_, o any) { events <- "MODIFIED " + o.(*unstructured.Unstructured).GetName() },
		DeleteFunc: func(o any) { events <- "DELETED " + o.(*unstructured.Unstructured).GetName() },
	})
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the informer never synced")
	}

	widgets := dc.Resource(gvr).Namespace("default")
	w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w1"}, "spec": map[string]any{}}}
	created, err := widgets.Create(ctx, w, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(created.Object, "spec", "size"); size != 3 {
		t.Errorf("defaulted size %d", size)
	}
	bad := w.DeepCopy()
	bad.SetName("w2")
	_ = unstructured.SetNestedField(bad.Object, int64(0), "spec", "size")
	if _, err := widgets.Create(ctx, bad, metav1.CreateOptions{}); err == nil || err.Error() != `Widget.example.com "w2" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1` {
		t.Errorf("invalid widget: %v", err)
	}
	_ = unstructured.SetNestedField(created.Object, int64(7), "spec", "size")
	if _, err := widgets.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := widgets.Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ADDED w1", "MODIFIED w1", "DELETED w1"} {
		select {
		case got := <-events:
			if got != want {
				t.Fatalf("informer event %q, want %q", got, want)
			}
			seen[want] = got
		case <-ctx.Done():
			t.Fatalf("informer: no %q (saw %v)", want, seen)
		}
	}
	if n := len(inf.GetStore().List()); n != 0 {
		t.Errorf("informer store holds %d objects", n)
	}

}
