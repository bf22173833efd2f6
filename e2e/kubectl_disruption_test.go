package e2e

import (
	"strings"
	"testing"
)

// TestSIM_1_KubectlDisruptionBudgetDrain: kubectl 1.32's view of a
// PodDisruptionBudget in a simulated cluster: `create pdb`, `get pdb` with
// the disruptions the disruption controller allows, `drain` of a worker
// refused past the budget (kube's 429, retried until drain's timeout), and,
// once the budget allows one disruption, a drain that evicts the worker's
// Pods one at a time as their replacements on the other worker become
// ready.
func TestSIM_1_KubectlDisruptionBudgetDrain(t *testing.T) {
	k := newClusterKubectl(t)
	k.must("create", "deployment", "web", "--image=nginx", "--replicas=3")
	k.must("rollout", "status", "deployment/web", "--timeout=60s")
	if out := k.must("create", "pdb", "web", "--selector=app=web", "--min-available=3"); out != "poddisruptionbudget.policy/web created\n" {
		t.Errorf("create pdb: %q", out)
	}
	k.eventually("the budget observed", func() bool {
		rows := kcTable(k.must("get", "pdb"))
		return len(rows) == 2 && rows[1][3] == "0" && k.must("get", "pdb", "web", "-o", "jsonpath={.status.currentHealthy}") == "3"
	})
	wantRows(t, "get pdb", kcTable(k.must("get", "pdb")), [][]string{
		{"NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED", "DISRUPTIONS", "AGE"},
		{"web", "3", "N/A", "0", `\d+s`},
	})

	out, errOut, err := k.run("", "drain", "kubeplay-worker", "--timeout=7s")
	if err == nil || !strings.Contains(out, "node/kubeplay-worker cordoned") ||
		!strings.Contains(errOut, `(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`) ||
		!strings.Contains(errOut, "error: unable to drain node \"kubeplay-worker\"") {
		t.Fatalf("drain past the budget: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	if got := k.must("get", "node", "kubeplay-worker", "-o", "jsonpath={.spec.unschedulable}"); got != "true" {
		t.Errorf("the drained node is not cordoned: %q", got)
	}

	k.must("patch", "pdb", "web", "--type=merge", "-p", `{"spec":{"minAvailable":2}}`)
	k.eventually("one disruption allowed", func() bool {
		rows := kcTable(k.must("get", "pdb", "web"))
		return len(rows) == 2 && rows[1][1] == "2" && rows[1][3] == "1"
	})
	out = k.must("drain", "kubeplay-worker", "--timeout=60s")
	if !strings.Contains(out, "evicted") || !strings.HasSuffix(out, "node/kubeplay-worker drained\n") {
		t.Errorf("drain within the budget: %s", out)
	}
	k.must("rollout", "status", "deployment/web", "--timeout=60s")
	if nodes := k.must("get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].spec.nodeName}"); strings.Contains(nodes, "kubeplay-worker ") ||
		strings.HasSuffix(nodes, "kubeplay-worker") {
		t.Errorf("pods still on the drained node: %s", nodes)
	}
	k.must("uncordon", "kubeplay-worker")
}
