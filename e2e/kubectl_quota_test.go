package e2e

import (
	"strings"
	"testing"
)

// TestROB_2_KubectlQuota is a quota lesson with kubectl 1.32 against a
// simulated cluster: `create quota` and the controller's status in `get
// quota` and `describe quota`; a Pod past the quota refused in kube's words;
// the quota freed by a delete, and the Pod then admitted; a LimitRange's
// defaults in a new Pod and in `describe limits`; a Pod that asks for no
// cpu refused by a compute quota.
func TestROB_2_KubectlQuota(t *testing.T) {
	k := newClusterKubectl(t)
	k.must("create", "namespace", "team")
	k.must("create", "quota", "q", "-n", "team", "--hard=pods=2,count/configmaps=2")
	// The root CA publisher's kube-root-ca.crt counts.
	k.eventually("the quota counted", func() bool {
		rows := kcTable(k.must("get", "quota", "-n", "team"))
		return len(rows) == 2 && strings.Join(rows[1][2:], " ") == "count/configmaps: 1/2, pods: 0/2"
	})
	wantRows(t, "get quota", kcTable(k.must("get", "quota", "-n", "team")), [][]string{
		{"NAME", "AGE", "REQUEST", "LIMIT"},
		{"q", `\d+s`, "count/configmaps:", "1/2,", "pods:", "0/2"},
	})
	describe := k.must("describe", "quota", "q", "-n", "team")
	for _, want := range []string{"Name:             q", "Namespace:        team", "Resource          Used  Hard",
		"count/configmaps  1     2", "pods              0     2"} {
		if !strings.Contains(describe, want) {
			t.Errorf("describe quota: no %q in\n%s", want, describe)
		}
	}

	k.must("run", "a", "-n", "team", "--image=nginx")
	k.must("run", "b", "-n", "team", "--image=nginx")
	refused := k.fails("run", "c", "-n", "team", "--image=nginx")
	if want := `Error from server (Forbidden): pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`; !strings.Contains(refused, want) {
		t.Fatalf("run c: %q, want %q", refused, want)
	}
	k.must("delete", "pod", "a", "-n", "team")
	k.eventually("a's pod freed", func() bool {
		return strings.Contains(k.must("describe", "quota", "q", "-n", "team"), "pods              1     2")
	})
	k.must("run", "c", "-n", "team", "--image=nginx")

	k.must("create", "-n", "team", "-f", k.file("limits.yaml", `apiVersion: v1
kind: LimitRange
metadata: {name: defaults}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 256Mi}
    defaultRequest: {cpu: 100m, memory: 128Mi}
`))
	wantRows(t, "get limits", kcTable(k.must("get", "limits", "-n", "team")), [][]string{
		{"NAME", "CREATED", "AT"},
		{"defaults", `\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`},
	})
	describe = k.must("describe", "limits", "defaults", "-n", "team")
	for _, want := range []string{"Type        Resource  Min  Max  Default Request  Default Limit  Max Limit/Request Ratio",
		"Container   cpu       -    -    100m             500m           -", "Container   memory    -    -    128Mi            256Mi          -"} {
		if !strings.Contains(describe, want) {
			t.Errorf("describe limits: no %q in\n%s", want, describe)
		}
	}
	k.must("create", "quota", "compute", "-n", "team", "--hard=requests.cpu=1,limits.memory=1Gi")
	k.eventually("compute counted", func() bool {
		return strings.Contains(k.must("get", "quota", "compute", "-n", "team"), "requests.cpu: 0/1")
	})
	k.must("delete", "pod", "b", "-n", "team")
	k.eventually("b's pod freed", func() bool {
		return strings.Contains(k.must("describe", "quota", "q", "-n", "team"), "pods              1     2")
	})
	k.must("run", "d", "-n", "team", "--image=nginx")
	if got := k.must("get", "pod", "d", "-n", "team", "-o", "jsonpath={.spec.containers[0].resources}"); got != `{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"128Mi"}}` {
		t.Errorf("d's resources: %s", got)
	}
	if got := k.must("get", "pod", "d", "-n", "team", "-o", `jsonpath={.metadata.annotations.kubernetes\.io/limit-ranger}`); got != "LimitRanger plugin set: cpu, memory request for container d; cpu, memory limit for container d" {
		t.Errorf("d's annotation: %s", got)
	}
	wantRows(t, "get quota compute", kcTable(k.must("get", "quota", "compute", "-n", "team")), [][]string{
		{"NAME", "AGE", "REQUEST", "LIMIT"},
		{"compute", `\d+s`, "requests.cpu:", "100m/1", "limits.memory:", "256Mi/1Gi"},
	})
	k.must("delete", "limits", "defaults", "-n", "team")
	refused = k.fails("run", "e", "-n", "team", "--image=nginx")
	if want := `pods "e" is forbidden: failed quota: compute: must specify limits.memory for: e; requests.cpu for: e`; !strings.Contains(refused, want) {
		t.Errorf("run e: %q, want %q", refused, want)
	}
}
