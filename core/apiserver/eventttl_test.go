package apiserver

import (
	"testing"
	"time"

	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/storage"
)

func eventBody(name string) map[string]any {
	return map[string]any{"metadata": map[string]any{"name": name}, "type": "Normal", "reason": "Tested", "message": "m",
		"involvedObject": map[string]any{"kind": "Pod", "namespace": "default", "name": "p"}}
}

// waitFor steps clk (when there is one) by step until ok, failing after 10s
// of real time.
func waitFor(t *testing.T, clk *clock.Fake, step time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		if clk != nil {
			clk.Step(step)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestROB_2_EventsExpireAfterTTL: an Event is deleted once --event-ttl has
// passed since its last write, as kube-apiserver's lease on it expires (a
// write renews it); watchers see it DELETED. Events stored before a restart
// expire by their last write's time.
func TestROB_2_EventsExpireAfterTTL(t *testing.T) {
	start := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	dir := t.TempDir()
	p, err := storage.OpenFilePersister(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, testConfig{Config: Config{Clock: clk}, Storage: storage.Config{Persister: p}, EventTTL: time.Hour})
	const events = "/api/v1/namespaces/default/events"
	s.do("POST", events, eventBody("old")).must(t, 201)
	s.do("POST", events, eventBody("renewed")).must(t, 201)
	w := s.watch(events + "?watch=true&timeoutSeconds=36000&resourceVersion=" + s.do("GET", events, nil).must(t, 200).str("metadata", "resourceVersion"))
	clk.Step(30 * time.Minute)
	s.do("PATCH", events+"/renewed", `{"count":2}`, "Content-Type", "application/merge-patch+json").must(t, 200)
	if e := w.next(); e.Type != "MODIFIED" {
		t.Fatalf("%s, want the update", e.Type)
	}
	clk.Step(29 * time.Minute)
	w.quiet(50 * time.Millisecond)
	waitFor(t, clk, time.Second, "the first Event to expire", func() bool { return s.do("GET", events+"/old", nil).Code == 404 })
	if e := w.next(); e.Type != "DELETED" || object.Path(e.Object, "metadata", "name") != "old" {
		t.Fatalf("%s %v, want old DELETED", e.Type, e.Object)
	}
	if !clk.Now().Before(start.Add(time.Hour + time.Minute)) {
		t.Fatalf("expired at %v", clk.Now())
	}
	// The renewed one lives an hour from its update.
	s.do("GET", events+"/renewed", nil).must(t, 200)
	clk.Step(25 * time.Minute)
	w.quiet(50 * time.Millisecond)
	s.do("GET", events+"/renewed", nil).must(t, 200)

	// Closed now and opened two hours later: the Event expired meanwhile.
	s.srv.Close()
	clk.Step(2 * time.Hour)
	p, err = storage.OpenFilePersister(dir)
	if err != nil {
		t.Fatal(err)
	}
	s = newTestServer(t, testConfig{Config: Config{Clock: clk}, Storage: storage.Config{Persister: p}, EventTTL: time.Hour})
	waitFor(t, clk, 0, "the stored Event to expire", func() bool { return s.do("GET", events+"/renewed", nil).Code == 404 })
}
