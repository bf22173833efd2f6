package e2e

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"kubeplay/core/apiserver"
)

// The encoding tests drive the core with client-go speaking Kubernetes protobuf
// and CBOR only (no JSON fallback is accepted), and check on the server side that
// every request and response was in that media.

// mediaRecorder is a server filter recording the media types of resource
// requests and responses.
type mediaRecorder struct {
	mu   sync.Mutex
	seen map[string]int // "request <type>" / "response <type>" → count
}

func (m *mediaRecorder) filter(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/") && !strings.HasPrefix(r.URL.Path, "/apis/apps/") || fromTheServer(r) {
			next.ServeHTTP(w, r)
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "" {
			m.add("request " + ct)
		}
		next.ServeHTTP(w, r)
		m.add("response " + w.Header().Get("Content-Type"))
	})
}

func (m *mediaRecorder) add(k string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil {
		m.seen = map[string]int{}
	}
	m.seen[k]++
}

// only fails unless every recorded media type is one of want.
func (m *mediaRecorder) only(t *testing.T, want ...string) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	var keys []string
	for k := range m.seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		_, ct, _ := strings.Cut(k, " ")
		mt, params, _ := mime.ParseMediaType(ct)
		if params["stream"] != "" {
			mt += ";stream=" + params["stream"]
		}
		ok := false
		for _, w := range want {
			ok = ok || mt == w
		}
		if !ok {
			t.Errorf("%s seen %d times; want only %v (all: %v)", k, m.seen[k], want, m.seen)
		}
	}
	if len(keys) == 0 {
		t.Error("no resource requests were recorded")
	}
}

func encodingClientset(t *testing.T, url, contentType, accept string) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(&rest.Config{
		Host:          url,
		BearerToken:   "kubeplay",
		ContentConfig: rest.ContentConfig{ContentType: contentType, AcceptContentTypes: accept},
		QPS:           -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// Populated fixtures: quantities, int-or-strings, maps, bytes, nested messages.
// fixturePod is a Pod whose containers already hold what kube defaults in a
// container (pull policy, termination message, probe timings), so that what
// comes back compares with what was sent.
func fixturePod(name string) *corev1.Pod {
	grace, automount := int64(15), false // no token volume: the Pod is as created
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web", "tier": "front"}, Annotations: map[string]string{"note": "protobuf"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "web", Image: "nginx:1.27", Args: []string{"-g", "daemon off;"},
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
				Env:   []corev1.EnvVar{{Name: "MODE", Value: "demo"}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
				},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
					PeriodSeconds: 5, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3},
				ImagePullPolicy: corev1.PullIfNotPresent, TerminationMessagePath: corev1.TerminationMessagePathDefault,
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			}},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: &grace,
			NodeSelector:                  map[string]string{"kubernetes.io/os": "linux"},
			AutomountServiceAccountToken:  &automount,
		},
	}
}

func fixtureConfigMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Data:       map[string]string{"greeting": "hello", "multi": "a\nb\n"},
		BinaryData: map[string][]byte{"blob": {0, 1, 2, 0xff}},
	}
}

func fixtureService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{
				{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP},
				{Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9091), Protocol: corev1.ProtocolTCP},
			},
		},
	}
}

func fixtureDeployment(name string) *appsv1.Deployment {
	replicas := int32(3)
	surge, unavailable := intstr.FromString("25%"), intstr.FromString("25%")
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       fixturePod("template").Spec,
			},
		},
	}
}

// crud is create, get, list, watch (seeing an update), update and delete for
// one kind through a typed client.
type crud[T any] struct {
	create func(context.Context, T) (T, error)
	get    func(context.Context, string) (T, error)
	list   func(context.Context) ([]T, error)
	watch  func(context.Context, string) (watch.Interface, error)
	update func(context.Context, T) (T, error)
	delete func(context.Context, string) error
	meta   func(T) *metav1.ObjectMeta
	same   func(a, b T) bool // the fields the client sent survived
}

