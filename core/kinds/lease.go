package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// lease is coordination.k8s.io/v1 Lease.
func lease() *schema.Resource {
	return &schema.Resource{
		Group: "coordination.k8s.io", Version: "v1", Kind: "Lease", Plural: "leases", Singular: "lease",
		Namespaced: true, Verbs: allVerbs, CreateOnUpdate: true, UpdateNeedsVersion: true,
		Printer: table.Lease,
	}
}
