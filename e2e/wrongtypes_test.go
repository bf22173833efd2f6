package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"kubeplay/core/apiserver"
)

// wtPost sends a JSON body and returns the answer's code and Status message.
func wtPost(t *testing.T, method, url, contentType, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var st struct{ Kind, Message string }
	_ = json.Unmarshal(data, &st)
	return resp.StatusCode, st.Message
}

// TestK8S_WRITE_5_WrongTypeAttackRepelled is issue 12's finding 2, replayed:
// a ConfigMap whose data holds a number, Deployments whose replicas are "abc",
// 1.5, true or 1e400, and an unknown field holding 1e999999999. kube-apiserver
// 1.32.13 refuses the wrong types with these messages and drops the unknown
// field; before, each was stored and broke every protobuf client of ConfigMaps
// (a LIST answered 500, a watch sent an ERROR event, kubectl describe failed)
// and kubectl get -o json for the whole namespace. Here the same clients keep
// working: client-go in protobuf lists and watches, kubectl describes and gets.
func TestK8S_WRITE_5_WrongTypeAttackRepelled(t *testing.T) {
	hs, _ := startServer(t, apiserver.Config{})
	k := &kcEnv{t: t, bin: kcBinary(t), kubeconfig: writeKubeconfig(t, hs.URL), home: t.TempDir(), rec: &kcRecorder{}}
	const pb = "application/vnd.kubernetes.protobuf"
	cs := encodingClientset(t, hs.URL, pb, pb)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := cs.CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	cms := hs.URL + "/api/v1/namespaces/default/configmaps"
	deployments := hs.URL + "/apis/apps/v1/namespaces/default/deployments"
	deployment := func(replicas string) string {
		return `{"metadata":{"name":"web"},"spec":{"replicas":` + replicas + `,"selector":{"matchLabels":{"app":"web"}},` +
			`"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`
	}
	for _, c := range []struct{ url, body, message string }{
		{cms, `{"metadata":{"name":"bad"},"data":{"a":1}}`,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string`},
		{deployments, deployment(`"abc"`),
			`Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`},
		{deployments, deployment(`1.5`),
			`Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32`},
		{deployments, deployment(`true`),
			`Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal bool into Go struct field DeploymentSpec.spec.replicas of type int32`},
		{deployments, deployment(`1e400`),
			`Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 1e400 into Go struct field DeploymentSpec.spec.replicas of type int32`},
	} {
		if code, msg := wtPost(t, "POST", c.url, "application/json", c.body); code != 400 || msg != c.message {
			t.Errorf("POST %s: %d %q\nwant 400 %q", c.body, code, msg, c.message)
		}
	}
	if code, msg := wtPost(t, "POST", cms, "application/json", `{"metadata":{"name":"huge"},"data":{"k":"v"},"x":1e999999999}`); code != 201 {
		t.Fatalf("unknown field: %d %s", code, msg)
	}
	if code, msg := wtPost(t, "POST", cms, "application/json", `{"metadata":{"name":"good"},"data":{"k":"v"}}`); code != 201 {
		t.Fatalf("good: %d %s", code, msg)
	}
	// The patched object is decoded too: kube answers an invalid patch.
	if code, msg := wtPost(t, "PATCH", cms+"/good", "application/merge-patch+json", `{"data":{"a":1}}`); code != 422 ||
		!strings.HasSuffix(msg, `": json: cannot unmarshal number into Go struct field ConfigMap.data of type string`) {
		t.Errorf("PATCH: %d %q", code, msg)
	}
	if out := k.fails("create", "-f", k.file("bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: {a: 1}\n")); !strings.Contains(out,
		`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string`) {
		t.Errorf("kubectl create: %s", out)
	}

	list, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("protobuf LIST of all ConfigMaps: %v", err)
	}
	names := map[string]bool{}
	for _, cm := range list.Items {
		names[cm.Name] = true
	}
	if !names["huge"] || !names["good"] || names["bad"] {
		t.Fatalf("protobuf LIST holds %v", names)
	}
	if _, err := cs.AppsV1().Deployments("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("protobuf LIST of Deployments: %v", err)
	}
	for seen := map[string]bool{}; !seen["huge"] || !seen["good"]; {
		select {
		case ev := <-w.ResultChan():
			if ev.Type == watch.Error {
				t.Fatalf("protobuf watch sent an ERROR: %v", ev.Object)
			}
			if ev.Type == watch.Added {
				seen[objectName(ev.Object)] = true
			}
		case <-ctx.Done():
			t.Fatal("the protobuf watch did not see the objects created")
		}
	}
	if out := k.must("describe", "cm"); !strings.Contains(out, "Name:         huge") || !strings.Contains(out, "Name:         good") {
		t.Errorf("kubectl describe cm:\n%s", out)
	}
	got := k.getJSON("cm")
	if items, _ := got["items"].([]any); len(items) != 2 {
		t.Errorf("kubectl get cm -o json: %v", got)
	}
	if strings.Contains(k.must("get", "cm", "huge", "-o", "json"), `"x"`) {
		t.Error("the unknown field was stored")
	}
}

// objectName is an event object's name.
func objectName(obj any) string {
	if o, ok := obj.(metav1.Object); ok {
		return o.GetName()
	}
	return ""
}
