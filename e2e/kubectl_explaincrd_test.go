package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// kubectl explain of custom resources, from the schemas kubeplay publishes for
// a definition's versions, against what it prints against kube-apiserver.

const explainCRDFile = "testdata/explain-crd-kube-1.32.13.json"

// explainCRDsYAML are two definitions as upstream's CustomResourcePublishOpenAPI
// conformance tests write them: a schema of objects, arrays and primitives, and
// one preserving unknown fields at its root.
const explainCRDsYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.explain.example.com
spec:
  group: explain.example.com
  scope: Namespaced
  names: {plural: foos, singular: foo, kind: Foo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: Foo CRD for Testing
        type: object
        properties:
          spec:
            type: object
            description: Specification of Foo
            properties:
              bars:
                description: List of Bars and their specs.
                type: array
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {description: Name of Bar., type: string}
                    age: {description: Age of Bar., type: string}
                    feeling: {description: Whether Bar is feeling great., type: string, enum: [Great, Down]}
                    bazs: {description: List of Bazs., type: array, items: {type: string}}
          status:
            description: Status of Foo
            type: object
            properties:
              bars:
                description: List of Bars and their statuses.
                type: array
                items:
                  type: object
                  properties:
                    name: {description: Name of Bar., type: string}
                    available: {description: Whether the Bar is installed., type: boolean}
                    quxType: {description: Indicates to external qux type., pattern: in-tree|out-of-tree, type: string}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: waldos.explain.example.com
spec:
  group: explain.example.com
  scope: Namespaced
  names: {plural: waldos, singular: waldo, kind: Waldo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: preserve-unknown-properties at root for Testing
        x-kubernetes-preserve-unknown-fields: true
        type: object
        properties:
          spec:
            description: Specification of Waldo
            type: object
            properties:
              dummy: {description: Dummy property., type: object}
`

// explainCRDCommands are the kubectl explain invocations recorded from kube;
// the last fails.
var explainCRDCommands = [][]string{
	{"explain", "foos"},
	{"explain", "foos.metadata"},
	{"explain", "foos.spec"},
	{"explain", "foos.spec.bars"},
	{"explain", "foos", "--recursive"},
	{"explain", "waldos"},
	{"explain", "waldos.spec"},
	{"explain", "foos.spec.bars", "--output=plaintext-openapiv2"},
	{"explain", "foos", "--recursive", "--output=plaintext-openapiv2"},
	{"explain", "waldos", "--output=plaintext-openapiv2"},
	{"explain", "foos.spec.bars2"},
}

// explainCRDRun runs each of explainCRDCommands with run, its output the
// standard output, or the error output of the one that fails.
func explainCRDRun(t *testing.T, run func(args ...string) (string, string, error)) map[string]string {
	out := map[string]string{}
	for i, args := range explainCRDCommands {
		stdout, stderr, err := run(args...)
		if fails := i == len(explainCRDCommands)-1; fails != (err != nil) {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, stderr)
		}
		if err != nil {
			stdout = stderr
		}
		out[strings.Join(args, " ")] = stdout
	}
	return out
}

// TestRecordKubeExplainCRD records kubectl explain of custom resources against
// a fresh kube-apiserver whose kubeconfig KUBEPLAY_REFAPI_KUBECONFIG names.
func TestRecordKubeExplainCRD(t *testing.T) {
	kubeconfig := os.Getenv("KUBEPLAY_REFAPI_KUBECONFIG")
	if kubeconfig == "" {
		t.Skip("set KUBEPLAY_REFAPI_KUBECONFIG to a kube-apiserver's kubeconfig to record kubectl explain")
	}
	bin := kcBinary(t)
	kubectl := func(args ...string) (string, string, error) {
		cmd := exec.Command(bin, append([]string{"--kubeconfig=" + kubeconfig, "--cache-dir=" + t.TempDir()}, args...)...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	file := t.TempDir() + "/crds.yaml"
	if err := os.WriteFile(file, []byte(explainCRDsYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := kubectl("apply", "-f", file); err != nil {
		t.Fatal(stderr)
	}
	// kube publishes a definition's schema a moment after it is established.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if out, _, err := kubectl("explain", "waldos"); err == nil && strings.Contains(out, "preserve-unknown-properties") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the definitions were never published")
		}
	}
	rec := explainOutputs{
		Comment: "kubectl explain's output of explainCRDsYAML's custom resources against kube-apiserver v1.32.13 (the refapi kit), recorded on " +
			time.Now().UTC().Format("2006-01-02") + " by TestRecordKubeExplainCRD (e2e/kubectl_explaincrd_test.go); the last command's error output.",
		Outputs: explainCRDRun(t, kubectl),
	}
	data, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(explainCRDFile, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestK8S_URI_4_KubectlExplainCR: kubectl explain of custom resources prints
// against kubeplay what it prints against kube-apiserver: the schema's
// descriptions, types and enums, ObjectMeta's fields under metadata, a root
// preserving unknown fields, and the error for a field the schema lacks;
// from /openapi/v3, and from /openapi/v2 as protobuf (plaintext-openapiv2).
func TestK8S_URI_4_KubectlExplainCR(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	k.must("apply", "-f", k.file("crds.yaml", explainCRDsYAML))
	k.must("wait", "--for=condition=established", "--timeout=20s", "crd/foos.explain.example.com", "crd/waldos.explain.example.com")
	data, err := os.ReadFile(explainCRDFile)
	if err != nil {
		t.Fatal(err)
	}
	var rec explainOutputs
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	// A cache of its own: the one apply filled holds the OpenAPI index from
	// before the definitions, which kubectl may revalidate within the second.
	cache := "--cache-dir=" + t.TempDir()
	got := explainCRDRun(t, func(args ...string) (string, string, error) {
		return k.run("", append([]string{cache}, args...)...)
	})
	for _, args := range explainCRDCommands {
		key := strings.Join(args, " ")
		if got[key] != rec.Outputs[key] {
			t.Errorf("kubectl %s printed\n%s\nkube-apiserver's:\n%s", key, got[key], rec.Outputs[key])
		}
	}
}
