package kinds

import (
	"kubeplay/core/api"
)

// selfSubjectAccessReview is authorization.k8s.io/v1 SelfSubjectAccessReview.
func selfSubjectAccessReview() *api.Resource {
	return &api.Resource{
		Group: "authorization.k8s.io", Version: "v1", Kind: "SelfSubjectAccessReview",
		Plural: "selfsubjectaccessreviews", Singular: "selfsubjectaccessreview", Verbs: createOnly, Virtual: true,
	}
}
