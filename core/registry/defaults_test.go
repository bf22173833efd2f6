package registry

import (
	"testing"

	"kubeplay/core/object"
	"kubeplay/core/storage"
)

// TestK8S_WRITE_5_UpdateReadsStoredObjectWithDefaults: an object stored
// without today's defaults (before kubeplay had them) is read with them, as
// kube decodes what it stored: a Pod's label can still be changed, though its
// spec may not change, and it is stored with its defaults.
func TestK8S_WRITE_5_UpdateReadsStoredObjectWithDefaults(t *testing.T) {
	s, reg, _ := newStore(t)
	pod := target(reg, "", "v1", "pods", "default", "old")
	bare := `{"metadata":{"name":"old","namespace":"default","uid":"u","resourceVersion":"1","creationTimestamp":"2026-01-01T00:00:00Z"},` +
		`"spec":{"containers":[{"name":"c","image":"nginx"}]},"status":{"phase":"Pending"}}`
	if _, _, err := s.storage.Mutate(pod.key(), func([]byte, int64) (storage.Change, error) {
		return storage.Change{Op: storage.Put, Value: []byte(bare)}, nil
	}); err != nil {
		t.Fatal(err)
	}
	stored, _, err := s.Update(pod, func(old object.Object) (object.Object, error) {
		obj := object.DeepCopy(old)
		object.Meta(obj)["labels"] = map[string]any{"a": "b"}
		return obj, nil
	})
	if err != nil {
		t.Fatalf("label update of a Pod stored without defaults: %v", err)
	}
	obj := decode(t, stored)
	c := object.Path(obj, "spec", "containers").([]any)[0]
	if object.Path(c, "imagePullPolicy") != "Always" || object.Path(obj, "spec", "dnsPolicy") != "ClusterFirst" || object.Labels(obj)["a"] != "b" {
		t.Fatalf("stored %s", stored)
	}
}
