package e2e

import (
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// kubectl against kubeplay's OpenAPI documents and field validation: explain
// prints what it prints against kube-apiserver, create and apply validate as
// they do there.

const explainFile = "testdata/explain-kube-1.32.13.json"

// explainCommands are the kubectl explain invocations recorded from kube.
var explainCommands = [][]string{
	{"explain", "pods.spec"},
	{"explain", "deployment.spec.strategy"},
	{"explain", "svc", "--recursive"},
	{"explain", "deploy.spec.template.spec.containers.imagePullPolicy"},
	{"explain", "leases.spec"},
	{"explain", "pods.spec.restartPolicy", "--output=plaintext-openapiv2"},
	{"explain", "configmaps", "--api-version=v1"},
	{"explain", "pv.spec.persistentVolumeReclaimPolicy"},
	{"explain", "storageclasses", "--recursive"},
	{"explain", "quota.spec.scopeSelector"},
	{"explain", "limitranges", "--recursive"},
}

type explainOutputs struct {
	Comment string            `json:"comment"`
	Outputs map[string]string `json:"outputs"` // by the command's arguments joined with spaces
}

// TestRecordKubeExplain records kubectl explain's output against a
// kube-apiserver: KUBEPLAY_REFAPI_KUBECONFIG names its kubeconfig (the refapi
// kit writes one in its work directory).
func TestRecordKubeExplain(t *testing.T) {
	kubeconfig := os.Getenv("KUBEPLAY_REFAPI_KUBECONFIG")
	if kubeconfig == "" {
		t.Skip("set KUBEPLAY_REFAPI_KUBECONFIG to a kube-apiserver's kubeconfig to record kubectl explain")
	}
	bin := kcBinary(t)
	var version struct {
		ClientVersion struct{ GitVersion string } `json:"clientVersion"`
	}
	if out, err := exec.Command(bin, "version", "--client", "-o", "json").Output(); err != nil || json.Unmarshal(out, &version) != nil {
		t.Fatalf("kubectl version: %v", err)
	}
	rec := explainOutputs{
		Comment: "kubectl explain's output against kube-apiserver v1.32.13 (the refapi kit, --feature-gates=CBORServingAndStorage=true), recorded on " +
			time.Now().UTC().Format("2006-01-02") + " by TestRecordKubeExplain (e2e/kubectl_schema_test.go) with kubectl " + version.ClientVersion.GitVersion + ".",
		Outputs: map[string]string{},
	}
	for _, args := range explainCommands {
		cmd := exec.Command(bin, append([]string{"--kubeconfig=" + kubeconfig, "--cache-dir=" + t.TempDir()}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
		}
		rec.Outputs[strings.Join(args, " ")] = string(out)
	}
	data, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(explainFile, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestK8S_URI_2_KubectlExplain: kubectl explain prints, from kubeplay's
// OpenAPI documents (v3, and v2 as protobuf for plaintext-openapiv2), exactly
// what it prints against kube-apiserver: descriptions, types, enums, required
// fields, the recursive tree.
func TestK8S_URI_2_KubectlExplain(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	data, err := os.ReadFile(explainFile)
	if err != nil {
		t.Fatal(err)
	}
	var rec explainOutputs
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	for _, args := range explainCommands {
		want, ok := rec.Outputs[strings.Join(args, " ")]
		if !ok {
			t.Fatalf("kubectl %s: not recorded (run TestRecordKubeExplain)", strings.Join(args, " "))
		}
		if got := k.must(args...); got != want {
			t.Errorf("kubectl %s printed\n%s\nkube-apiserver's:\n%s", strings.Join(args, " "), got, want)
		}
	}
	// explain reads the v3 documents by their hash URLs, and v2 as protobuf.
	var v3, v2 bool
	for _, r := range k.rec.since(0) {
		v3 = v3 || strings.HasPrefix(r.Path, "/openapi/v3/api") && r.Query.Get("hash") != ""
		v2 = v2 || r.Path == "/openapi/v2" && strings.Contains(r.Accept, "protobuf")
	}
	if !v3 || !v2 {
		t.Errorf("kubectl read v3 by hash: %v, v2 as protobuf: %v", v3, v2)
	}
}

// kcUnknownFields is a ConfigMap with two fields a ConfigMap does not have.
const kcUnknownFields = `apiVersion: v1
kind: ConfigMap
metadata:
  name: unk
  foo: bar
data:
  a: b
bogus: 1
`

// TestK8S_WRITE_4_KubectlFieldValidation: kubectl validates on the server
// (kubeplay's documents advertise fieldValidation), strictly by default, and
// prints kube's error or warnings (what it prints against kube-apiserver 1.32.13).
func TestK8S_WRITE_4_KubectlFieldValidation(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	file := k.file("unknown.yaml", kcUnknownFields)
	strictErr := `Error from server (BadRequest): error when creating "` + file + `": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus", unknown field "metadata.foo"` + "\n"
	warnings := "Warning: unknown field \"bogus\"\nWarning: unknown field \"metadata.foo\"\n"
	for _, args := range [][]string{
		{"create", "-f", file},
		{"create", "--validate=strict", "-f", file},
		{"apply", "-f", file},
	} {
		n := k.rec.len()
		if errOut := k.fails(args...); errOut != strictErr {
			t.Errorf("kubectl %s: stderr\n%s\nwant\n%s", strings.Join(args, " "), errOut, strictErr)
		}
		if q := lastWrite(k.rec.since(n)); q.Get("fieldValidation") != "Strict" {
			t.Errorf("kubectl %s sent %v", strings.Join(args, " "), q)
		}
	}
	for _, c := range []struct {
		args       []string
		out, warns string
		validation string
	}{
		{[]string{"create", "--validate=warn", "--dry-run=server", "-f", file}, "configmap/unk created (server dry run)\n", warnings, "Warn"},
		{[]string{"apply", "--validate=warn", "-f", file}, "configmap/unk created\n", warnings, "Warn"},
		{[]string{"replace", "--validate=warn", "-f", file}, "configmap/unk replaced\n", warnings, "Warn"},
		{[]string{"replace", "--validate=false", "-f", file}, "configmap/unk replaced\n", "", "Ignore"},
	} {
		n := k.rec.len()
		out, errOut, err := k.run("", c.args...)
		if err != nil || out != c.out || errOut != c.warns {
			t.Errorf("kubectl %s: %v\nstdout %q, want %q\nstderr %q, want %q", strings.Join(c.args, " "), err, out, c.out, errOut, c.warns)
		}
		if q := lastWrite(k.rec.since(n)); q.Get("fieldValidation") != c.validation {
			t.Errorf("kubectl %s sent %v", strings.Join(c.args, " "), q)
		}
	}
	// apply to an object that exists sends a strategic merge patch: Strict is
	// kube's 422 showing the patch, Warn its warnings. (replace dropped the
	// annotation apply keeps, so kubectl says it adds it back, as against kube.)
	missing := "Warning: resource configmaps/unk is missing the kubectl.kubernetes.io/last-applied-configuration annotation which is required by kubectl apply. " +
		"kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.\n"
	changed := k.file("changed.yaml", strings.Replace(kcUnknownFields, "a: b", "a: c", 1))
	errOut := k.fails("apply", "-f", changed)
	if want := missing + `The request is invalid: patch: Invalid value: "map[bogus:1 data:map[a:c] metadata:map[annotations:map[kubectl.kubernetes.io/last-applied-configuration:`; !strings.HasPrefix(errOut, want) ||
		!strings.HasSuffix(errOut, `]]": strict decoding error: unknown field "bogus", unknown field "metadata.foo"`+"\n") {
		t.Errorf("apply of a change with unknown fields: stderr\n%s", errOut)
	}
	if out, errOut, err := k.run("", "apply", "--validate=warn", "-f", changed); err != nil || out != "configmap/unk configured\n" || errOut != missing+warnings {
		t.Errorf("apply --validate=warn of a change: %v\nstdout %q\nstderr %q", err, out, errOut)
	}
	// Only the fields the type has were stored.
	if cm := k.getJSON("cm", "unk"); kcDigStr(cm, "data", "a") != "c" || kcDigStr(cm, "bogus") != "" || kcDigStr(cm, "metadata", "foo") != "" {
		t.Errorf("stored %v", cm)
	}
}

// lastWrite is the query of the last write among reqs.
func lastWrite(reqs []kcRequest) url.Values {
	for _, r := range slices.Backward(reqs) {
		if r.Method == "POST" || r.Method == "PUT" || r.Method == "PATCH" {
			return r.Query
		}
	}
	return nil
}
