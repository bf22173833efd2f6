package kinds

import (
	"kubeplay/core/schema"
)

// selfSubjectAccessReview is authorization.k8s.io/v1 SelfSubjectAccessReview.
func selfSubjectAccessReview() *schema.Resource {
	return &schema.Resource{
		Group: "authorization.k8s.io", Version: "v1", Kind: "SelfSubjectAccessReview",
		Plural: "selfsubjectaccessreviews", Singular: "selfsubjectaccessreview", Verbs: createOnly, Virtual: true,
	}
}
