package kinds

import (
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// apiService is apiregistration.k8s.io/v1 APIService, the aggregator's:
// which server serves a group version. The local ones (every built-in
// group version, every custom resource's) are registered by
// core/aggregator and are available at once, as kube's strategy makes
// them; one that names a Service is stored, but no request is sent on to
// it here.
func apiService() *api.Resource {
	return &api.Resource{
		Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService", Plural: "apiservices", Singular: "apiservice",
		Categories: []string{"api-extensions"}, Verbs: allVerbs, Names: api.PathSegment, ApplyDeduced: true,
		Subs: []api.Subresource{{Name: "status", Kind: "APIService", Group: "apiregistration.k8s.io", Verbs: statusVerbs}},
		Hooks: api.Hooks{
			PrepareForCreate: func(obj object.Object, now time.Time) {
				status := map[string]any{}
				if object.Path(obj, "spec", "service") == nil {
					status["conditions"] = []any{map[string]any{"type": "Available", "status": "True", "lastTransitionTime": object.Timestamp(now),
						"reason": "Local", "message": "Local APIServices are always available"}}
				}
				obj["status"] = status
			},
			StatusResetsMetadata: []string{"labels", "annotations", "finalizers", "ownerReferences"},
			Validate:             validation.APIService,
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Service", Type: "string", Description: "The reference to the service that hosts this API endpoint."},
			{Name: "Available", Type: "string", Description: "Whether this service is available."},
			table.AgeColumn,
		}, func(a object.Object, now time.Time) []any {
			service := "Local"
			if svc, ok := object.Path(a, "spec", "service").(map[string]any); ok {
				service = object.String(svc["namespace"]) + "/" + object.String(svc["name"])
			}
			available := "Unknown"
			for _, c := range object.Objects(object.Child(a, "status"), "conditions") {
				if c["type"] != "Available" {
					continue
				}
				switch status, reason := object.String(c["status"]), object.String(c["reason"]); {
				case status == "True" || reason == "":
					available = status
				default:
					available = status + " (" + reason + ")"
				}
			}
			return []any{table.Name(a), service, available, table.Age(a, now)}
		}),
	}
}
