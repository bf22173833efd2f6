package patch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	kjson "sigs.k8s.io/json"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
	"kubeplay/internal/jsontest"
)

// fuzzDeployment is the object the fuzzed patches apply to.
const fuzzDeployment = `{"metadata":{"name":"web","namespace":"default","labels":{"app":"web"},"finalizers":["a","b"]},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx","ports":[{"containerPort":80}]}]}}}}`

// jsonPatchOp is kube's handlers.jsonPatchOp, the form its patch handler
// first reads a JSON patch into.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// kubeDecodes says whether kube's JSON serializer reads a patched document
// into a Deployment, and the object it makes (as JSON without its kind and
// apiVersion, empty values dropped). skip: the patch changed the kind or
// apiVersion, which kube refuses with a conversion error kubeplay does not
// imitate.
func kubeDecodes(doc []byte) (obj map[string]any, ok, skip bool) {
	var tm struct{ Kind, APIVersion string }
	if json.Unmarshal(doc, &tm) == nil && (tm.Kind != "Deployment" || tm.APIVersion != "apps/v1") {
		return nil, false, true
	}
	decoded, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, &appsv1.Deployment{})
	if err != nil {
		return nil, false, false
	}
	b, _ := json.Marshal(decoded.(runtime.Object))
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	delete(m, "kind")
	delete(m, "apiVersion")
	jsontest.DropEmpty(m, true)
	return m, true, false
}

// compareMechanism runs a patch through the mechanism and checks it against
// kube's answer: an error of kube's code and message, or the object kube
// decodes.
func compareMechanism(t *testing.T, mech Mechanism, wantCode int, wantMsg string, kubeDoc []byte) {
	t.Helper()
	current, err := object.Decode([]byte(fuzzDeployment))
	if err != nil {
		t.Fatal(err)
	}
	got, err := mech(current)
	var st *apierrors.Status
	if err != nil && !errors.As(err, &st) {
		t.Fatalf("not a Status: %v", err)
	}
	switch {
	case wantCode != 0:
		if st == nil || st.Code != wantCode || wantMsg != "" && st.Message != wantMsg {
			t.Fatalf("got %v, want %d %q", err, wantCode, wantMsg)
		}
	case kubeDoc == nil:
		t.Fatal("no answer from kube")
	default:
		want, ok, skip := kubeDecodes(kubeDoc)
		if skip {
			return
		}
		if !ok {
			if st == nil || st.Code != 422 {
				t.Fatalf("kube cannot read %s; kubeplay: %v", kubeDoc, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("kube reads %s; kubeplay: %v", kubeDoc, err)
		}
		b, _ := json.Marshal(got)
		var g map[string]any
		_ = json.Unmarshal(b, &g)
		delete(g, "kind") // the registry writes them
		delete(g, "apiVersion")
		jsontest.DropEmpty(g, true)
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(want)
		if string(gb) != string(wb) {
			t.Fatalf("patched\n got %s\nwant %s", gb, wb)
		}
	}
}

// FuzzK8S_WRITE_2_JSONPatch (seeds in testdata/fuzz): a fuzzed JSON patch fails as kube's handler
// fails it (its strict read's message, the library's 400, the generic 422
// when an operation does not apply, the invalid patch when the result is no
// Deployment), or makes the Deployment kube makes.
func FuzzK8S_WRITE_2_JSONPatch(f *testing.F) {
	f.Fuzz(func(t *testing.T, body string) {
		mech := target{apiVersion: "apps/v1", kind: "Deployment"}.jsonPatch([]byte(body))
		var ops []jsonPatchOp
		if _, err := kjson.UnmarshalStrict([]byte(body), &ops); err != nil {
			compareMechanism(t, mech, 400, "error decoding patch: "+strings.ReplaceAll(err.Error(), "patch.jsonPatchOp", "handlers.jsonPatchOp"), nil)
			return
		}
		p, err := jsonpatch.DecodePatch([]byte(body))
		if err != nil {
			compareMechanism(t, mech, 400, err.Error(), nil)
			return
		}
		if len(p) > maxJSONPatchOperations {
			compareMechanism(t, mech, 413, "", nil)
			return
		}
		doc := []byte(`{"apiVersion":"apps/v1","kind":"Deployment",` + fuzzDeployment[1:])
		patched, err := safely(func() ([]byte, error) { return p.Apply(doc) })
		if apierrors.HasCode(err, 500) { // the library panics; kubeplay answers 500
			compareMechanism(t, mech, 500, "", nil)
			return
		}
		if err != nil {
			compareMechanism(t, mech, 422, "the server rejected our request due to an error in our request", nil)
			return
		}
		compareMechanism(t, mech, 0, "", patched)
	})
}

// FuzzK8S_WRITE_2_MergePatch (seeds in testdata/fuzz): a fuzzed merge patch fails as kube's handler
// fails it, or makes the Deployment kube makes.
func FuzzK8S_WRITE_2_MergePatch(f *testing.F) {
	f.Fuzz(func(t *testing.T, body string) {
		mech := target{apiVersion: "apps/v1", kind: "Deployment"}.mergePatch([]byte(body))
		var m map[string]any
		if _, err := kjson.UnmarshalStrict([]byte(body), &m); err != nil {
			compareMechanism(t, mech, 400, "error decoding patch: "+err.Error(), nil)
			return
		}
		doc := []byte(`{"apiVersion":"apps/v1","kind":"Deployment",` + fuzzDeployment[1:])
		patched, err := safely(func() ([]byte, error) { return jsonpatch.MergePatch(doc, []byte(body)) })
		switch {
		case apierrors.HasCode(err, 500): // the library panics; kubeplay answers 500
			compareMechanism(t, mech, 500, "", nil)
		case err == jsonpatch.ErrBadJSONPatch:
			compareMechanism(t, mech, 400, err.Error(), nil)
		case err != nil:
			compareMechanism(t, mech, 500, err.Error(), nil)
		default:
			compareMechanism(t, mech, 0, "", patched)
		}
	})
}
