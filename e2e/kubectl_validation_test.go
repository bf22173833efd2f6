package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// kcValidationFile holds what kubectl 1.32 printed against kube-apiserver
// 1.32.13 for kcValidationSteps (see its comment).
const kcValidationFile = "testdata/kubectl-validation-kube-1.32.13.json"

// kcValidationStep is one kubectl command on a manifest a learner might
// write; FILE in the recorded output stands for the manifest's path.
type kcValidationStep struct {
	name, verb, manifest string
}

var kcValidationSteps = []kcValidationStep{
	{"pod-without-containers", "create", `apiVersion: v1
kind: Pod
metadata:
  name: empty
spec: {}
`},
	{"pod-bad-container", "create", `apiVersion: v1
kind: Pod
metadata:
  name: bad-ports
spec:
  restartPolicy: Sometimes
  containers:
  - name: Web
    image: nginx
    ports:
    - containerPort: 80
      name: http
    - containerPort: 70000
      name: http
  - name: sidecar
`},
	{"deployment-mismatch", "create", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: frontend
    spec:
      containers:
      - name: web
        image: nginx
`},
	{"service-without-ports", "create", `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
`},
	{"deployment-valid", "create", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels:
      app: api
  template:
    metadata:
      labels:
        app: api
    spec:
      containers:
      - name: api
        image: nginx
`},
	{"deployment-selector-changed", "replace", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels:
      app: api
      tier: backend
  template:
    metadata:
      labels:
        app: api
        tier: backend
    spec:
      containers:
      - name: api
        image: nginx
`},
}

// runValidationStep runs one step and returns its output (stderr after
// stdout), the manifest's path written as FILE.
func runValidationStep(k *kcEnv, s kcValidationStep) string {
	path := k.file(s.name+".yaml", s.manifest)
	out, errOut, _ := k.run("", s.verb, "-f", path)
	return strings.ReplaceAll(out+errOut, path, "FILE")
}

// TestRecordKubectlValidation writes kcValidationFile from a real
// kube-apiserver: start the refapi kit on a fresh work directory and run
//
//	KUBEPLAY_REFAPI_KUBECONFIG=/work/refapi/work-defaults/kubeconfig go test -run TestRecordKubectlValidation ./e2e
func TestRecordKubectlValidation(t *testing.T) {
	kubeconfig := os.Getenv("KUBEPLAY_REFAPI_KUBECONFIG")
	if kubeconfig == "" {
		t.Skip("KUBEPLAY_REFAPI_KUBECONFIG is not set: nothing to record")
	}
	k := &kcEnv{t: t, bin: kcBinary(t), kubeconfig: kubeconfig, home: t.TempDir(), rec: &kcRecorder{}}
	outputs := map[string]string{}
	for _, s := range kcValidationSteps {
		outputs[s.name] = runValidationStep(k, s)
	}
	data, err := json.MarshalIndent(map[string]any{
		"comment": "What kubectl 1.32 printed (stdout, then stderr) for each of kcValidationSteps in kubectl_validation_test.go, run in order with -f and the manifest's path (written here as FILE) against kube-apiserver v1.32.13 (the refapi kit, the ServiceAccount admission plugin off); recorded by TestRecordKubectlValidation.",
		"outputs": outputs,
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kcValidationFile, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestK8S_WRITE_5_KubectlValidationAsKube: kubectl create and replace of
// manifests the built-ins' validation refuses (a Pod without containers, bad
// ports and names, a Deployment whose selector does not match its template, a
// Service without ports, a Deployment's selector changed) print what they
// print against kube-apiserver, word for word, and what it accepts is created.
func TestK8S_WRITE_5_KubectlValidationAsKube(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(kcValidationFile)
	if err != nil {
		t.Fatal(err)
	}
	var recorded struct{ Outputs map[string]string }
	if err := json.Unmarshal(data, &recorded); err != nil {
		t.Fatal(err)
	}
	k := newKubectl(t)
	for _, s := range kcValidationSteps {
		want, ok := recorded.Outputs[s.name]
		if !ok {
			t.Fatalf("%s: not recorded", s.name)
		}
		if got := runValidationStep(k, s); got != want {
			t.Errorf("kubectl %s -f %s.yaml printed\n%s\nkube's printed\n%s", s.verb, s.name, got, want)
		}
	}
}
