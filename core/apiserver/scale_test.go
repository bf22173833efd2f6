package apiserver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"

	"kubeplay/core/encoding/protobuf"
)

// TestK8S_URI_3_Scale: the scale subresource of Deployments, ReplicaSets and
// StatefulSets as kube-apiserver 1.32.13 serves it (answers recorded against
// it): discovery lists <plural>/scale as autoscaling/v1 Scale with get, patch
// and update; GET answers the Scale (spec.replicas, status.replicas,
// status.selector as a string) in JSON, YAML and protobuf; PUT writes the
// parent's spec.replicas (bumping its generation), with the resourceVersion
// as a precondition, and refuses another kind.
func TestK8S_URI_3_Scale(t *testing.T) {
	s := newTestServer(t, testConfig{})
	disc := s.do("GET", "/apis/apps/v1", nil).must(t, 200)
	var list struct{ Resources []map[string]any }
	_ = json.Unmarshal(disc.Body, &list)
	found := map[string]bool{}
	for _, r := range list.Resources {
		if name := r["name"].(string); name == "deployments/scale" || name == "replicasets/scale" || name == "statefulsets/scale" {
			// kube: {"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]}
			want := map[string]any{"name": name, "singularName": "", "namespaced": true, "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": []any{"get", "patch", "update"}}
			if !reflect.DeepEqual(r, want) {
				t.Fatalf("discovery %s: %v", name, r)
			}
			found[name] = true
		}
	}
	if len(found) != 3 {
		t.Fatalf("discovery lists %v", found)
	}

	sts := "/apis/apps/v1/namespaces/default/statefulsets"
	s.do("POST", sts, `{"metadata":{"name":"s1"},"spec":{"serviceName":"s","selector":{"matchLabels":{"app":"s"},"matchExpressions":[{"key":"tier","operator":"In","values":["b","a"]}]},"template":{"metadata":{"labels":{"app":"s","tier":"a"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`).must(t, 201)
	got := s.do("GET", sts+"/s1/scale", nil).must(t, 200)
	meta := got.Obj["metadata"].(map[string]any)
	if got.str("kind") != "Scale" || got.str("apiVersion") != "autoscaling/v1" || meta["name"] != "s1" || meta["namespace"] != "default" ||
		meta["uid"] == nil || meta["resourceVersion"] == nil || meta["creationTimestamp"] == nil {
		t.Fatalf("scale: %s", got.Body)
	}
	if spec, status := jsonOf(got.Obj["spec"]), jsonOf(got.Obj["status"]); spec != `{"replicas":1}` || status != `{"replicas":0,"selector":"app=s,tier in (a,b)"}` {
		t.Fatalf("scale spec %s status %s", spec, status)
	}
	// kube's YAML: apiVersion, kind, metadata, spec, status; selector a string.
	y := s.do("GET", sts+"/s1/scale", nil, "Accept", "application/yaml").must(t, 200)
	if !bytes.HasPrefix(y.Body, []byte("apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n")) || !bytes.Contains(y.Body, []byte("status:\n  replicas: 0\n  selector: app=s,tier in (a,b)\n")) {
		t.Fatalf("yaml: %s", y.Body)
	}
	pb := s.do("GET", sts+"/s1/scale", nil, "Accept", "application/vnd.kubernetes.protobuf").must(t, 200)
	apiVersion, kind, raw, err := protobuf.ParseEnvelope(pb.Body)
	if err != nil || apiVersion != "autoscaling/v1" || kind != "Scale" {
		t.Fatalf("protobuf envelope %s %s: %v", apiVersion, kind, err)
	}
	var scale autoscalingv1.Scale
	if err := scale.Unmarshal(raw); err != nil {
		t.Fatal(err)
	}
	if scale.Name != "s1" || scale.Spec.Replicas != 1 || scale.Status.Selector != "app=s,tier in (a,b)" {
		t.Fatalf("protobuf scale: %+v", scale)
	}

	deploy := "/apis/apps/v1/namespaces/default/deployments"
	s.do("POST", deploy, `{"metadata":{"name":"d0"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`).must(t, 201)
	put := s.do("PUT", deploy+"/d0/scale", `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"d0"},"spec":{"replicas":7}}`).must(t, 200)
	if put.str("kind") != "Scale" || jsonOf(put.Obj["spec"]) != `{"replicas":7}` {
		t.Fatalf("put scale: %s", put.Body)
	}
	d := s.do("GET", deploy+"/d0", nil).must(t, 200)
	if jsonOf(d.Obj["spec"].(map[string]any)["replicas"]) != "7" || jsonOf(d.Obj["metadata"].(map[string]any)["generation"]) != "2" {
		t.Fatalf("deployment after scale: %s", d.Body)
	}
	s.do("PUT", deploy+"/d0/scale", `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d0"},"spec":{"replicas":7}}`).wantStatus(t, 400, "BadRequest", "")
	s.do("PUT", deploy+"/d0/scale", `{"metadata":{"name":"d0","resourceVersion":"3"},"spec":{"replicas":7}}`).wantStatus(t, 409, "Conflict",
		`Operation cannot be fulfilled on deployments.apps "d0": the object has been modified; please apply your changes to the latest version and try again`)
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
