package sandbox

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/health"
	"kubeplay/core/storage"
)

// TestPLAY_1_AnswersFirst: a sandbox started again, and a new one with
// DeferStart (the browser's), answer their first request before they write
// their bootstrap RBAC policy and the kubernetes Service and start their
// controllers, their /readyz failing those post-start hooks meanwhile as
// kube-apiserver's does; then they do it all. A new sandbox without
// DeferStart is ready when New returns.
func TestPLAY_1_AnswersFirst(t *testing.T) {
	clusterRole := func(sb *Sandbox, name string) bool {
		res := sb.Registry.Schema().ByGroupResource("rbac.authorization.k8s.io", "clusterroles")
		_, ok := sb.Registry.Current(res, "", name)
		return ok
	}
	// The whole policy: its last ClusterRoles among them.
	policy := func(sb *Sandbox) bool { return clusterRole(sb, "edit") && clusterRole(sb, "system:volume-scheduler") }
	readyz := func(sb *Sandbox) (int, string) {
		w := serveInProcess(sb, "GET", "/readyz", "", nil)
		return w.Code, w.Body.String()
	}
	waitReady := func(t *testing.T, sb *Sandbox) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if code, _ := readyz(sb); code == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("never ready")
			}
		}
		if !policy(sb) {
			t.Error("ready without the bootstrap policy")
		}
		if w := serveInProcess(sb, "GET", "/api/v1/namespaces/default/services/kubernetes", "", nil); w.Code != 200 {
			t.Errorf("ready without the kubernetes Service: %d", w.Code)
		}
	}
	pending := func(t *testing.T, body string, hooks ...string) {
		t.Helper()
		for _, h := range hooks {
			if !strings.Contains(body, "[-]"+h+" failed: reason withheld\n") {
				t.Errorf("/readyz does not fail %s: %q", h, body)
			}
		}
		if n := strings.Count(body, "[-]"); n != len(hooks) {
			t.Errorf("/readyz fails %d checks, want %d: %q", n, len(hooks), body)
		}
	}

	t.Run("new", func(t *testing.T) {
		sb, err := New(Config{APIOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer sb.Close()
		if !policy(sb) {
			t.Fatal("a new sandbox started without its bootstrap policy")
		}
		if code, body := readyz(sb); code != 200 || body != "ok" {
			t.Fatalf("/readyz: %d %q", code, body)
		}
	})

	p := storage.NewMemoryPersister(nil)
	t.Run("new, DeferStart", func(t *testing.T) {
		sb, err := New(Config{APIOnly: true, DeferStart: true, Storage: storage.Config{Persister: p}})
		if err != nil {
			t.Fatal(err)
		}
		defer sb.Close()
		// Its owner's requests are authorized from the first (kubeadm's
		// administrators' group is bound to cluster-admin); the rest of the
		// policy comes after.
		if policy(sb) || !clusterRole(sb, "cluster-admin") {
			t.Fatal("the bootstrap policy was written before the first answer, or cluster-admin was not")
		}
		first := serveInProcess(sb, "GET", "/readyz", "", nil)
		code, body := first.Code, first.Body.String()
		if code != 500 || !strings.HasSuffix(body, "readyz check failed\n") {
			t.Fatalf("/readyz before the bootstrap: %d %q", code, body)
		}
		// Classified by the configuration in effect before it is written: the
		// uid headers are there, empty, as kube-apiserver 1.32.13 sends them
		// until its priority-and-fairness-config-producer has run (recorded
		// with the refapi kit).
		for _, h := range []string{"X-Kubernetes-PF-FlowSchema-UID", "X-Kubernetes-PF-PriorityLevel-UID"} {
			if v, ok := first.Header()[http.CanonicalHeaderKey(h)]; !ok || len(v) != 1 || v[0] != "" {
				t.Errorf("%s before the configuration is written: %q (present %v), want empty", h, v, ok)
			}
		}
		pending(t, body, health.BootstrapRoles, health.FlowControlBootstrap, health.BootstrapController)
		waitReady(t, sb)
		// Its configuration is written now: answers name its objects' uids.
		list := serveInProcess(sb, "GET", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", "", nil)
		var stored struct {
			Items []struct{ Metadata struct{ UID string } }
		}
		if err := json.Unmarshal(list.Body.Bytes(), &stored); err != nil || len(stored.Items) == 0 {
			t.Fatalf("the FlowSchemas: %d %s", list.Code, list.Body)
		}
		got := serveInProcess(sb, "GET", "/version", "", nil).Header().Get("X-Kubernetes-PF-FlowSchema-UID")
		if !slices.ContainsFunc(stored.Items, func(fs struct{ Metadata struct{ UID string } }) bool { return fs.Metadata.UID == got }) {
			t.Errorf("an answer once ready names FlowSchema uid %q, not a stored one's", got)
		}
	})

	t.Run("started again", func(t *testing.T) {
		sb, err := New(Config{APIOnly: true, Storage: storage.Config{Persister: p}})
		if err != nil {
			t.Fatal(err)
		}
		defer sb.Close()
		code, body := readyz(sb)
		if code != 500 {
			t.Fatalf("/readyz of a sandbox started again: %d %q", code, body)
		}
		pending(t, body, health.BootstrapRoles, health.FlowControlBootstrap, health.BootstrapController)
		waitReady(t, sb)
	})
}
