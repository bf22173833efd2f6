package api_test

import (
	"sync"
	"testing"

	"kubeplay/core/api"
	"kubeplay/core/kinds"
)

// Readers see whole snapshots while a writer adds resources: a lookup never sees
// half a change, and the generation moves with every one.
func TestK8S_URI_4_RegistryCopyOnWrite(t *testing.T) {
	reg := api.NewRegistry(kinds.All()...)
	gen := reg.Generation()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, r := range reg.All() {
				if reg.Lookup(r.Group, r.Version, r.Plural) == nil {
					t.Errorf("%s listed but not found", r.Plural)
					return
				}
			}
		}
	}()
	for i := 0; i < 200; i++ {
		reg.Add(&api.Resource{Group: "example.com", Version: "v1", Kind: "Thing", Plural: "things", Namespaced: true})
	}
	close(stop)
	wg.Wait()
	if reg.Generation() != gen+200 {
		t.Fatalf("generation %d, want %d", reg.Generation(), gen+200)
	}
	if n := len(reg.Resources(api.GroupVersion{"example.com", "v1"})); n != 1 {
		t.Fatalf("%d things after replacing it 200 times", n)
	}
}

// TestK8S_URI_4_EventsV1IsAView: events.k8s.io/v1 Events are the core/v1
// Events' objects (stored once), selected by kube's field labels for the
// version.
func TestK8S_URI_4_EventsV1IsAView(t *testing.T) {
	reg := api.NewRegistry(kinds.All()...)
	core, v1 := reg.Lookup("", "v1", "events"), reg.Lookup("events.k8s.io", "v1", "events")
	if core == nil || v1 == nil || v1.Storage() != core || core.Storage() != core {
		t.Fatalf("events.k8s.io/v1 is not a view of core/v1 Events")
	}
	if !v1.SupportsField("regarding.name") || v1.SupportsField("involvedObject.name") || v1.View.FieldLabels["reportingController"] != "reportingComponent" {
		t.Error("events.k8s.io/v1's field labels")
	}
}
