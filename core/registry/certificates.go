package registry

import (
	"encoding/base64"
	"fmt"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/auth"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/validation"
)

// kubeAPIServerClientSigner signs the client certificates kube-apiserver
// trusts.
const kubeAPIServerClientSigner = "kubernetes.io/kube-apiserver-client"

// csrSubjectRestriction is kube's CertificateSubjectRestriction validating
// admission: a CertificateSigningRequest to the kube-apiserver-client signer
// may not ask for the system:masters group (an organization of its subject).
type csrSubjectRestriction struct{}

func (csrSubjectRestriction) Admit(op Operation, t Target, obj, _ object.Object) error {
	if op == Delete || t.Sub != "" || t.Res.Group != "certificates.k8s.io" || t.Res.Plural != "certificatesigningrequests" {
		return nil
	}
	if signer, _ := object.Path(obj, "spec", "signerName").(string); signer != kubeAPIServerClientSigner {
		return nil
	}
	request, _ := object.Path(obj, "spec", "request").(string)
	raw, _ := base64.StdEncoding.DecodeString(request)
	csr, err := validation.ParseCertificateRequest(raw)
	if err != nil {
		return apierrors.NewForbidden(t.Res.Group, t.Res.Plural, t.Name, fmt.Sprintf("failed to parse CSR: %v", err))
	}
	for _, group := range csr.Subject.Organization {
		if group == "system:masters" {
			return apierrors.NewForbidden(t.Res.Group, t.Res.Plural, t.Name, "use of "+kubeAPIServerClientSigner+" signer with system:masters group is not allowed")
		}
	}
	return nil
}

// csrSignerAuthorization is kube's CertificateApproval and
// CertificateSigning validating admissions: a write to a
// CertificateSigningRequest's approval needs "approve", one to its status
// that changes its certificate or conditions needs "sign", on the signers
// of certificates.k8s.io named as the request's signer or its domain's
// ("example.com/*"). Under AlwaysAllow, for the in-process writes without
// a user and for system:masters, nothing is checked.
type csrSignerAuthorization struct{ store *Store }

func (a csrSignerAuthorization) Admit(op Operation, t Target, obj, old object.Object) error {
	z := a.store.authz
	if op != Update || t.Res.Group != "certificates.k8s.io" || t.Res.Plural != "certificatesigningrequests" ||
		z.mode == auth.ModeAlwaysAllow || t.User.Name == "" || t.User.InGroup(user.SystemPrivileged) {
		return nil
	}
	var verb string
	switch t.Sub {
	case "approval":
		verb = "approve"
	case "status":
		oldStatus, _ := old["status"].(map[string]any)
		status, _ := obj["status"].(map[string]any)
		if object.Equal(oldStatus["certificate"], status["certificate"]) && sameConditions(oldStatus["conditions"], status["conditions"]) {
			return nil
		}
		verb = "sign"
	default:
		return nil
	}
	signer, _ := object.Path(old, "spec", "signerName").(string)
	domain, _, _ := strings.Cut(signer, "/")
	for _, name := range []string{signer, domain + "/*"} {
		attrs := &auth.Attributes{User: t.User, Verb: verb, ResourceRequest: true, APIGroup: "certificates.k8s.io", APIVersion: "*",
			Resource: "signers", Name: name}
		if allowed, _ := z.Authorize(attrs); allowed {
			return nil
		}
	}
	return apierrors.NewForbidden(t.Res.Group, t.Res.Plural, t.Name, fmt.Sprintf("user not permitted to %s requests with signerName %q", verb, signer))
}

// sameConditions compares two condition lists as kube's semantic equality
// does: an empty list and none are alike.
func sameConditions(a, b any) bool {
	la, _ := a.([]any)
	lb, _ := b.([]any)
	return len(la) == 0 && len(lb) == 0 || object.Equal(a, b)
}
