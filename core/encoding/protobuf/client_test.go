package protobuf_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubeprotobuf "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	restwatch "k8s.io/client-go/rest/watch"

	"kubeplay/core/encoding"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/object"
)

// The media under test, as core/encoding names them.
var (
	pb         = encoding.Protobuf.ContentType()
	pbWatch, _ = encoding.Protobuf.StreamContentType()
)

func samplePod() *corev1.Pod {
	grace := int64(30)
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-0", Namespace: "default", UID: "6f1c2c4e-0b7a-4d7e-9a57-0d4b8f1e2a10",
			ResourceVersion: "1042", Generation: 1,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 11, 23, 11, 0, 0, 0, time.UTC)),
			Labels:            map[string]string{"app": "web", "tier": "frontend"},
			Annotations:       map[string]string{"kubeplay.dev/note": "sample"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-6d4cf56db6",
				UID: "0b7a6f1c-2c4e-4d7e-9a57-0d4b8f1e2a10", Controller: ptr(true), BlockOwnerDeletion: ptr(true),
			}},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
				Time:       ptr(metav1.NewTime(time.Date(2026, 11, 23, 11, 0, 0, 0, time.UTC))),
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`)},
			}},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "web", Image: "nginx:1.27", Args: []string{"-g", "daemon off;"},
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
				Env:   []corev1.EnvVar{{Name: "MODE", Value: "prod"}},
				Resources: corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
				},
				ReadinessProbe: &corev1.Probe{
					ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}},
					PeriodSeconds: 5,
				},
				VolumeMounts:             []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
				TerminationMessagePath:   "/dev/termination-log",
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy:          corev1.PullIfNotPresent,
			}},
			Volumes:                       []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: &grace,
			DNSPolicy:                     corev1.DNSClusterFirst,
			ServiceAccountName:            "default",
			NodeName:                      "node-1",
			SecurityContext:               &corev1.PodSecurityContext{SupplementalGroups: []int64{1000, 2000}},
			SchedulerName:                 "default-scheduler",
			Tolerations: []corev1.Toleration{{
				Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists,
				Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300)),
			}},
		},
		Status: corev1.PodStatus{
			Phase:     corev1.PodRunning,
			PodIP:     "10.244.0.7",
			StartTime: ptr(metav1.NewTime(time.Date(2026, 11, 23, 11, 0, 1, 0, time.UTC))),
			Conditions: []corev1.PodCondition{{
				Type: corev1.PodReady, Status: corev1.ConditionTrue,
				LastTransitionTime: metav1.NewTime(time.Date(2026, 11, 23, 11, 0, 3, 0, time.UTC)),
			}},
		},
	}
}

func ptr[T any](v T) *T { return &v }

// jsonForm is obj's JSON form as kubeplay holds it.
func jsonForm(t testing.TB, obj any) object.Object {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	o, err := object.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// envelope is obj, given in JSON form, enveloped as kubeplay would serve it.
func envelope(t testing.TB, apiVersion, kind string, obj object.Object) []byte {
	t.Helper()
	raw, err := protobuf.Marshal(nil, apiVersion, kind, obj)
	if err != nil {
		t.Fatal(err)
	}
	return protobuf.AppendEnvelope(nil, apiVersion, kind, raw)
}

// TestK8S_ENC_3_Envelope compares the envelope with kube's protobuf serializer:
// the same bytes for the same object, each decoding the other's.
func TestK8S_ENC_3_Envelope(t *testing.T) {
	serializer := kubeprotobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	status := &metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   metav1.StatusFailure, Message: `pods "web-1" not found`, Reason: metav1.StatusReasonNotFound,
		Details: &metav1.StatusDetails{Name: "web-1", Kind: "pods"}, Code: 404,
	}
	for _, typed := range []runtime.Object{samplePod(), status} {
		gvk := typed.GetObjectKind().GroupVersionKind()
		var want bytes.Buffer
		if err := serializer.Encode(typed, &want); err != nil {
			t.Fatal(err)
		}
		got := envelope(t, gvk.GroupVersion().String(), gvk.Kind, jsonForm(t, typed))
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%s: envelope differs from kube's serializer\n got %x\nwant %x", gvk.Kind, got, want.Bytes())
		}
		decoded, _, err := serializer.Decode(got, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(decoded, typed) {
			t.Fatalf("%s: kube decodes %#v", gvk.Kind, decoded)
		}
		apiVersion, kind, raw, err := protobuf.ParseEnvelope(want.Bytes())
		if err != nil || apiVersion != gvk.GroupVersion().String() || kind != gvk.Kind {
			t.Fatalf("ParseEnvelope: %q %q %v", apiVersion, kind, err)
		}
		obj, err := protobuf.Unmarshal(apiVersion, kind, raw)
		if err != nil {
			t.Fatal(err)
		}
		obj["apiVersion"], obj["kind"] = apiVersion, kind
		if g, w := normalize(t, obj), normalize(t, typed); !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: Unmarshal gives %v, want %v", kind, g, w)
		}
	}

	// Bad envelopes fail with kube's (gogo's) words (K8S-FID-1).
	for _, bad := range []string{
		"{}", "k8s\x00\x0a\x05\x0a", "k8s\x00\x0a\x02\x0a", "k8s\x00\x08\x01",
		"k8s\x00\x12\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "k8s\x00garbage that is not protobuf",
		"k8s\x00\x0c", "k8s\x00\x00\x01", "k8s\x00\x0a\x02\x08\x01",
	} {
		_, _, kubeErr := serializer.Decode([]byte(bad), nil, nil)
		if _, _, _, err := protobuf.ParseEnvelope([]byte(bad)); err == nil || kubeErr == nil || err.Error() != kubeErr.Error() {
			t.Errorf("ParseEnvelope(%q): got %v, kube %v", bad, err, kubeErr)
		}
	}
}

// TestK8S_ENC_3_WatchFrames checks the watch stream both ways against kube:
// kube-apiserver's encoding of an event (the WatchEvent by the raw serializer, the
// object inside it enveloped, each event a length-delimited frame) is byte-equal
// to ours, and client-go's watch decoder reads ours.
func TestK8S_ENC_3_WatchFrames(t *testing.T) {
	pod := samplePod()
	podJSON := jsonForm(t, pod)
	gone := &metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   metav1.StatusFailure, Message: "too old resource version: 1 (1042)", Reason: metav1.StatusReasonExpired, Code: 410,
	}
	events := []struct {
		typ  watch.EventType
		obj  runtime.Object
		kind string
	}{{watch.Added, pod, "Pod"}, {watch.Modified, pod, "Pod"}, {watch.Error, gone, "Status"}}

	// kube-apiserver's side: framer + raw serializer for the event, enveloping
	// serializer for the object (k8s.io/apiserver endpoints/handlers/watch.go).
	enveloping := kubeprotobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	raw := kubeprotobuf.NewRawSerializer(scheme.Scheme, scheme.Scheme)
	var want bytes.Buffer
	frames := kubeprotobuf.LengthDelimitedFramer.NewFrameWriter(&want)
	var stream []byte
	for _, e := range events {
		var obj bytes.Buffer
		if err := enveloping.Encode(e.obj, &obj); err != nil {
			t.Fatal(err)
		}
		var event bytes.Buffer
		if err := raw.Encode(&metav1.WatchEvent{Type: string(e.typ), Object: runtime.RawExtension{Raw: obj.Bytes()}}, &event); err != nil {
			t.Fatal(err)
		}
		if _, err := frames.Write(event.Bytes()); err != nil {
			t.Fatal(err)
		}
		objJSON := podJSON
		if e.kind == "Status" {
			objJSON = jsonForm(t, gone)
		}
		stream = protobuf.AppendFrame(stream, protobuf.AppendWatchEvent(nil, string(e.typ), envelope(t, "v1", e.kind, objJSON)))
	}
	if !bytes.Equal(stream, want.Bytes()) {
		t.Fatalf("watch stream differs from kube-apiserver's\n got %x\nwant %x", stream, want.Bytes())
	}

	// client-go's side (rest/request.go: streaming decoder over the frame reader
	// with the raw serializer, then the enveloping decoder for the object).
	frameReader := kubeprotobuf.LengthDelimitedFramer.NewFrameReader(io.NopCloser(bytes.NewReader(stream)))
	decoder := restwatch.NewDecoder(streaming.NewDecoder(frameReader, raw), enveloping)
	for _, e := range events {
		typ, obj, err := decoder.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if typ != e.typ || !equality.Semantic.DeepEqual(obj, e.obj) {
			t.Fatalf("client-go decodes %s %#v, want %s %#v", typ, obj, e.typ, e.obj)
		}
	}
	if _, _, err := decoder.Decode(); err != io.EOF {
		t.Fatalf("after the last event: %v", err)
	}

	// And back: SplitFrame and ParseWatchEvent read kube's stream.
	rest := want.Bytes()
	for _, e := range events {
		msg, after, err := protobuf.SplitFrame(rest)
		if err != nil {
			t.Fatal(err)
		}
		typ, obj, err := protobuf.ParseWatchEvent(msg)
		if err != nil || typ != string(e.typ) {
			t.Fatalf("ParseWatchEvent: %q %v", typ, err)
		}
		if _, kind, _, err := protobuf.ParseEnvelope(obj); err != nil || kind != e.kind {
			t.Fatalf("event object: %q %v", kind, err)
		}
		rest = after
	}
	if _, _, err := protobuf.SplitFrame(rest[:0]); err != protobuf.ErrShortFrame {
		t.Fatalf("SplitFrame of nothing: %v", err)
	}
	if _, _, err := protobuf.SplitFrame(want.Bytes()[:10]); err != protobuf.ErrShortFrame {
		t.Fatalf("SplitFrame of a partial frame: %v", err)
	}
}

// fakeServer answers client-go's protobuf requests with this package, recording
// what it was sent.
type fakeServer struct {
	t        *testing.T
	mu       sync.Mutex
	received map[string]object.Object // "METHOD path" → decoded body
	kinds    map[string]string        // "METHOD path" → apiVersion/kind of the body
}

func (s *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Method + " " + r.URL.Path
	if r.Method != http.MethodGet {
		if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != pb {
			s.t.Errorf("%s: Content-Type %q", key, r.Header.Get("Content-Type"))
		}
		body, _ := io.ReadAll(r.Body)
		apiVersion, kind, raw, err := protobuf.ParseEnvelope(body)
		if err != nil {
			s.t.Errorf("%s: %v", key, err)
			return
		}
		obj, err := protobuf.Unmarshal(apiVersion, kind, raw)
		if err != nil {
			s.t.Errorf("%s: %v", key, err)
			return
		}
		s.mu.Lock()
		s.received[key], s.kinds[key] = obj, apiVersion+"/"+kind
		s.mu.Unlock()
	}
	reply := func(code int, apiVersion, kind string, obj object.Object) {
		w.Header().Set("Content-Type", pb)
		w.WriteHeader(code)
		_, _ = w.Write(envelope(s.t, apiVersion, kind, obj))
	}
	switch {
	case key == "POST /apis/apps/v1/namespaces/default/deployments":
		obj := s.received[key]
		obj["metadata"].(map[string]any)["resourceVersion"] = "7"
		reply(http.StatusCreated, "apps/v1", "Deployment", obj)
	case key == "PUT /apis/apps/v1/namespaces/default/deployments/web/scale":
		reply(http.StatusOK, "autoscaling/v1", "Scale", s.received[key])
	case key == "POST /api/v1/namespaces/default/pods/web-0/eviction":
		reply(http.StatusCreated, "v1", "Status", object.Object{"status": "Success", "code": json.Number("201")})
	case r.Method == http.MethodDelete:
		reply(http.StatusOK, "v1", "Status", object.Object{"status": "Success"})
	case key == "GET /api/v1/namespaces/default/pods" && r.URL.Query().Get("watch") == "true":
		w.Header().Set("Content-Type", pbWatch)
		pod := jsonForm(s.t, samplePod())
		var stream []byte
		for _, typ := range []string{"ADDED", "MODIFIED", "DELETED"} {
			stream = protobuf.AppendFrame(stream, protobuf.AppendWatchEvent(nil, typ, envelope(s.t, "v1", "Pod", pod)))
		}
		_, _ = w.Write(stream)
	case key == "GET /api/v1/namespaces/default/pods" && strings.HasPrefix(r.Header.Get("Accept"), pb+";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"):
		meta := jsonForm(s.t, samplePod())["metadata"].(map[string]any)
		item, err := protobuf.Marshal(nil, "meta.k8s.io/v1", "PartialObjectMetadata", object.Object{"metadata": meta})
		if err != nil {
			s.t.Fatal(err)
		}
		list, err := protobuf.AppendList(nil, object.Object{"resourceVersion": "1042"}, [][]byte{item})
		if err != nil {
			s.t.Fatal(err)
		}
		w.Header().Set("Content-Type", pb)
		_, _ = w.Write(protobuf.AppendEnvelope(nil, "meta.k8s.io/v1", "PartialObjectMetadataList", list))
	case key == "GET /api/v1/namespaces/default/pods":
		item, err := protobuf.Marshal(nil, "v1", "Pod", jsonForm(s.t, samplePod()))
		if err != nil {
			s.t.Fatal(err)
		}
		list, err := protobuf.AppendList(nil, object.Object{"resourceVersion": "1042", "continue": "abc", "remainingItemCount": json.Number("3")}, [][]byte{item, item})
		if err != nil {
			s.t.Fatal(err)
		}
		w.Header().Set("Content-Type", pb)
		_, _ = w.Write(protobuf.AppendEnvelope(nil, "v1", "PodList", list))
	default:
		reply(http.StatusNotFound, "v1", "Status", object.Object{
			"status": "Failure", "message": `pods "missing" not found`, "reason": "NotFound",
			"details": map[string]any{"name": "missing", "kind": "pods"}, "code": json.Number("404"),
		})
	}
}

// TestK8S_ENC_3_ClientGo drives client-go's typed clients with protobuf as their
// content type against a server speaking through this package: request bodies
// (create, update of a subresource, eviction, DeleteOptions on delete and
// deletecollection), responses, lists, errors and a watch.
func TestK8S_ENC_3_ClientGo(t *testing.T) {
	fake := &fakeServer{t: t, received: map[string]object.Object{}, kinds: map[string]string{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{
		ContentType: pb, AcceptContentTypes: pb,
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(3)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: samplePod().Spec},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr(intstr.FromString("25%"))}},
		},
	}
	created, err := client.AppsV1().Deployments("default").Create(ctx, deploy, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	deploy.ResourceVersion = "7"
	if !equality.Semantic.DeepEqual(created, deploy) {
		t.Fatalf("created %#v\nwant %#v", created, deploy)
	}
	if k := fake.kinds["POST /apis/apps/v1/namespaces/default/deployments"]; k != "apps/v1/Deployment" {
		t.Fatalf("create body is %s", k)
	}

	scale, err := client.AppsV1().Deployments("default").UpdateScale(ctx, "web", &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: autoscalingv1.ScaleSpec{Replicas: 5},
	}, metav1.UpdateOptions{})
	if err != nil || scale.Spec.Replicas != 5 {
		t.Fatalf("UpdateScale: %v %v", scale, err)
	}

	if err := client.PolicyV1().Evictions("default").Evict(ctx, &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: "web-0", Namespace: "default"},
		DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))},
	}); err != nil {
		t.Fatal(err)
	}
	if got := fake.received["POST /api/v1/namespaces/default/pods/web-0/eviction"]["deleteOptions"]; !reflect.DeepEqual(got, map[string]any{"gracePeriodSeconds": json.Number("0")}) {
		t.Fatalf("eviction deleteOptions %v", got)
	}

	propagation := metav1.DeletePropagationForeground
	if err := client.CoreV1().Pods("default").Delete(ctx, "web-0", metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(5)), PropagationPolicy: &propagation, DryRun: []string{"All"}}); err != nil {
		t.Fatal(err)
	}
	key := "DELETE /api/v1/namespaces/default/pods/web-0"
	if k := fake.kinds[key]; k != "v1/DeleteOptions" {
		t.Fatalf("delete body is %s", k)
	}
	if g, w := normalize(t, fake.received[key]), normalize(t, map[string]any{"gracePeriodSeconds": 5, "propagationPolicy": "Foreground", "dryRun": []string{"All"}}); !reflect.DeepEqual(g, w) {
		t.Fatalf("delete options %v, want %v", g, w)
	}
	if err := client.AppsV1().Deployments("default").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=web"}); err != nil {
		t.Fatal(err)
	}
	if k := fake.kinds["DELETE /apis/apps/v1/namespaces/default/deployments"]; k != "apps/v1/DeleteOptions" {
		t.Fatalf("deletecollection body is %s", k)
	}

	list, err := client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := samplePod()
	want.TypeMeta = metav1.TypeMeta{}
	if len(list.Items) != 2 || list.ResourceVersion != "1042" || list.Continue != "abc" || *list.RemainingItemCount != 3 || !equality.Semantic.DeepEqual(&list.Items[1], want) {
		t.Fatalf("list %#v", list)
	}

	metaClient, err := metadata.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	partial, err := metaClient.Resource(corev1.SchemeGroupVersion.WithResource("pods")).Namespace("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(partial.Items) != 1 || partial.ResourceVersion != "1042" || !equality.Semantic.DeepEqual(partial.Items[0].ObjectMeta, want.ObjectMeta) {
		t.Fatalf("metadata list %#v", partial)
	}

	_, err = client.CoreV1().Pods("default").Get(ctx, "missing", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) || err.Error() != `pods "missing" not found` {
		t.Fatalf("get missing: %v", err)
	}

	w, err := client.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, typ := range []watch.EventType{watch.Added, watch.Modified, watch.Deleted} {
		e, ok := <-w.ResultChan()
		if !ok || e.Type != typ || !equality.Semantic.DeepEqual(e.Object, want) {
			t.Fatalf("watch event %v %v %#v", ok, e.Type, e.Object)
		}
	}
}
