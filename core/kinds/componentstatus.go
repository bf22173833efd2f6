package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
)

// componentStatus is v1 ComponentStatus (deprecated since 1.19): the health
// of etcd, kube-scheduler and kube-controller-manager, which kube-apiserver
// probes at every read.
func componentStatus() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "ComponentStatus", Plural: "componentstatuses", Singular: "componentstatus",
		ShortNames: []string{"cs"}, Verbs: []string{"get", "list"},
		Computed: componentStatuses, DeprecatedIn: "v1.19",
		Printer: table.ComponentStatus,
	}
}

// The components kube-apiserver probes: etcd's first server (here, the
// store, always there), and the scheduler's and controller manager's
// healthz on their secure ports, which answer "ok" when they run and
// refuse the connection when they do not (an API server alone, as the
// refapi kit runs it).
var components = []struct{ name, refused string }{
	{"controller-manager", `Get "https://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection refused`},
	{"etcd-0", ""},
	{"scheduler", `Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused`},
}

// componentStatuses are the components' statuses, in the order of their
// names (kube lists them in the order its probes finish).
func componentStatuses(controlPlane bool) []object.Object {
	out := make([]object.Object, 0, len(components))
	for _, c := range components {
		healthy, message := "True", "ok"
		if c.refused != "" && !controlPlane {
			healthy, message = "False", c.refused
		}
		out = append(out, object.Object{"metadata": map[string]any{"name": c.name, "creationTimestamp": nil},
			"conditions": []any{map[string]any{"type": "Healthy", "status": healthy, "message": message}}})
	}
	return out
}
