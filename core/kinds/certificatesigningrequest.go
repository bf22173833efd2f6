package kinds

import (
	"encoding/base64"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/validation"
)

// certificateSigningRequest is certificates.k8s.io/v1
// CertificateSigningRequest (csr), cluster-scoped: a request for a
// certificate, written with its requester's identity, approved or denied
// through its approval subresource and issued through its status (stored
// only: no signer or approver runs here). A write to the request itself
// changes neither its spec nor its status.
func certificateSigningRequest() *api.Resource {
	return &api.Resource{
		Group: "certificates.k8s.io", Version: "v1", Kind: "CertificateSigningRequest",
		Plural: "certificatesigningrequests", Singular: "certificatesigningrequest", ShortNames: []string{"csr"},
		Verbs: allVerbs, Names: api.PathSegment,
		Subs: []api.Subresource{
			{Name: "approval", Kind: "CertificateSigningRequest", Group: "certificates.k8s.io", Verbs: statusVerbs},
			{Name: "status", Kind: "CertificateSigningRequest", Group: "certificates.k8s.io", Verbs: statusVerbs},
		},
		Fields: map[string]func(object.Object) string{"spec.signerName": str("spec", "signerName")},
		Hooks: api.Hooks{
			PrepareForCreate: func(obj object.Object, _ time.Time) { obj["status"] = map[string]any{} },
			SetRequester:     setCSRRequester,
			PrepareForUpdate: prepareCSRUpdate,
			Validate:         validation.CertificateSigningRequest,
			ValidateUpdate:   validation.CertificateSigningRequestUpdate,
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			table.AgeColumn,
			{Name: "SignerName", Type: "string", Description: descCSRSignerName},
			{Name: "Requestor", Type: "string", Description: "Base64-encoded PKCS#10 CSR data"},
			{Name: "RequestedDuration", Type: "string", Description: descCSRExpirationSeconds},
			{Name: "Condition", Type: "string", Description: "Conditions applied to the request, such as approval or denial."},
		}, csrCells),
	}
}

// setCSRRequester is what kube's strategy writes into a new request: who
// asks for it, whatever the request says.
func setCSRRequester(obj object.Object, u user.User) {
	spec := object.Child(obj, "spec")
	for _, f := range [...]string{"username", "uid", "groups", "extra"} {
		delete(spec, f)
	}
	if u.Name != "" {
		spec["username"] = u.Name
	}
	if u.UID != "" {
		spec["uid"] = u.UID
	}
	if len(u.Groups) > 0 {
		object.SetStrings(spec, "groups", u.Groups)
	}
	if len(u.Extra) > 0 {
		extra := map[string]any{}
		for k, v := range u.Extra {
			list := make([]any, len(v))
			for i, s := range v {
				list[i] = s
			}
			extra[k] = list
		}
		spec["extra"] = extra
	}
}

// prepareCSRUpdate is kube's three strategies: a write to the request keeps
// its spec and status; one to its status keeps the spec and the Approved
// and Denied conditions as they were (when as many); one to its approval
// keeps all but the conditions. Conditions without times get the write's.
func prepareCSRUpdate(u api.Update) object.Object {
	out := u.Obj
	api.SetOrDelete(out, "spec", u.Old)
	switch u.Sub {
	case "":
		api.SetOrDelete(out, "status", u.Old)
	case "status":
		for _, t := range [...]string{"Approved", "Denied"} {
			preserveConditions(out, u.Old, t)
		}
		stampConditions(out, u.Old, u.Now)
	case "approval":
		stampConditions(out, u.Old, u.Now)
		conds := object.Path(out, "status", "conditions")
		status := map[string]any{}
		if old, ok := u.Old["status"].(map[string]any); ok {
			status = object.DeepCopy(old)
		}
		if conds != nil {
			status["conditions"] = conds
		} else {
			delete(status, "conditions")
		}
		out["status"] = status
	}
	return out
}

// conditionIndexes are the indexes of obj's conditions of type t.
func conditionIndexes(obj object.Object, t string) []int {
	var out []int
	for i, c := range object.Objects(object.Child(obj, "status"), "conditions") {
		if c["type"] == t {
			out = append(out, i)
		}
	}
	return out
}

// preserveConditions puts old's conditions of type t back in place of
// obj's, when both have as many.
func preserveConditions(obj, old object.Object, t string) {
	idx, oldIdx := conditionIndexes(obj, t), conditionIndexes(old, t)
	if len(idx) != len(oldIdx) {
		return
	}
	conds, _ := object.Path(obj, "status", "conditions").([]any)
	oldConds, _ := object.Path(old, "status", "conditions").([]any)
	for i, j := range oldIdx {
		conds[idx[i]] = oldConds[j]
	}
}

// stampConditions is populateConditionTimestamps: a condition without a
// lastUpdateTime is updated now; one without a lastTransitionTime keeps
// that of old's condition of its type and status, or moved now.
func stampConditions(obj, old object.Object, now time.Time) {
	ts := object.Timestamp(now)
	oldConds := object.Objects(object.Child(old, "status"), "conditions")
	for _, c := range object.Objects(object.Child(obj, "status"), "conditions") {
		if c["lastUpdateTime"] == nil {
			c["lastUpdateTime"] = ts
		}
		if c["lastTransitionTime"] == nil {
			c["lastTransitionTime"] = ts
			for _, o := range oldConds {
				if o["type"] == c["type"] && o["status"] == c["status"] && o["lastTransitionTime"] != nil {
					c["lastTransitionTime"] = o["lastTransitionTime"]
					break
				}
			}
		}
	}
}

// csrCells is printCertificateSigningRequest: the signer (<none>), the
// requester, the requested duration (<none>), and the condition: Denied,
// else Approved, else Pending, then Failed and Issued.
func csrCells(csr object.Object, now time.Time) []any {
	spec, _ := csr["spec"].(map[string]any)
	signer, _ := spec["signerName"].(string)
	if signer == "" {
		signer = "<none>"
	}
	requester, _ := spec["username"].(string)
	duration := "<none>"
	if _, ok := spec["expirationSeconds"]; ok {
		duration = table.HumanDuration(time.Duration(table.Int(spec, "expirationSeconds")) * time.Second)
	}
	var approved, denied, failed bool
	status, _ := csr["status"].(map[string]any)
	for _, c := range object.Objects(status, "conditions") {
		switch c["type"] {
		case "Approved":
			approved = true
		case "Denied":
			denied = true
		case "Failed":
			failed = true
		}
	}
	condition := "Pending"
	switch {
	case denied:
		condition = "Denied"
	case approved:
		condition = "Approved"
	}
	if failed {
		condition += ",Failed"
	}
	if cert, _ := status["certificate"].(string); cert != "" {
		if b, err := base64.StdEncoding.DecodeString(cert); err == nil && len(b) > 0 {
			condition += ",Issued"
		}
	}
	return []any{table.Name(csr), table.Age(csr, now), signer, requester, duration, condition}
}

// The descriptions of the request's columns, its fields' in k8s.io/api's
// v1beta1 (kube's printer names those).
const (
	descCSRSignerName        = "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it's a kubelet client certificate, it is assigned\n    \"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If it's a kubelet serving certificate, it is assigned\n    \"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned \"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`."
	descCSRExpirationSeconds = "expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes."
)
