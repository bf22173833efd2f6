package e2e

import (
	"strings"
	"testing"
)

// TestK8S_ENC_5_KubectlAdmissionRegistration: kubectl 1.32 creates
// admissionregistration.k8s.io/v1's kinds, prints them in kube's columns,
// finds them by their category (api-extensions), and is refused an invalid
// policy with kube's words.
func TestK8S_ENC_5_KubectlAdmissionRegistration(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	k.must("create", "-f", k.file("admission.yaml", `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: vwc1}
webhooks:
- name: quiet.example.com
  rules: [{operations: [CREATE], apiGroups: [never.example.com], apiVersions: [v1], resources: [things]}]
  clientConfig: {service: {namespace: default, name: hook}}
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: mwc1}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{operations: [CREATE, UPDATE], apiGroups: [apps], apiVersions: [v1], resources: [deployments]}]
  validations: [{expression: "object.spec.replicas <= 5"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas}
spec:
  policyName: replicas
  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}
  validationActions: [Warn, Audit]
`))
	wantRows(t, "get validatingwebhookconfigurations", kcTable(k.must("get", "validatingwebhookconfigurations")), [][]string{
		{"NAME", "WEBHOOKS", "AGE"},
		{"vwc1", "1", `\d+s`},
	})
	wantRows(t, "get mutatingwebhookconfigurations", kcTable(k.must("get", "mutatingwebhookconfigurations")), [][]string{
		{"NAME", "WEBHOOKS", "AGE"},
		{"mwc1", "0", `\d+s`},
	})
	wantRows(t, "get validatingadmissionpolicies", kcTable(k.must("get", "validatingadmissionpolicies")), [][]string{
		{"NAME", "VALIDATIONS", "PARAMKIND", "AGE"},
		{"replicas", "1", "v1/ConfigMap", `\d+s`},
	})
	wantRows(t, "get validatingadmissionpolicybindings", kcTable(k.must("get", "validatingadmissionpolicybindings")), [][]string{
		{"NAME", "POLICYNAME", "PARAMREF", "AGE"},
		{"replicas", "replicas", "default/limits", `\d+s`},
	})
	if out := k.must("get", "api-extensions", "-o", "name"); !strings.Contains(out, "validatingadmissionpolicy.admissionregistration.k8s.io/replicas") ||
		!strings.Contains(out, "validatingwebhookconfiguration.admissionregistration.k8s.io/vwc1") {
		t.Errorf("get api-extensions: %s", out)
	}
	out := k.fails("create", "-f", k.file("bad.yaml", `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: bad}
spec: {failurePolicy: Maybe}
`))
	if !strings.Contains(out, `The ValidatingAdmissionPolicy "bad" is invalid:`) || !strings.Contains(out, `spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"`) ||
		!strings.Contains(out, "spec.matchConstraints: Required value") {
		t.Errorf("invalid policy: %s", out)
	}
}
