package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"kubeplay/core/apiserver"
	"kubeplay/core/clock"
)

// eventually retries kubectl's view until cond holds: the garbage collector
// and the CustomResourceDefinition controller work asynchronously.
func (k *kcEnv) eventually(what string, cond func() bool) {
	k.t.Helper()
	deadline := time.Now().Add(kcTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			k.t.Fatalf("never: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// exists says whether kubectl get finds the object.
func (k *kcEnv) exists(args ...string) bool {
	k.t.Helper()
	_, errOut, err := k.run("", append([]string{"get"}, args...)...)
	if err != nil && !strings.Contains(errOut, "NotFound") {
		k.t.Fatalf("kubectl get %v: %s", args, errOut)
	}
	return err == nil
}

// TestK8S_DEL_1_KubectlFinalizer: kubectl delete of an object a finalizer
// holds returns (without waiting) and the object shows its
// deletionTimestamp; a patch removing the finalizer completes the deletion.
func TestK8S_DEL_1_KubectlFinalizer(t *testing.T) {
	k := newKubectl(t)
	k.must("apply", "-f", k.file("held.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers: [example.com/hold]\ndata:\n  k: v\n"))
	if out := k.must("delete", "configmap", "held", "--wait=false"); !strings.Contains(out, `configmap "held" deleted`) {
		t.Fatalf("delete: %q", out)
	}
	if cm := k.getJSON("configmap", "held"); kcDigStr(cm, "metadata", "deletionTimestamp") == "" {
		t.Fatalf("no deletionTimestamp: %v", cm)
	}
	k.must("patch", "configmap", "held", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	if k.exists("configmap", "held") {
		t.Fatal("the configmap outlived its last finalizer")
	}
}

// kcOwnedChain creates, with kubectl, a Deployment that owns a ReplicaSet that
// owns two Pods (references blocking their owners' deletion, as the
// controllers make them).
func kcOwnedChain(t *testing.T, k *kcEnv) {
	labels := map[string]any{"app": "web"}
	podSpec := map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}
	spec := map[string]any{"selector": map[string]any{"matchLabels": labels}, "template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": podSpec}}
	create := func(obj map[string]any) map[string]any {
		b, _ := json.Marshal(obj)
		out := k.must("create", "-o", "json", "-f", k.file("obj.json", string(b)))
		var created map[string]any
		if err := json.Unmarshal([]byte(out), &created); err != nil {
			t.Fatal(err)
		}
		return created
	}
	owner := func(o map[string]any) []any {
		return []any{map[string]any{"apiVersion": o["apiVersion"], "kind": o["kind"], "name": kcDigStr(o, "metadata", "name"),
			"uid": kcDigStr(o, "metadata", "uid"), "controller": true, "blockOwnerDeletion": true}}
	}
	d := create(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"}, "spec": spec})
	rs := create(map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": map[string]any{"name": "web-1", "labels": labels, "ownerReferences": owner(d)}, "spec": spec})
	for _, p := range []string{"web-1-a", "web-1-b"} {
		create(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": p, "labels": labels, "ownerReferences": owner(rs)}, "spec": podSpec})
	}
}

// TestK8S_DEL_2_KubectlCascade: kubectl delete --cascade=foreground|orphan|background
// of a Deployment owning a ReplicaSet owning Pods leaves what kube leaves:
// nothing once foreground returns; the ReplicaSet and Pods, the ReplicaSet
// unowned, with orphan; nothing soon after background returns.
func TestK8S_DEL_2_KubectlCascade(t *testing.T) {
	k := newKubectl(t)
	chainGone := func() bool {
		return !k.exists("replicaset", "web-1") && !k.exists("pod", "web-1-a") && !k.exists("pod", "web-1-b")
	}

	kcOwnedChain(t, k)
	k.must("delete", "deployment", "web", "--cascade=foreground")
	if k.exists("deployment", "web") || !chainGone() {
		t.Fatal("foreground: kubectl returned before the chain was gone")
	}

	kcOwnedChain(t, k)
	k.must("delete", "deployment", "web", "--cascade=orphan")
	if k.exists("deployment", "web") {
		t.Fatal("orphan: the deployment is still there")
	}
	if rs := k.getJSON("replicaset", "web-1"); kcDigStr(rs, "metadata", "ownerReferences") != "" || !k.exists("pod", "web-1-a") {
		t.Fatalf("orphan: %v", rs)
	}
	k.must("delete", "replicaset", "web-1", "--cascade=orphan")
	k.must("delete", "pods", "--all")

	kcOwnedChain(t, k)
	k.must("delete", "deployment", "web", "--cascade=background")
	k.eventually("background: the chain gone", chainGone)
}

// widgetCRDYAML is the test definition, as a user writes it.
const widgetCRDYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        description: A Widget is a thing with a size.
        properties:
          spec:
            type: object
            description: What the widget should be.
            properties:
              size: {type: integer, minimum: 1, default: 3, description: How big the widget is.}
              replicas: {type: integer}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
`

// TestK8S_URI_4_KubectlCRD: kubectl applies a definition, waits for it, then
// applies, gets (its printer column shown), explains, applies server-side,
// scales and deletes its custom objects.
func TestK8S_URI_4_KubectlCRD(t *testing.T) {
	k := newKubectl(t)
	k.must("apply", "-f", k.file("crd.yaml", widgetCRDYAML))
	k.must("wait", "--for=condition=established", "--timeout=20s", "crd/widgets.example.com")
	k.must("apply", "-f", k.file("w1.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: 5\n  replicas: 1\n"))
	out := k.must("get", "widgets")
	if lines := kcLines(out); len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME SIZE" || strings.Join(strings.Fields(lines[1]), " ") != "w1 5" {
		t.Fatalf("kubectl get widgets:\n%s", out)
	}
	// kubectl keeps the /openapi/v3 index in its HTTP cache and revalidates
	// it with If-Modified-Since, which kube (and kubeplay) answer 304 within
	// the second it was fetched in: the index kubectl read before the
	// definition existed would do. A person types slower.
	time.Sleep(1100 * time.Millisecond)
	if out := k.must("explain", "widget.spec"); !strings.Contains(out, "What the widget should be.") || !strings.Contains(out, "How big the widget is.") {
		t.Fatalf("kubectl explain:\n%s", out)
	}
	for _, port := range []string{"http", "https"} {
		k.must("apply", "--server-side", "--field-manager="+port, "-f", k.file("w2.yaml",
			"apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  ports:\n  - name: "+port+"\n    port: 80\n"))
	}
	w2 := k.getJSON("widget", "w2")
	if ports, _ := json.Marshal(w2["spec"].(map[string]any)["ports"]); string(ports) != `[{"name":"http","port":80},{"name":"https","port":80}]` {
		t.Fatalf("server-side applied ports: %s", ports)
	}
	if out := k.must("scale", "widget", "w1", "--replicas=3"); !strings.Contains(out, "widget.example.com/w1 scaled") {
		t.Fatalf("kubectl scale: %q", out)
	}
	if got := k.getJSON("wd", "w1")["spec"].(map[string]any)["replicas"]; got != float64(3) {
		t.Fatalf("replicas after scale: %v", got)
	}
	k.must("delete", "widget", "w1", "w2")
	if k.exists("widget", "w1") {
		t.Fatal("w1 is still there")
	}
	k.must("delete", "crd", "widgets.example.com")
	if k.exists("crd", "widgets.example.com") {
		t.Fatal("the definition is still there")
	}
}

// TestK8S_URI_3_KubectlLogs: kubectl logs prints a Pod's generated lines;
// logs -f streams the next ones as the sandbox clock moves.
func TestK8S_URI_3_KubectlLogs(t *testing.T) {
	bin := kcBinary(t)
	clk := clock.NewFake(time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC))
	hs, _ := startServer(t, apiserver.Config{Clock: clk})
	k := &kcEnv{t: t, bin: bin, kubeconfig: writeKubeconfig(t, hs.URL), home: t.TempDir(), rec: &kcRecorder{}}
	k.must("apply", "-f", k.file("objs.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-1\n---\n"+
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  nodeName: node-1\n  containers:\n  - name: c\n    image: nginx\n"))
	clk.Step(7 * time.Second)
	if out := k.must("logs", "web"); out != "2026/11/23 10:00:00 c[1]: started, listening on :8080\n2026/11/23 10:00:05 c[1]: GET /healthz 200 (default/web, request 2)\n" {
		t.Fatalf("kubectl logs: %q", out)
	}
	lines := k.start("logs", "-f", "--tail=1", "web").lines
	for _, want := range []string{"request 2)", "request 3)", "request 4)"} {
		if line := <-lines; !strings.HasSuffix(line, want) {
			t.Fatalf("kubectl logs -f: %q, want …%s", line, want)
		}
		clk.Step(5 * time.Second)
	}
}
