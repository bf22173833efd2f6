package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// resourceQuota is v1 ResourceQuota: a new quota starts without status; the
// quota and its status subresource each change only their own part. (What
// a quota does to other writes is core/registry's quota admission.)
func resourceQuota() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "ResourceQuota", Plural: "resourcequotas", Singular: "resourcequota",
		Namespaced: true, ShortNames: []string{"quota"}, Verbs: allVerbs, ReturnDeleted: true,
		Subs: []api.Subresource{{Name: "status", Kind: "ResourceQuota", Verbs: statusVerbs}},
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 3,
			PrepareForCreate:    func(obj object.Object, _ time.Time) { obj["status"] = map[string]any{} },
			Validate:            validation.ResourceQuota,
			ValidateUpdate: func(obj, old object.Object, sub string) field.ErrorList {
				if sub == "status" {
					return validation.ResourceQuotaStatusUpdate(obj)
				}
				return validation.ResourceQuotaUpdate(obj, old)
			},
		},
		Printer: table.ResourceQuota,
	}
}
