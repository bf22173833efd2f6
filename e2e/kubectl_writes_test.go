package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kubeplay/internal/jsontest"
)

// TestK8S_WRITE_2_KubectlWrites: the writes kubectl makes with patches, each
// succeeding, leave the Deployment as kube-apiserver 1.32.13 left it after the
// same sequence (recorded, testdata/kubectl-writes-kube-1.32.13.json):
// client-side apply three times with edits (strategic merge patches computed
// from the last-applied annotation), patch --type=json|merge|strategic, scale
// (the scale subresource), set image, edit (EDITOR a sed script), and then
// diff -f shows the change a fourth manifest would make (a dry-run patch)
// without making it.
func TestK8S_WRITE_2_KubectlWrites(t *testing.T) {
	k := newKubectl(t)
	dir := filepath.Join("testdata", "kubectl-writes")
	manifest := func(name string) string {
		abs, err := filepath.Abs(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	steps := [][]string{
		{"apply", "-f", manifest("v1.yaml")},
		{"apply", "-f", manifest("v2.yaml")},
		{"apply", "-f", manifest("v3.yaml")},
		{"patch", "deployment", "web", "--type=json", "-p", `[{"op":"add","path":"/metadata/labels/tier","value":"fe"}]`},
		{"patch", "deployment", "web", "--type=merge", "-p", `{"metadata":{"annotations":{"note":"merged"}}}`},
		{"patch", "deployment", "web", "--type=strategic", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"C","value":"3"}]}]}}}}`},
		{"scale", "deploy", "web", "--replicas=5"},
		{"set", "image", "deployment/web", "web=nginx:1.27"},
	}
	wantOut := []string{"created", "configured", "configured", "patched", "patched", "patched", "scaled", "image updated"}
	for i, args := range steps {
		if out := k.must(args...); !strings.Contains(out, "deployment.apps/web "+wantOut[i]) {
			t.Fatalf("kubectl %s: %q", strings.Join(args, " "), out)
		}
	}

	// kubectl edit runs $EDITOR on a file holding the object, then patches.
	ctx, cancel := context.WithTimeout(context.Background(), kcTimeout)
	defer cancel()
	edit := k.command(ctx, "edit", "deployment", "web")
	edit.Env = append(edit.Env, "EDITOR=sed -i s/nginx:1.27/nginx:1.28/")
	if out, err := edit.CombinedOutput(); err != nil || !strings.Contains(string(out), "deployment.apps/web edited") {
		t.Fatalf("kubectl edit: %v: %s", err, out)
	}

	var recorded struct {
		Object map[string]any
		Diff   []string
	}
	data, err := os.ReadFile("testdata/kubectl-writes-kube-1.32.13.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &recorded); err != nil {
		t.Fatal(err)
	}
	got := k.getJSON("deployment", "web")
	meta := got["metadata"].(map[string]any)
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields"} {
		delete(meta, f)
	}
	delete(got, "status")
	jsontest.DropEmpty(got, false)
	if !reflect.DeepEqual(got, recorded.Object) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(recorded.Object, "", " ")
		t.Fatalf("after the sequence\n got %s\nwant %s", g, w)
	}

	// diff exits 1 when the manifest would change the object, and shows how.
	rev := k.must("get", "deployment", "web", "-o", "jsonpath={.metadata.resourceVersion}")
	out, errOut, err := k.run("", "diff", "-f", manifest("v4.yaml"))
	if err == nil || !strings.Contains(out, "+++ ") {
		t.Fatalf("kubectl diff: %v\n%s\n%s", err, out, errOut)
	}
	var changed []string
	for _, line := range strings.Split(out, "\n") {
		if (strings.HasPrefix(line, "-") || strings.HasPrefix(line, "+")) && !strings.HasPrefix(line, "---") && !strings.HasPrefix(line, "+++") {
			changed = append(changed, line)
		}
	}
	if !reflect.DeepEqual(changed, recorded.Diff) {
		t.Fatalf("diff shows %q, kube showed %q", changed, recorded.Diff)
	}
	if after := k.must("get", "deployment", "web", "-o", "jsonpath={.metadata.resourceVersion}"); after != rev {
		t.Fatalf("kubectl diff changed the object: resourceVersion %s → %s", rev, after)
	}
}
