// Package admission owns kube-apiserver's admission that reaches beyond the
// object written: the plugins that judge a write by objects of other kinds
// and may complete it (ServiceAccount: serviceaccount.go), each over what it
// is given to read, and the admission webhooks as the
// MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins dispatch
// them (admission.go, review.go, http.go). core/registry runs them in kube's
// order.
package admission
