package kinds

import (
	"kubeplay/core/api"
)

// tokenReview is authentication.k8s.io/v1 TokenReview: who a token is from.
func tokenReview() *api.Resource {
	return &api.Resource{
		Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview",
		Plural: "tokenreviews", Singular: "tokenreview", Verbs: createOnly, Virtual: true,
	}
}

// selfSubjectReview is authentication.k8s.io/v1 SelfSubjectReview.
func selfSubjectReview() *api.Resource {
	return &api.Resource{
		Group: "authentication.k8s.io", Version: "v1", Kind: "SelfSubjectReview",
		Plural: "selfsubjectreviews", Singular: "selfsubjectreview", Verbs: createOnly, Virtual: true,
	}
}
