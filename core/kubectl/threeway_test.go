package kubectl

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http/httptest"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"kubeplay/core/auth"
	"kubeplay/core/sandbox"
)

// openAPIDoc is a group version's OpenAPI v3 document as a sandbox serves
// it, which kubectl reads its patch strategies from.
func openAPIDoc(t *testing.T, gv string) map[string]any {
	t.Helper()
	admin := auth.Admin()
	sb, err := sandbox.New(sandbox.Config{APIOnly: true, Tokenless: &admin})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	rec := httptest.NewRecorder()
	sb.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi/v3/"+gv, nil))
	data, _ := io.ReadAll(rec.Body)
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v: %.200s", gv, err, data)
	}
	return doc
}

// deploymentVariant is a Deployment made of parts the seed chooses: the
// lists with each patch strategy (containers and ports and env by merge
// key, volumes with retainKeys, finalizers as merged scalars, args
// replaced), maps, and fields that come and go.
func deploymentVariant(r *rand.Rand) map[string]any {
	pick := func(n int) int { return r.Intn(n) }
	some := func(all []any) []any {
		var out []any
		for _, v := range all {
			if pick(3) > 0 {
				out = append(out, v)
			}
		}
		if pick(4) == 0 {
			r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		}
		return out
	}
	container := func(name string) map[string]any {
		c := map[string]any{"name": name, "image": []string{"nginx:1.25", "nginx:1.27", "busybox"}[pick(3)]}
		if ports := some([]any{
			map[string]any{"containerPort": 80},
			map[string]any{"containerPort": 443, "name": "https"},
			map[string]any{"containerPort": 8080, "protocol": "UDP"},
		}); ports != nil {
			c["ports"] = ports
		}
		if env := some([]any{
			map[string]any{"name": "A", "value": "1"},
			map[string]any{"name": "B", "value": []string{"2", "3"}[pick(2)]},
			map[string]any{"name": "C", "valueFrom": map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.name"}}},
		}); env != nil {
			c["env"] = env
		}
		if pick(2) == 0 {
			c["args"] = some([]any{"-a", "-b", "-c"})
		}
		if pick(3) == 0 {
			c["resources"] = map[string]any{"limits": map[string]any{"cpu": []string{"100m", "1"}[pick(2)]}}
		}
		return c
	}
	var containers []any
	for _, n := range []string{"web", "sidecar", "log"} {
		if pick(2) == 0 || n == "web" {
			containers = append(containers, container(n))
		}
	}
	podSpec := map[string]any{"containers": containers}
	if vols := some([]any{
		map[string]any{"name": "data", []string{"emptyDir", "hostPath"}[pick(2)]: map[string]any{}},
		map[string]any{"name": "cfg", "configMap": map[string]any{"name": "cfg"}},
	}); vols != nil {
		podSpec["volumes"] = vols
	}
	if pick(3) == 0 {
		podSpec["nodeSelector"] = map[string]any{"disk": []string{"ssd", "hdd"}[pick(2)]}
	}
	if pick(3) == 0 {
		podSpec["tolerations"] = some([]any{map[string]any{"key": "a", "operator": "Exists"}, map[string]any{"key": "b", "operator": "Exists"}})
	}
	meta := map[string]any{"name": "web", "labels": map[string]any{"app": "web"}}
	if l := pick(3); l > 0 {
		meta["labels"].(map[string]any)["tier"] = []string{"", "front", "back"}[l]
	}
	if f := some([]any{"a.io/one", "a.io/two"}); f != nil {
		meta["finalizers"] = f
	}
	if pick(2) == 0 {
		meta["annotations"] = map[string]any{"note": []string{"x", "y"}[pick(2)]}
	}
	spec := map[string]any{
		"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
		"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}}, "spec": podSpec},
	}
	if pick(2) == 0 {
		spec["replicas"] = 1 + pick(3)
	}
	switch pick(3) {
	case 1:
		spec["strategy"] = map[string]any{"type": "Recreate"}
	case 2:
		spec["strategy"] = map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": 1}}
	}
	return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": spec}
}

// live is an object as the server holds it: the fields it adds.
func live(obj map[string]any, r *rand.Rand) map[string]any {
	data, _ := json.Marshal(obj)
	var out map[string]any
	json.Unmarshal(data, &out)
	m := out["metadata"].(map[string]any)
	m["uid"], m["resourceVersion"], m["generation"] = "u-1", "12", 2
	spec := out["spec"].(map[string]any)
	if _, ok := spec["replicas"]; !ok {
		spec["replicas"] = 1
	}
	spec["revisionHistoryLimit"] = 10
	for _, c := range spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any) {
		c.(map[string]any)["imagePullPolicy"] = "IfNotPresent"
		c.(map[string]any)["terminationMessagePath"] = "/dev/termination-log"
	}
	if r.Intn(3) == 0 {
		out["status"] = map[string]any{"replicas": 1}
	}
	return out
}

