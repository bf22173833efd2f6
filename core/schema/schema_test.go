package schema

import (
	"sync"
	"testing"
)

// Readers see whole snapshots while a writer adds resources: a lookup never sees
// half a change, and the generation moves with every one.
func TestK8S_URI_4_RegistryCopyOnWrite(t *testing.T) {
	reg := NewRegistry(Builtins()...)
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
		reg.Add(&Resource{Group: "example.com", Version: "v1", Kind: "Thing", Plural: "things", Namespaced: true})
	}
	close(stop)
	wg.Wait()
	if reg.Generation() != gen+200 {
		t.Fatalf("generation %d, want %d", reg.Generation(), gen+200)
	}
	if n := len(reg.Resources(GroupVersion{"example.com", "v1"})); n != 1 {
		t.Fatalf("%d things after replacing it 200 times", n)
	}
}
