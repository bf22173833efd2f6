package apiserver

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kubeplay/core/budget"
)

// TestROB_2_ObjectBudget: past the sandbox's budget of objects, a create is
// kube's 403 for an exceeded quota, naming the budget, and nothing is
// written; reads, updates and deletes go on, and a delete makes room.
func TestROB_2_ObjectBudget(t *testing.T) {
	s := newTestServer(t, testConfig{})
	objects, _ := s.srv.Store().Usage()
	s = newTestServer(t, testConfig{Budget: budget.Limits{Objects: objects + 3}})
	for i := range 3 {
		s.createCM("default", fmt.Sprintf("cm-%d", i), nil)
	}
	r := s.do("POST", "/api/v1/namespaces/default/configmaps", cm("cm-3", nil, nil))
	want := fmt.Sprintf(`configmaps "cm-3" is forbidden: exceeded quota: kubeplay-sandbox, requested: kubeplay.dev/objects=1, used: kubeplay.dev/objects=%d, limited: kubeplay.dev/objects=%d`, objects+3, objects+3)
	if r.Code != 403 || r.str("reason") != "Forbidden" || r.str("message") != want || r.str("details", "kind") != "configmaps" || r.str("details", "name") != "cm-3" {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	// A dry run is refused alike; a generated name is named.
	if r := s.do("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", cm("cm-3", nil, nil)); r.Code != 403 {
		t.Errorf("dry run: %d %s", r.Code, r.Body)
	}
	if r := s.do("POST", "/api/v1/namespaces/default/configmaps", map[string]any{"metadata": map[string]any{"generateName": "gen-"}}); r.Code != 403 || !strings.HasPrefix(r.str("message"), `configmaps "gen-`) || strings.HasPrefix(r.str("message"), `configmaps "gen-"`) {
		t.Errorf("generated name: %d %s", r.Code, r.Body)
	}
	s.do("GET", "/api/v1/namespaces/default/configmaps/cm-3", nil).must(t, 404)
	if n := len(s.do("GET", "/api/v1/namespaces/default/configmaps", nil).must(t, 200).items()); n != 3 {
		t.Errorf("%d ConfigMaps listed", n)
	}
	s.do("PATCH", "/api/v1/namespaces/default/configmaps/cm-0", `{"data":{"more":"yes"}}`, "Content-Type", "application/merge-patch+json").must(t, 200)
	s.do("DELETE", "/api/v1/namespaces/default/configmaps/cm-0", nil).must(t, 200)
	s.createCM("default", "cm-3", nil)
}

// TestROB_2_ByteBudget: a create that would take the stored bytes past the
// budget is refused; an update may grow a little past it (what a deletion
// writes first), a large one is refused.
func TestROB_2_ByteBudget(t *testing.T) {
	s := newTestServer(t, testConfig{})
	_, used := s.srv.Store().Usage()
	s = newTestServer(t, testConfig{Budget: budget.Limits{Bytes: used + 64<<10}})
	big := strings.Repeat("x", 40<<10)
	s.do("POST", "/api/v1/namespaces/default/configmaps", cm("one", nil, map[string]string{"k": big})).must(t, 201)
	r := s.do("POST", "/api/v1/namespaces/default/configmaps", cm("two", nil, map[string]string{"k": big}))
	if r.Code != 403 || !strings.Contains(r.str("message"), "exceeded quota: kubeplay-sandbox, requested: kubeplay.dev/bytes=") ||
		!strings.Contains(r.str("message"), fmt.Sprintf("limited: kubeplay.dev/bytes=%d", used+64<<10)) {
		t.Fatalf("%d %s", r.Code, r.Body)
	}
	s.do("PATCH", "/api/v1/namespaces/default/configmaps/one", `{"metadata":{"finalizers":["example.com/hold"]}}`, "Content-Type", "application/merge-patch+json").must(t, 200)
	if r := s.do("PATCH", "/api/v1/namespaces/default/configmaps/one", fmt.Sprintf(`{"data":{"more":%q}}`, big), "Content-Type", "application/merge-patch+json"); r.Code != 403 {
		t.Errorf("a large update: %d %s", r.Code, r.Body)
	}
	s.do("DELETE", "/api/v1/namespaces/default/configmaps/one", nil).must(t, 200)
	s.do("PATCH", "/api/v1/namespaces/default/configmaps/one", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json").must(t, 200)
	s.do("POST", "/api/v1/namespaces/default/configmaps", cm("two", nil, map[string]string{"k": big})).must(t, 201)
}

// TestROB_2_WatchBudget: past the budget of watches (the server's own
// controllers' count too), a watch is refused with the budget's 403 before
// its stream starts; ending one makes room.
func TestROB_2_WatchBudget(t *testing.T) {
	s := newTestServer(t, testConfig{Budget: budget.Limits{Watches: 100}})
	const path = "/api/v1/namespaces/default/configmaps?watch=true"
	// The server's controllers open their watches as they start, after the
	// server: under load (-race) they could otherwise still be starting,
	// be refused, and take the room the test makes before its watch can.
	settled, last := 0, -1
	waitFor(t, nil, 0, "the server's own watches", func() bool {
		n := s.srv.Store().Watchers()
		if n == last {
			settled++
		} else {
			settled, last = 0, n
		}
		time.Sleep(50 * time.Millisecond)
		return n > 0 && settled >= 20
	})
	var open []*watchStream
	for {
		w := s.watch(path)
		if w.resp.StatusCode == 200 {
			open = append(open, w)
			if len(open) > 100 {
				t.Fatal("more than 100 watches")
			}
			continue
		}
		line := <-w.lines
		if w.resp.StatusCode != 403 || !strings.Contains(string(line), `"message":"configmaps is forbidden: exceeded quota: kubeplay-sandbox, requested: kubeplay.dev/watches=1, used: kubeplay.dev/watches=100, limited: kubeplay.dev/watches=100"`) {
			t.Fatalf("%d %s", w.resp.StatusCode, line)
		}
		break
	}
	if len(open) > 100-20 { // the server's own hold about 30
		t.Fatalf("%d watches opened within a budget of 100", len(open))
	}
	open[0].close()
	waitFor(t, nil, 0, "room for a watch", func() bool {
		w := s.watch(path)
		defer w.close()
		return w.resp.StatusCode == 200
	})
}
