package validation

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// The rules of certificates.k8s.io/v1's CertificateSigningRequest, as
// k8s.io/kubernetes's pkg/apis/certificates/validation judges them (the
// metadata aside: kube checks no name): a request that is a signed PEM
// certificate request, known usages once each, a signer name, a duration
// of ten minutes at least, conditions kube allows, and a certificate that
// is PEM certificates. What an older object already holds against the rules
// (a legacy signer, unknown or duplicate usages, duplicate or empty
// condition types, both approved and denied, an unreadable certificate) an
// update may keep.

// csrUsages are the key usages kube knows, sorted as its messages list them.
var csrUsages = []string{"any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment",
	"decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user",
	"key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"}

// csrOptions are what an update may keep of its old object (kube's
// certificateValidationOptions).
type csrOptions struct {
	settingApproval, settingCertificate                                 bool
	bothApprovedAndDenied, legacySigner, duplicateConditions, emptyType bool
	arbitraryCertificate, unknownUsages, duplicateUsages                bool
}

// csrOptionsFor are the options of a write of csr over old (nil for a new
// one).
func csrOptionsFor(csr, old fields) csrOptions {
	if old == nil {
		return csrOptions{}
	}
	oldSpec := old.obj("spec")
	usages := oldSpec.strs("usages")
	var unknown, duplicate bool
	for i, u := range usages {
		unknown = unknown || !slices.Contains(csrUsages, u)
		duplicate = duplicate || slices.Contains(usages[:i], u)
	}
	var approved, denied, duplicateTypes, emptyType bool
	seen := map[string]bool{}
	for _, c := range csrConditions(old) {
		typ := c.str("type")
		approved = approved || typ == "Approved"
		denied = denied || typ == "Denied"
		duplicateTypes = duplicateTypes || seen[typ]
		emptyType = emptyType || typ == ""
		seen[typ] = true
	}
	oldCert := csrCertificate(old)
	return csrOptions{
		bothApprovedAndDenied: approved && denied,
		legacySigner:          oldSpec.str("signerName") == "kubernetes.io/legacy-unknown",
		duplicateConditions:   duplicateTypes,
		emptyType:             emptyType,
		arbitraryCertificate:  string(csrCertificate(csr)) == string(oldCert) || certificateError(oldCert) != nil,
		unknownUsages:         unknown,
		duplicateUsages:       duplicate,
	}
}

func csrConditions(csr fields) []fields { return csr.obj("status").list("conditions") }

// csrCertificate is status.certificate's bytes (base64 in JSON).
func csrCertificate(csr fields) []byte {
	b, _ := base64.StdEncoding.DecodeString(csr.obj("status").str("certificate"))
	return b
}

// CertificateSigningRequest is ValidateCertificateSigningRequestCreate.
func CertificateSigningRequest(csr object.Object) field.ErrorList {
	return certificateSigningRequest(fields(csr), csrOptions{})
}

