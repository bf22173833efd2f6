package registry

import (
	"testing"

	"kubeplay/core/api"
)

// TestK8S_RV_3_EventsAreNotWatchCached: Events (core and events.k8s.io) have
// no watch cache in kube; a custom resource that happens to be called
// "events" does.
func TestK8S_RV_3_EventsAreNotWatchCached(t *testing.T) {
	for _, c := range []struct {
		group  string
		cached bool
	}{{"", false}, {"events.k8s.io", false}, {"example.com", true}} {
		if got := watchCached(&api.Resource{Group: c.group, Plural: "events"}); got != c.cached {
			t.Errorf("events in %q: cached %v, want %v", c.group, got, c.cached)
		}
	}
}