func (c crud[T]) run(t *testing.T, fixture T) {
	t.Helper()
	ctx := context.Background()
	name := c.meta(fixture).Name
	created, err := c.create(ctx, fixture)
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	if c.meta(created).UID == "" || c.meta(created).ResourceVersion == "" || c.meta(created).CreationTimestamp.IsZero() {
		t.Errorf("create %s: server fields missing: %+v", name, c.meta(created))
	}
	got, err := c.get(ctx, name)
	if err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	if !c.same(fixture, got) {
		t.Errorf("get %s: the object differs from what was created:\n sent %+v\n  got %+v", name, fixture, got)
	}
	items, err := c.list(ctx)
	if err != nil || len(items) != 1 || c.meta(items[0]).Name != name {
		t.Fatalf("list: %d items, %v", len(items), err)
	}
	w, err := c.watch(ctx, c.meta(got).ResourceVersion)
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	if c.meta(got).Labels == nil {
		c.meta(got).Labels = map[string]string{}
	}
	c.meta(got).Labels["updated"] = "yes"
	updated, err := c.update(ctx, got)
	if err != nil {
		t.Fatalf("update %s: %v", name, err)
	}
	if c.meta(updated).ResourceVersion == c.meta(got).ResourceVersion || !c.same(fixture, updated) {
		t.Errorf("update %s: resourceVersion %s → %s", name, c.meta(got).ResourceVersion, c.meta(updated).ResourceVersion)
	}
	select {
	case e := <-w.ResultChan():
		obj, ok := e.Object.(T)
		if e.Type != watch.Modified || !ok || c.meta(obj).Labels["updated"] != "yes" {
			t.Errorf("watch: got %s %T, want MODIFIED with the new label", e.Type, e.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watch: no event for the update")
	}
	if err := c.delete(ctx, name); err != nil {
		t.Fatalf("delete %s: %v", name, err)
	}
	if _, err := c.get(ctx, name); !apierrors.IsNotFound(err) {
		t.Errorf("get after delete: %v, want NotFound", err)
	}
}

// samePodSpec compares the pod fields the fixtures set (the server defaults
// others, as kube-apiserver does).
func samePodSpec(a, b corev1.PodSpec) bool {
	return equality.Semantic.DeepEqual(a.Containers, b.Containers) && equality.Semantic.DeepEqual(a.NodeSelector, b.NodeSelector) &&
		a.RestartPolicy == b.RestartPolicy && equality.Semantic.DeepEqual(a.TerminationGracePeriodSeconds, b.TerminationGracePeriodSeconds)
}

func podCRUD(cs *kubernetes.Clientset) crud[*corev1.Pod] {
	api := cs.CoreV1().Pods(cgNamespace)
	return crud[*corev1.Pod]{
		create: func(ctx context.Context, o *corev1.Pod) (*corev1.Pod, error) {
			return api.Create(ctx, o, metav1.CreateOptions{})
		},
		get: func(ctx context.Context, n string) (*corev1.Pod, error) { return api.Get(ctx, n, metav1.GetOptions{}) },
		list: func(ctx context.Context) ([]*corev1.Pod, error) {
			l, err := api.List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			var out []*corev1.Pod
			for i := range l.Items {
				out = append(out, &l.Items[i])
			}
			return out, nil
		},
		watch: func(ctx context.Context, rv string) (watch.Interface, error) {
			return api.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		},
		update: func(ctx context.Context, o *corev1.Pod) (*corev1.Pod, error) {
			return api.Update(ctx, o, metav1.UpdateOptions{})
		},
		delete: func(ctx context.Context, n string) error { return api.Delete(ctx, n, metav1.DeleteOptions{}) },
		meta:   func(o *corev1.Pod) *metav1.ObjectMeta { return &o.ObjectMeta },
		same:   func(a, b *corev1.Pod) bool { return samePodSpec(a.Spec, b.Spec) },
	}
}

func configMapCRUD(cs *kubernetes.Clientset) crud[*corev1.ConfigMap] {
	api := cs.CoreV1().ConfigMaps(cgNamespace)
	return crud[*corev1.ConfigMap]{
		create: func(ctx context.Context, o *corev1.ConfigMap) (*corev1.ConfigMap, error) {
			return api.Create(ctx, o, metav1.CreateOptions{})
		},
		get: func(ctx context.Context, n string) (*corev1.ConfigMap, error) {
			return api.Get(ctx, n, metav1.GetOptions{})
		},
		list: func(ctx context.Context) ([]*corev1.ConfigMap, error) {
			l, err := api.List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			var out []*corev1.ConfigMap
			for i := range l.Items {
				out = append(out, &l.Items[i])
			}
			return out, nil
		},
		watch: func(ctx context.Context, rv string) (watch.Interface, error) {
			return api.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		},
		update: func(ctx context.Context, o *corev1.ConfigMap) (*corev1.ConfigMap, error) {
			return api.Update(ctx, o, metav1.UpdateOptions{})
		},
		delete: func(ctx context.Context, n string) error { return api.Delete(ctx, n, metav1.DeleteOptions{}) },
		meta:   func(o *corev1.ConfigMap) *metav1.ObjectMeta { return &o.ObjectMeta },
		same: func(a, b *corev1.ConfigMap) bool {
			return equality.Semantic.DeepEqual(a.Data, b.Data) && equality.Semantic.DeepEqual(a.BinaryData, b.BinaryData)
		},
	}
}

func serviceCRUD(cs *kubernetes.Clientset) crud[*corev1.Service] {
	api := cs.CoreV1().Services(cgNamespace)
	return crud[*corev1.Service]{
		create: func(ctx context.Context, o *corev1.Service) (*corev1.Service, error) {
			return api.Create(ctx, o, metav1.CreateOptions{})
		},
		get: func(ctx context.Context, n string) (*corev1.Service, error) {
			return api.Get(ctx, n, metav1.GetOptions{})
		},
		list: func(ctx context.Context) ([]*corev1.Service, error) {
			l, err := api.List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			var out []*corev1.Service
			for i := range l.Items {
				out = append(out, &l.Items[i])
			}
			return out, nil
		},
		watch: func(ctx context.Context, rv string) (watch.Interface, error) {
			return api.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		},
		update: func(ctx context.Context, o *corev1.Service) (*corev1.Service, error) {
			return api.Update(ctx, o, metav1.UpdateOptions{})
		},
		delete: func(ctx context.Context, n string) error { return api.Delete(ctx, n, metav1.DeleteOptions{}) },
		meta:   func(o *corev1.Service) *metav1.ObjectMeta { return &o.ObjectMeta },
		same: func(a, b *corev1.Service) bool {
			return equality.Semantic.DeepEqual(a.Spec.Ports, b.Spec.Ports) && equality.Semantic.DeepEqual(a.Spec.Selector, b.Spec.Selector)
		},
	}
}

func deploymentCRUD(cs *kubernetes.Clientset) crud[*appsv1.Deployment] {
	api := cs.AppsV1().Deployments(cgNamespace)
	return crud[*appsv1.Deployment]{
		create: func(ctx context.Context, o *appsv1.Deployment) (*appsv1.Deployment, error) {
			return api.Create(ctx, o, metav1.CreateOptions{})
		},
		get: func(ctx context.Context, n string) (*appsv1.Deployment, error) {
			return api.Get(ctx, n, metav1.GetOptions{})
		},
		list: func(ctx context.Context) ([]*appsv1.Deployment, error) {
			l, err := api.List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			var out []*appsv1.Deployment
			for i := range l.Items {
				out = append(out, &l.Items[i])
			}
			return out, nil
		},
		watch: func(ctx context.Context, rv string) (watch.Interface, error) {
			return api.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		},
		update: func(ctx context.Context, o *appsv1.Deployment) (*appsv1.Deployment, error) {
			return api.Update(ctx, o, metav1.UpdateOptions{})
		},
		delete: func(ctx context.Context, n string) error { return api.Delete(ctx, n, metav1.DeleteOptions{}) },
		meta:   func(o *appsv1.Deployment) *metav1.ObjectMeta { return &o.ObjectMeta },
		same: func(a, b *appsv1.Deployment) bool {
			return equality.Semantic.DeepEqual(a.Spec.Replicas, b.Spec.Replicas) && equality.Semantic.DeepEqual(a.Spec.Selector, b.Spec.Selector) &&
				equality.Semantic.DeepEqual(a.Spec.Strategy, b.Spec.Strategy) && samePodSpec(a.Spec.Template.Spec, b.Spec.Template.Spec)
		},
	}
}

func TestK8S_ENC_3_ClientGoProtobuf(t *testing.T) {
	rec := &mediaRecorder{}
	hs, _ := startServer(t, apiserver.Config{Filters: []apiserver.Filter{rec.filter}})
	const pb = "application/vnd.kubernetes.protobuf"
	cs := encodingClientset(t, hs.URL, pb, pb)
	t.Run("Pod", func(t *testing.T) { podCRUD(cs).run(t, fixturePod("pb-pod")) })
	t.Run("ConfigMap", func(t *testing.T) { configMapCRUD(cs).run(t, fixtureConfigMap("pb-cm")) })
	t.Run("Service", func(t *testing.T) { serviceCRUD(cs).run(t, fixtureService("pb-svc")) })
	t.Run("Deployment", func(t *testing.T) { deploymentCRUD(cs).run(t, fixtureDeployment("pb-deploy")) })

	t.Run("PodInformer", func(t *testing.T) {
		factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(cgNamespace))
		pods := factory.Core().V1().Pods().Informer()
		stop := make(chan struct{})
		defer close(stop)
		factory.Start(stop)
		if !cache.WaitForCacheSync(stop, pods.HasSynced) {
			t.Fatal("informer never synced")
		}
		ctx := context.Background()
		for i := range 30 {
			if _, err := cs.CoreV1().Pods(cgNamespace).Create(ctx, fixturePod(fmt.Sprintf("inf-%02d", i)), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 10 {
			if err := cs.CoreV1().Pods(cgNamespace).Delete(ctx, fmt.Sprintf("inf-%02d", i), metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(20 * time.Second)
		for len(pods.GetStore().ListKeys()) != 20 {
			if time.Now().After(deadline) {
				t.Fatalf("informer holds %d pods, want 20", len(pods.GetStore().ListKeys()))
			}
			time.Sleep(20 * time.Millisecond)
		}
		for _, obj := range pods.GetStore().List() {
			if p := obj.(*corev1.Pod); !samePodSpec(p.Spec, fixturePod("").Spec) {
				t.Fatalf("informer's %s differs: %+v", p.Name, p.Spec)
			}
		}
	})
	rec.only(t, pb, pb+";stream=watch")
}

func TestK8S_ENC_4_ClientGoCBOR(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.ClientsAllowCBOR, true)
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.ClientsPreferCBOR, true)
	rec := &mediaRecorder{}
	hs, _ := startServer(t, apiserver.Config{Filters: []apiserver.Filter{rec.filter}})
	cs := encodingClientset(t, hs.URL, "application/cbor", "application/cbor")
	configMapCRUD(cs).run(t, fixtureConfigMap("cbor-cm"))
	rec.only(t, "application/cbor", "application/cbor-seq")
}
