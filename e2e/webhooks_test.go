package e2e

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"kubeplay/core/admission"
	"kubeplay/core/sandbox"
)

// TestK8S_WRITE_5_WebhooksCalledForReal: natively, a webhook configured
// with a url is called for real, with an AdmissionReview v1 request: a
// mutating webhook's JSON patch is applied (and its warning shown), a
// validating webhook's refusal is kube's (admission webhook "NAME" denied
// the request: MESSAGE, its code and reason), and a webhook that answers
// nonsense is a failed call, refused or ignored by its failure policy.
func TestK8S_WRITE_5_WebhooksCalledForReal(t *testing.T) {
	t.Parallel()
	var reviews atomic.Int32
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review struct {
			Request struct {
				UID       string         `json:"uid"`
				Operation string         `json:"operation"`
				Kind      map[string]any `json:"kind"`
				Object    struct {
					Metadata struct{ Name string } `json:"metadata"`
					Data     map[string]string     `json:"data"`
				} `json:"object"`
			} `json:"request"`
		}
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request.Kind["kind"] != "ConfigMap" || review.Request.Operation != "CREATE" {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		reviews.Add(1)
		resp := map[string]any{"uid": review.Request.UID, "allowed": true}
		switch r.URL.Path {
		case "/mutate":
			resp["patchType"] = "JSONPatch"
			resp["patch"] = base64.StdEncoding.EncodeToString([]byte(`[{"op":"add","path":"/metadata/labels","value":{"mutated":"yes"}}]`))
			resp["warnings"] = []string{"labelled by the webhook"}
		case "/validate":
			if _, bad := review.Request.Object.Data["forbidden"]; bad {
				resp["allowed"] = false
				resp["status"] = map[string]any{"code": 403, "reason": "Forbidden", "message": "no forbidden keys"}
			}
		case "/nonsense":
			resp["uid"] = "someone-else"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
	}))
	t.Cleanup(hook.Close)
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw}))

	hs, _ := startCore(t, sandbox.Config{Webhooks: admission.HTTP})
	k := &kcEnv{t: t, bin: kcBinary(t), kubeconfig: writeKubeconfig(t, hs.URL), home: t.TempDir(), rec: &kcRecorder{}}
	webhook := func(name, path, more string) string {
		return `
- name: ` + name + `
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  clientConfig: {url: "` + hook.URL + path + `", caBundle: ` + ca + `}
  sideEffects: None
  admissionReviewVersions: [v1]` + more
	}
	k.must("create", "-f", k.file("hooks.yaml", `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: label}
webhooks:`+webhook("label.example.com", "/mutate", "")+`
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: deny}
webhooks:`+webhook("deny.example.com", "/validate", "")+webhook("nonsense.example.com", "/nonsense", "\n  failurePolicy: Ignore")+`
`))

	out, errOut, err := k.run("", "create", "configmap", "fine", "--from-literal=a=b")
	if err != nil || !strings.Contains(errOut, "Warning: labelled by the webhook") {
		t.Fatalf("create fine: %v\n%s\n%s", err, out, errOut)
	}
	if got := k.must("get", "configmap", "fine", "-o", "jsonpath={.metadata.labels.mutated}"); got != "yes" {
		t.Errorf("the mutating webhook's label: %q", got)
	}
	if got := k.fails("create", "-f", k.file("bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: {forbidden: x}\n")); !strings.Contains(got, `Error from server (Forbidden): error when creating`) ||
		!strings.Contains(got, `admission webhook "deny.example.com" denied the request: no forbidden keys`) {
		t.Errorf("refused by the validating webhook: %s", got)
	}

	// Made to fail closed, the webhook that answers for another request is
	// a failed call.
	k.must("patch", "validatingwebhookconfiguration", "deny", "--type=json", "-p", `[{"op":"replace","path":"/webhooks/1/failurePolicy","value":"Fail"}]`)
	if got := k.fails("create", "configmap", "other", "--from-literal=a=b"); !strings.Contains(got, `Internal error occurred: failed calling webhook "nonsense.example.com": received invalid webhook response: expected response.uid=`) {
		t.Errorf("an answer for another request: %s", got)
	}
	if reviews.Load() < 5 {
		t.Errorf("%d reviews reached the webhook", reviews.Load())
	}
}
