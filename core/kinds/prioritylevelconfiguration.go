package kinds

import (
	"kubeplay/core/encoding/table"
	"kubeplay/core/schema"
)

// priorityLevelConfiguration is flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration.
func priorityLevelConfiguration() *schema.Resource {
	return &schema.Resource{
		Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "PriorityLevelConfiguration",
		Plural: "prioritylevelconfigurations", Singular: "prioritylevelconfiguration", Verbs: allVerbs, Generation: true,
		Subs:    []schema.Subresource{{Name: "status", Kind: "PriorityLevelConfiguration", Group: "flowcontrol.apiserver.k8s.io", Verbs: statusVerbs}},
		Printer: table.PriorityLevelConfiguration,
	}
}