// TestLEARN_1_ApplyThreeWayPatchIsKubes checks kubectl apply's patch
// against apimachinery's CreateThreeWayMergePatch (with the patch metadata
// of k8s.io/api's Go types) over many Deployments: original (last applied),
// modified (the file) and current (live, with the server's fields and
// others' changes), the bytes of the patch identical.
func TestLEARN_1_ApplyThreeWayPatchIsKubes(t *testing.T) {
	doc := openAPIDoc(t, "apis/apps/v1")
	schema, ok := schemaForKind(doc, "apps", "v1", "Deployment")
	if !ok {
		t.Fatalf("no Deployment schema in apps/v1's OpenAPI document: %.300v", doc)
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(&appsv1.Deployment{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	nonEmpty := 0
	for i := 0; i < 3000; i++ {
		original, _ := json.Marshal(deploymentVariant(r))
		modified, _ := json.Marshal(deploymentVariant(r))
		var current []byte
		switch r.Intn(3) {
		case 0: // applied as original, then changed by others
			current, _ = json.Marshal(live(deploymentVariant(r), r))
		default:
			var o map[string]any
			json.Unmarshal(original, &o)
			current, _ = json.Marshal(live(o, r))
		}
		if r.Intn(10) == 0 {
			original = nil // no last-applied annotation
		}
		want, wantErr := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
		got, gotErr := threeWayMergePatch(original, modified, current, schema)
		if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) || string(want) != string(got) {
			t.Fatalf("case %d:\noriginal %s\nmodified %s\ncurrent  %s\nkube:  %s %v\nours:  %s %v", i, original, modified, current, want, wantErr, got, gotErr)
		}
		if string(want) != "{}" {
			nonEmpty++
		}
	}
	if nonEmpty < 1000 {
		t.Errorf("only %d of the cases had a patch", nonEmpty)
	}
}

// TestLEARN_1_ApplyThreeWayPatchPod checks a Pod's lists too (core/v1's
// document): tolerations, imagePullSecrets, volumes and hostAliases.
func TestLEARN_1_ApplyThreeWayPatchPod(t *testing.T) {
	doc := openAPIDoc(t, "api/v1")
	schema, ok := schemaForKind(doc, "", "v1", "Pod")
	if !ok {
		t.Fatal("no Pod schema")
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(&corev1.Pod{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(2))
	pod := func() []byte {
		d := deploymentVariant(r)
		spec := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		if r.Intn(2) == 0 {
			spec["imagePullSecrets"] = []any{map[string]any{"name": []string{"a", "b"}[r.Intn(2)]}}
		}
		if r.Intn(2) == 0 {
			spec["hostAliases"] = []any{map[string]any{"ip": "10.0.0.1", "hostnames": []any{"a", []string{"b", "c"}[r.Intn(2)]}}}
		}
		out, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": d["metadata"], "spec": spec})
		return out
	}
	for i := 0; i < 1000; i++ {
		original, modified, current := pod(), pod(), pod()
		want, wantErr := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
		got, gotErr := threeWayMergePatch(original, modified, current, schema)
		if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) || string(want) != string(got) {
			t.Fatalf("case %d:\noriginal %s\nmodified %s\ncurrent  %s\nkube:  %s %v\nours:  %s %v", i, original, modified, current, want, wantErr, got, gotErr)
		}
	}
}

// TestLEARN_1_ApplyJSONMergePatchIsKubes checks apply's patch for kinds
// with no strategic merge patch (custom resources) against apimachinery's
// CreateThreeWayJSONMergePatch, over random nested objects.
func TestLEARN_1_ApplyJSONMergePatchIsKubes(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var value func(depth int) any
	value = func(depth int) any {
		switch n := r.Intn(6); {
		case n == 0 && depth < 3:
			m := map[string]any{}
			for _, k := range []string{"a", "b", "c", "d"} {
				if r.Intn(2) == 0 {
					m[k] = value(depth + 1)
				}
			}
			return m
		case n == 1:
			return []any{r.Intn(3), "x"}
		case n == 2:
			return nil
		case n == 3:
			return r.Intn(3)
		}
		return []string{"p", "q"}[r.Intn(2)]
	}
	doc := func() []byte {
		spec := map[string]any{}
		for _, k := range []string{"a", "b", "c", "d", "e"} {
			if r.Intn(3) > 0 {
				spec[k] = value(0)
			}
		}
		out, _ := json.Marshal(map[string]any{"apiVersion": "x.io/v1", "kind": "Thing", "metadata": map[string]any{"name": "t"}, "spec": spec})
		return out
	}
	for i := 0; i < 3000; i++ {
		original, modified, current := doc(), doc(), doc()
		want, wantErr := jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, current,
			mergepatch.RequireKeyUnchanged("apiVersion"), mergepatch.RequireKeyUnchanged("kind"), mergepatch.RequireMetadataKeyUnchanged("name"))
		got, gotErr := threeWayJSONMergePatch(original, modified, current)
		if (wantErr == nil) != (gotErr == nil) || string(want) != string(got) {
			t.Fatalf("case %d:\noriginal %s\nmodified %s\ncurrent  %s\nkube:  %s %v\nours:  %s %v", i, original, modified, current, want, wantErr, got, gotErr)
		}
	}
}
