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
	"time"

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
	var reviews, mutations atomic.Int32
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review struct {
			Request struct {
				UID         string            `json:"uid"`
				Operation   string            `json:"operation"`
				Kind        map[string]string `json:"kind"`
				RequestKind map[string]string `json:"requestKind"`
				Object      map[string]any    `json:"object"`
			} `json:"request"`
		}
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request.Operation != "CREATE" {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		reviews.Add(1)
		req := review.Request
		resp := map[string]any{"uid": req.UID, "allowed": true}
		patch := func(p string) {
			resp["patchType"] = "JSONPatch"
			resp["patch"] = base64.StdEncoding.EncodeToString([]byte(p))
		}
		switch r.URL.Path {
		case "/mutate":
			mutations.Add(1)
			patch(`[{"op":"add","path":"/metadata/labels","value":{"mutated":"yes"}}]`)
			resp["warnings"] = []string{"labelled by the webhook"}
		case "/annotate":
			patch(`[{"op":"add","path":"/metadata/annotations","value":{"annotated":"yes"}}]`)
		case "/validate":
			if data, _ := req.Object["data"].(map[string]any); data["forbidden"] != nil {
				resp["allowed"] = false
				resp["status"] = map[string]any{"code": 403, "reason": "Forbidden", "message": "no forbidden keys"}
			}
		case "/nonsense":
			resp["uid"] = "someone-else"
		case "/event":
			// A core/v1 Event, matched by an events.k8s.io/v1 rule: the
			// webhook sees it in the version it asked for.
			if req.Kind["group"] != "events.k8s.io" || req.RequestKind["group"] != "" || req.Object["note"] != "from kubectl" {
				http.Error(w, "not an events.k8s.io/v1 Event", http.StatusBadRequest)
				return
			}
			patch(`[{"op":"replace","path":"/note","value":"patched note"}]`)
		case "/slow":
			time.Sleep(2 * time.Second)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
	}))
	t.Cleanup(hook.Close)
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw}))

	hs, _ := startCore(t, sandbox.Config{Webhooks: admission.HTTP})
	k := &kcEnv{t: t, bin: kcBinary(t), kubeconfig: writeKubeconfig(t, hs.URL), home: t.TempDir(), rec: &kcRecorder{}}
	webhookOn := func(rule, name, path, more string) string {
		return `
- name: ` + name + `
  rules: [` + rule + `]
  clientConfig: {url: "` + hook.URL + path + `", caBundle: ` + ca + `}
  sideEffects: None
  admissionReviewVersions: [v1]` + more
	}
	webhook := func(name, path, more string) string {
		return webhookOn(`{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}`, name, path, more)
	}
	k.must("create", "-f", k.file("hooks.yaml", `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: label}
webhooks:`+webhook("label.example.com", "/mutate", "\n  reinvocationPolicy: IfNeeded")+
		webhookOn(`{operations: [CREATE], apiGroups: [events.k8s.io], apiVersions: [v1], resources: [events]}`, "event.example.com", "/event", "")+`
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: mark}
webhooks:`+webhook("annotate.example.com", "/annotate", "")+`
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: deny}
webhooks:`+webhook("deny.example.com", "/validate", "")+webhook("nonsense.example.com", "/nonsense", "\n  failurePolicy: Ignore")+
		webhookOn(`{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [secrets]}`, "slow.example.com", "/slow", "\n  timeoutSeconds: 1")+`
`))

	out, errOut, err := k.run("", "create", "configmap", "fine", "--from-literal=a=b")
	if err != nil || !strings.Contains(errOut, "Warning: labelled by the webhook") {
		t.Fatalf("create fine: %v\n%s\n%s", err, out, errOut)
	}
	if got := k.must("get", "configmap", "fine", "-o", "jsonpath={.metadata.labels.mutated}/{.metadata.annotations.annotated}"); got != "yes/yes" {
		t.Errorf("the mutating webhooks' label and annotation: %q", got)
	}
	// label (IfNeeded) saw the object changed after it (by mark, later in
	// name order): it was called again.
	if n := mutations.Load(); n != 2 {
		t.Errorf("the IfNeeded webhook was called %d times for one write, want 2", n)
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
	// An Event written as core/v1 is patched as events.k8s.io/v1.
	k.must("create", "-f", k.file("event.yaml", "apiVersion: v1\nkind: Event\nmetadata: {name: ev}\ninvolvedObject: {kind: Pod, name: p, namespace: default}\nreason: R\nmessage: from kubectl\n"))
	if got := k.must("get", "event", "ev", "-o", "jsonpath={.message}"); got != "patched note" {
		t.Errorf("the event's message after the webhook's patch of its note: %q", got)
	}
	// A webhook later than its timeout fails the call as kube's does.
	if got := k.fails("create", "secret", "generic", "s", "--from-literal=a=b"); !strings.Contains(got, `failed calling webhook "slow.example.com": failed to call webhook: Post "`+hook.URL+`/slow?timeout=1s": context deadline exceeded`) {
		t.Errorf("a webhook too slow: %s", got)
	}
	if reviews.Load() < 7 {
		t.Errorf("%d reviews reached the webhook", reviews.Load())
	}
}
