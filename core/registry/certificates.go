package registry

import (
	"encoding/base64"
	"fmt"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
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