// CertificateSigningRequestUpdate is what kube checks of an update of the
// request itself (sub ""), of its status ("status": a certificate may be
// set, once) or of its approval ("approval": Approved and Denied conditions
// may be added).
func CertificateSigningRequestUpdate(csr, old object.Object, sub string) field.ErrorList {
	opts := csrOptionsFor(fields(csr), fields(old))
	opts.settingCertificate = sub == "status"
	opts.settingApproval = sub == "approval"
	errs := certificateSigningRequest(fields(csr), opts)
	p := field.NewPath("status", "conditions")
	for _, t := range [...]string{"Approved", "Denied", "Failed"} {
		if len(conditionsOf(csr, t)) < len(conditionsOf(old, t)) {
			add(&errs, field.Forbidden(p, fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	if !opts.settingApproval {
		for _, t := range [...]string{"Approved", "Denied"} {
			conds, oldConds := conditionsOf(csr, t), conditionsOf(old, t)
			switch {
			case len(conds) < len(oldConds):
			case len(conds) > len(oldConds):
				add(&errs, field.Forbidden(p, fmt.Sprintf("updates may not add a condition of type %q", t)))
			case !semanticEqual(conds, oldConds):
				// kube's message goes on with a go-cmp diff of the conditions.
				add(&errs, field.Forbidden(p, fmt.Sprintf("updates may not modify a condition of type %q", t)))
			}
		}
	}
	if cert, oldCert := csrCertificate(fields(csr)), csrCertificate(fields(old)); string(cert) != string(oldCert) {
		switch {
		case !opts.settingCertificate:
			add(&errs, field.Forbidden(field.NewPath("status", "certificate"), "updates may not set certificate content"))
		case len(oldCert) > 0:
			add(&errs, field.Forbidden(field.NewPath("status", "certificate"), "updates may not modify existing certificate content"))
		}
	}
	return errs
}

// conditionsOf are csr's conditions of type t.
func conditionsOf(csr object.Object, t string) []any {
	var out []any
	for _, c := range csrConditions(fields(csr)) {
		if c.str("type") == t {
			out = append(out, map[string]any(c))
		}
	}
	return out
}

// certificateSigningRequest is validateCertificateSigningRequest (the
// metadata aside).
func certificateSigningRequest(csr fields, opts csrOptions) field.ErrorList {
	var errs field.ErrorList
	spec, p := csr.obj("spec"), field.NewPath("spec")
	request, _ := base64.StdEncoding.DecodeString(spec.str("request"))
	if err := requestError(request); err != nil {
		add(&errs, field.Invalid(p.Child("request"), field.GoSyntax(goBytes(request)), err.Error()))
	}
	usages := spec.strs("usages")
	if len(usages) == 0 {
		add(&errs, field.Required(p.Child("usages"), ""))
	}
	if !opts.unknownUsages {
		for i, u := range usages {
			if !slices.Contains(csrUsages, u) {
				add(&errs, field.NotSupported(p.Child("usages").Index(i), u, csrUsages))
			}
		}
	}
	if !opts.duplicateUsages {
		for i, u := range usages {
			if slices.Contains(usages[:i], u) {
				add(&errs, field.Duplicate(p.Child("usages").Index(i), u))
			}
		}
	}
	if signer := spec.str("signerName"); !opts.legacySigner && signer == "kubernetes.io/legacy-unknown" {
		add(&errs, field.Invalid(p.Child("signerName"), signer, "the legacy signerName is not allowed via this API version"))
	} else {
		add(&errs, SignerName(signer, p.Child("signerName"))...)
	}
	if spec.has("expirationSeconds") && spec.num("expirationSeconds") < 600 {
		add(&errs, field.Invalid(p.Child("expirationSeconds"), spec.num("expirationSeconds"), "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	add(&errs, csrConditionErrors(csr, opts)...)
	if !opts.arbitraryCertificate {
		if err := certificateError(csrCertificate(csr)); err != nil {
			add(&errs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", err.Error()))
		}
	}
	return errs
}

// csrConditionErrors is validateConditions.
func csrConditionErrors(csr fields, opts csrOptions) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("status", "conditions")
	seen := map[string]bool{}
	var approved, denied bool
	for i, c := range csrConditions(csr) {
		ip, typ, status := p.Index(i), c.str("type"), c.str("status")
		if !opts.emptyType && typ == "" {
			add(&errs, field.Required(ip.Child("type"), ""))
		}
		allowed := []string{"False", "True", "Unknown"}
		if typ == "Approved" || typ == "Denied" || typ == "Failed" {
			allowed = []string{"True"}
		}
		switch {
		case status == "":
			add(&errs, field.Required(ip.Child("status"), ""))
		case !slices.Contains(allowed, status):
			add(&errs, field.NotSupported(ip.Child("status"), status, allowed))
		}
		if !opts.bothApprovedAndDenied {
			switch typ {
			case "Approved":
				approved = true
				if denied {
					add(&errs, field.Invalid(ip.Child("type"), typ, "Approved and Denied conditions are mutually exclusive"))
				}
			case "Denied":
				denied = true
				if approved {
					add(&errs, field.Invalid(ip.Child("type"), typ, "Approved and Denied conditions are mutually exclusive"))
				}
			}
		}
		if !opts.duplicateConditions {
			if seen[typ] {
				add(&errs, field.Duplicate(ip.Child("type"), typ))
			}
			seen[typ] = true
		}
	}
	return errs
}

// requestError is kube's validateCSR: a PEM certificate request whose
// signature holds.
func requestError(request []byte) error {
	csr, err := ParseCertificateRequest(request)
	if err != nil {
		return err
	}
	return csr.CheckSignature()
}

// ParseCertificateRequest is kube's certificates.ParseCSR: the certificate
// request of a PEM block.
func ParseCertificateRequest(request []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(request)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}

// certificateError is kube's validateCertificate: nothing, or PEM
// CERTIFICATE blocks without headers, each holding certificates.
func certificateError(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, rest := pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return errors.New("no PEM block headers are permitted")
		}
		blocks++
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return errors.New("found CERTIFICATE PEM block containing 0 certificates")
		}
		data = rest
	}
	if blocks == 0 {
		return errors.New("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// goBytes is a byte slice as %#v prints it.
func goBytes(b []byte) string {
	if b == nil {
		return "[]byte(nil)"
	}
	return fmt.Sprintf("%#v", b)
}

// SignerName is ValidateSignerName: a domain of at least two DNS labels, a
// slash, and a path of DNS subdomains, of bounded lengths.
func SignerName(signer string, p *field.Path) field.ErrorList {
	if signer == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	segments := strings.Split(signer, "/")
	if len(segments) != 2 {
		return field.ErrorList{field.Invalid(p, signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	if len(segments[0]) > DNS1123SubdomainMaxLength {
		add(&errs, field.TooLong(p, DNS1123SubdomainMaxLength))
	}
	labels := strings.Split(segments[0], ".")
	for _, l := range labels {
		if msgs := DNS1123Label(l); len(msgs) > 0 {
			for _, m := range msgs {
				add(&errs, field.Invalid(p, segments[0], fmt.Sprintf("validating label %q: %s", l, m)))
			}
			break
		}
	}
	if len(labels) < 2 {
		add(&errs, field.Invalid(p, segments[0], "should be a domain with at least two segments separated by dots"))
	}
	for _, l := range strings.Split(segments[1], ".") {
		if msgs := DNS1123Subdomain(l); len(msgs) > 0 {
			for _, m := range msgs {
				add(&errs, field.Invalid(p, segments[1], fmt.Sprintf("validating label %q: %s", l, m)))
			}
			break
		}
	}
	// The path holds a DNS label, a dot and a subdomain at most.
	if maxLen := DNS1123SubdomainMaxLength + (DNS1123SubdomainMaxLength + DNS1123LabelMaxLength + 1) + 1; len(signer) > maxLen {
		add(&errs, field.TooLong(p, maxLen))
	}
	return errs
}
