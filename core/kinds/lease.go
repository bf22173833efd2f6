package kinds

import (
	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
)

// lease is coordination.k8s.io/v1 Lease.
func lease() *api.Resource {
	return &api.Resource{
		Group: "coordination.k8s.io", Version: "v1", Kind: "Lease", Plural: "leases", Singular: "lease",
		Namespaced: true, Verbs: allVerbs, CreateOnUpdate: true, UpdateNeedsVersion: true,
		Hooks:   api.Hooks{LabelChecksOnUpdate: 3},
		Printer: table.Lease,
	}
}
