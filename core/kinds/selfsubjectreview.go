package kinds

import (
	"kubeplay/core/api"
)

// selfSubjectReview is authentication.k8s.io/v1 SelfSubjectReview.
func selfSubjectReview() *api.Resource {
	return &api.Resource{
		Group: "authentication.k8s.io", Version: "v1", Kind: "SelfSubjectReview",
		Plural: "selfsubjectreviews", Singular: "selfsubjectreview", Verbs: createOnly, Virtual: true,
	}
}
