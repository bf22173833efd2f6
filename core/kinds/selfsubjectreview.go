package kinds

import (
	"kubeplay/core/schema"
)

// selfSubjectReview is authentication.k8s.io/v1 SelfSubjectReview.
func selfSubjectReview() *schema.Resource {
	return &schema.Resource{
		Group: "authentication.k8s.io", Version: "v1", Kind: "SelfSubjectReview",
		Plural: "selfsubjectreviews", Singular: "selfsubjectreview", Verbs: createOnly, Virtual: true,
	}
}
