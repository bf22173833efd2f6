package defaults

import (
	"bytes"
	"testing"

	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/object"
	"kubeplay/core/types"
)

// TestImageTag: the tag an image's pull policy is chosen by. The answers are
// github.com/distribution/reference v0.6.0's (ParseNormalizedNamed, as kube's
// parsers.ParseImageName reads it, with sha512 available as in
// kube-apiserver); imageTag was also fuzzed against that library outside this
// module, which does not depend on it.
func TestImageTag(t *testing.T) {
	for _, c := range []struct{ image, tag string }{
		{"nginx", "latest"},
		{"nginx:latest", "latest"},
		{"nginx:1.27", "1.27"},
		{"Nginx", ""},
		{"a/b:c:d", ""},
		{"nginx:", ""},
		{"registry:5000", "5000"},
		{"localhost:5000/app", "latest"},
		{"localhost/app:v1", "v1"},
		{"registry.example.com:5000/team/app:v2", "v2"},
		{"ghcr.io/x/y:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "latest"},
		{"nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", ""},
		{"nginx@sha256:0123", ""},
		{"nginx@md5:0123456789abcdef0123456789abcdef", ""},
		{"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", ""},
		{"my_host.com/app", "latest"},
		{"My.Host/app", "latest"},
		{"[::1]:5000/app:1", "1"},
		{"index.docker.io/nginx", "latest"},
		{"docker.io/nginx:1", "1"},
		{" nginx", ""},
		{"a__b", "latest"},
		{"a___b", ""},
		{"a--b-c", "latest"},
		{"x/Y", ""},
		{"UPPER/lower:tag", "tag"},
		{"host:port/a", ""},
		{"h:1/a/b/c:t@sha512:" + string(bytes.Repeat([]byte("0"), 128)), "t"},
	} {
		if got := imageTag(c.image); got != c.tag {
			t.Errorf("%q: tag %q, want %q", c.image, got, c.tag)
		}
	}
}

// servedKinds are the built-in kinds kubeplay serves, as the fuzz target picks
// them.
var servedKinds = []struct{ apiVersion, kind string }{
	{"v1", "Pod"}, {"apps/v1", "Deployment"}, {"apps/v1", "ReplicaSet"}, {"v1", "Service"},
	{"v1", "Namespace"}, {"v1", "Secret"}, {"v1", "ConfigMap"}, {"v1", "Endpoints"},
	{"v1", "Node"}, {"v1", "Event"}, {"v1", "ServiceAccount"}, {"coordination.k8s.io/v1", "Lease"},
	{"apps/v1", "StatefulSet"},
}

// FuzzK8S_WRITE_5_DefaultsIdempotent: for every body kube would decode into a
// served kind, defaulting never panics, writes only values the kind's Go type
// holds (the object still encodes as its protobuf message), and defaulting the
// defaulted object changes nothing, as kube's defaulting on every decode of a
// stored object relies on.
func FuzzK8S_WRITE_5_DefaultsIdempotent(f *testing.F) {
	for _, s := range []struct {
		kind int
		body string
	}{
		{0, `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"100u"}},"livenessProbe":{"httpGet":{"port":80}}}],"volumes":[{"name":"v"},{"name":"s","secret":{"secretName":"s"}}]}}`},
		{0, `{"spec":{"hostNetwork":true,"initContainers":[{"name":"i","image":"busybox:1","ports":[{"containerPort":1}]}],"containers":[{"env":[{"name":"a","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],"readinessProbe":{"grpc":{"port":1}}}]}}`},
		{0, `{"spec":{"volumes":[{"name":"p","projected":{"sources":[{"serviceAccountToken":{"path":"t"}}]}},{"name":"e","ephemeral":{"volumeClaimTemplate":{}}},{"name":"r","rbd":{"monitors":["m"],"image":"i"}},{"name":"a","azureDisk":{"diskName":"d","diskURI":"u"}}]}}`},
		{1, `{"spec":{"strategy":{"rollingUpdate":{"maxSurge":1}},"template":{"spec":{"containers":[{"name":"c","image":"x:latest"}]}}}}`},
		{1, `{"spec":{"strategy":{"type":"Recreate"}}}`},
		{2, `{"spec":{"template":{"spec":{}}}}`},
		{3, `{"spec":{"type":"LoadBalancer","sessionAffinity":"ClientIP","ports":[{"port":80},{"port":81,"targetPort":"http"}]},"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}}}`},
		{3, `{"spec":{"type":"ClusterIP","externalIPs":["1.2.3.4"],"ports":[{}]}}`},
		{4, `{"metadata":{"name":"ns"}}`},
		{5, `{"stringData":{"a":"b"}}`},
		{7, `{"subsets":[{"ports":[{"port":1}]}]}`},
		{8, `{"status":{"capacity":{"cpu":"0.0001"}}}`},
		{11, `{"spec":{}}`},
		{12, `{"spec":{"updateStrategy":{"type":"OnDelete"},"volumeClaimTemplates":[{"spec":{"resources":{"requests":{"storage":"1Gi"}}}}],"template":{"spec":{"containers":[{"name":"c","image":"x"}]}}}}`},
	} {
		f.Add(uint8(s.kind), s.body)
	}
	f.Fuzz(func(t *testing.T, k uint8, body string) {
		kind := servedKinds[int(k)%len(servedKinds)]
		obj, err := types.DecodeJSON(kind.apiVersion, kind.kind, []byte(body))
		if err != nil {
			return
		}
		Apply(kind.apiVersion, kind.kind, obj)
		once, err := object.Encode(obj)
		if err != nil {
			t.Fatalf("defaulted %s does not encode: %v", body, err)
		}
		if _, err := protobuf.Marshal(nil, kind.apiVersion, kind.kind, obj); err != nil {
			t.Fatalf("defaulted %s is no %s: %v\n%s", body, kind.kind, err, once)
		}
		Apply(kind.apiVersion, kind.kind, obj)
		twice, err := object.Encode(obj)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("defaulting %s again changed it:\n%s\n%s", body, once, twice)
		}
	})
}

// TestDefaulterTable: byType is sorted, as defaulter's search needs.
func TestDefaulterTable(t *testing.T) {
	for i, e := range byType {
		if i > 0 && byType[i-1].goType >= e.goType {
			t.Errorf("byType is not sorted at %s", e.goType)
		}
		if defaulter(e.goType) == nil {
			t.Errorf("defaulter(%q) is nil", e.goType)
		}
	}
}
