package e2e

import (
	"context"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"

	"kubeplay/core/auth"
	"kubeplay/core/sandbox"
	"kubeplay/core/sim"
)

// startCluster serves a sandbox with its simulated cluster (a control plane
// and two workers), ten times faster than real time.
func startCluster(t *testing.T) *httptest.Server {
	t.Helper()
	// kubectl sends no token over plain HTTP: as on the native command's
	// loopback listener, a request without one is kubernetes-admin.
	admin := auth.Admin()
	sb, err := sandbox.New(sandbox.Config{Cluster: sim.Config{Speed: 10}, Tokenless: &admin})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sb)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		sb.Close()
	})
	return hs
}

// newClusterKubectl is kubectl against a sandbox with its simulated cluster
// (a control plane and two workers), ten times faster than real time.
func newClusterKubectl(t *testing.T) *kcEnv {
	t.Helper()
	bin := kcBinary(t)
	kubeconfig := writeKubeconfig(t, startCluster(t).URL)
	return &kcEnv{t: t, bin: bin, kubeconfig: kubeconfig, home: t.TempDir(), rec: &kcRecorder{}}
}

// TestSIM_6_KubectlDeploymentEndToEnd is the workshop's first hour with kubectl
// 1.32 against a simulated cluster: a fresh cluster's `get all` and nodes;
// create deployment and rollout status; Running Pods on the workers with
// addresses; expose (a cluster IP, an EndpointSlice of three endpoints);
// set image and rollout status, history and undo; scale; pause and resume;
// restart; logs; the events describe shows.
func TestSIM_6_KubectlDeploymentEndToEnd(t *testing.T) {
	k := newClusterKubectl(t)
	all := kcTable(k.must("get", "all"))
	wantRows(t, "get all (a fresh cluster)", all, [][]string{
		{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT\\(S\\)", "AGE"},
		{"service/kubernetes", "ClusterIP", `10\.96\.0\.1`, "<none>", "443/TCP", `\d+s`},
	})
	nodes := kcTable(k.must("get", "nodes"))
	wantRows(t, "get nodes", nodes, [][]string{
		{"NAME", "STATUS", "ROLES", "AGE", "VERSION"},
		{"kubeplay-control-plane", "Ready", "control-plane", `\d+s`, `v1\.32\.13`},
		{"kubeplay-worker", "Ready", "<none>", `\d+s`, `v1\.32\.13`},
		{"kubeplay-worker2", "Ready", "<none>", `\d+s`, `v1\.32\.13`},
	})
	k.must("get", "serviceaccount", "default")
	k.must("get", "configmap", "kube-root-ca.crt")

	k.must("create", "deployment", "web", "--image=nginx", "--replicas=3")
	if out := k.must("rollout", "status", "deployment/web", "--timeout=60s"); !strings.Contains(out, `deployment "web" successfully rolled out`) {
		t.Fatalf("rollout status: %s", out)
	}
	pods := kcTable(k.must("get", "pods", "-o", "wide"))
	if len(pods) != 4 {
		t.Fatalf("get pods -o wide: %q", pods)
	}
	for _, row := range pods[1:] {
		if !regexp.MustCompile(`^web-[a-z0-9]+-[a-z0-9]{5}$`).MatchString(row[0]) || row[1] != "1/1" || row[2] != "Running" ||
			!strings.HasPrefix(row[5], "10.244.") || !strings.HasPrefix(row[6], "kubeplay-worker") {
			t.Errorf("pod row %q", row)
		}
	}

	// The simulated kubelets write logs too.
	if logs := k.must("logs", "deployment/web"); !strings.Contains(logs, "[notice] 1#1: start worker processes") {
		t.Errorf("kubectl logs: %q", logs)
	}
	k.must("run", "hello", "--image=busybox", "--restart=Never", "--", "sh", "-c", "echo hello from the sandbox")
	eventually(t, "hello completed", func() bool { return strings.Contains(k.must("get", "pod", "hello"), "Completed") })
	if logs := k.must("logs", "hello"); logs != "hello from the sandbox\n" {
		t.Errorf("kubectl logs hello: %q", logs)
	}
	if out := k.fails("logs", "hello", "--previous"); !strings.Contains(out, `previous terminated container "hello" in pod "hello" not found`) {
		t.Errorf("kubectl logs --previous: %s", out)
	}

	k.must("expose", "deployment", "web", "--port=80")
	svc := kcTable(k.must("get", "svc", "web"))
	wantRows(t, "get svc web", svc, [][]string{
		{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT\\(S\\)", "AGE"},
		{"web", "ClusterIP", `10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+`, "<none>", "80/TCP", `\d+s`},
	})
	eventually(t, "an EndpointSlice of three endpoints", func() bool {
		rows := kcTable(k.must("get", "endpointslices", "-l", "kubernetes.io/service-name=web"))
		return len(rows) == 2 && rows[1][1] == "IPv4" && rows[1][2] == "80" && len(strings.Split(rows[1][3], ",")) == 3
	})

	k.must("set", "image", "deployment/web", "nginx=nginx:1.27")
	k.must("rollout", "status", "deployment/web", "--timeout=60s")
	k.must("annotate", "deployment/web", "kubernetes.io/change-cause=nginx 1.27")
	history := kcTable(k.must("rollout", "history", "deployment/web"))
	wantRows(t, "rollout history", history, [][]string{
		{"deployment.apps/web"},
		{"REVISION", "CHANGE-CAUSE"},
		{"1", "<none>"},
		{"2", "nginx", "1.27"},
	})
	k.must("rollout", "undo", "deployment/web")
	k.must("rollout", "status", "deployment/web", "--timeout=60s")
	if image := k.must("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"); image != "nginx" {
		t.Errorf("image after undo: %q", image)
	}
	if rss := kcTable(k.must("get", "rs")); len(rss) != 3 {
		t.Errorf("replica sets after undo: %q", rss)
	}

	k.must("scale", "deployment/web", "--replicas=5")
	k.must("rollout", "status", "deployment/web", "--timeout=60s")
	k.must("rollout", "pause", "deployment/web")
	k.must("set", "image", "deployment/web", "nginx=nginx:1.28")
	if rss := kcTable(k.must("get", "rs")); len(rss) != 3 {
		t.Errorf("a paused deployment rolled out: %q", rss)
	}
	k.must("rollout", "resume", "deployment/web")
	k.must("rollout", "status", "deployment/web", "--timeout=60s")
	k.must("rollout", "restart", "deployment/web")
	k.must("rollout", "status", "deployment/web", "--timeout=60s")
	k.must("scale", "deployment/web", "--replicas=0")
	eventually(t, "only hello", func() bool { return len(kcTable(k.must("get", "pods"))) == 2 })

	// (Killing, the kubelet stopping a deleted Pod's containers, comes with
	// graceful Pod deletion, the lifecycle branch's: until then a Pod goes at
	// once.)
	events := k.must("get", "events")
	for _, want := range []string{"Scheduled", "Pulling", "Pulled", "Created", "Started", "SuccessfulCreate", "SuccessfulDelete", "ScalingReplicaSet"} {
		if !strings.Contains(events, want) {
			t.Errorf("get events: no %s in\n%s", want, events)
		}
	}
	// The same events through events.k8s.io/v1 (what kube-scheduler writes with).
	if v1 := k.must("get", "events.events.k8s.io", "--field-selector=reason=Scheduled", "-o", "jsonpath={.items[*].reportingController}"); !strings.Contains(v1, "default-scheduler") {
		t.Errorf("get events.events.k8s.io: %q", v1)
	}
	describe := k.must("describe", "deployment", "web")
	for _, want := range []string{"RollingUpdateStrategy:  25% max unavailable, 25% max surge", "Scaled up replica set web-", "deployment-controller"} {
		if !strings.Contains(describe, want) {
			t.Errorf("describe deployment: no %q in\n%s", want, describe)
		}
	}

	// A Job completes; its Pod, tracked with kube's finalizer while it ran, is
	// released once counted.
	k.must("create", "job", "once", "--image=busybox", "--", "sh", "-c", "echo job done")
	k.must("wait", "--for=condition=complete", "job/once", "--timeout=60s")
	wantRows(t, "get job once", kcTable(k.must("get", "job", "once")), [][]string{
		{"NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"},
		{"once", "Complete", "1/1", `\d+s`, `\d+s`},
	})
	if logs := k.must("logs", "job/once"); logs != "job done\n" {
		t.Errorf("kubectl logs job/once: %q", logs)
	}
	if fins := k.must("get", "pods", "-l", "job-name=once", "-o", "jsonpath={.items[*].metadata.finalizers}"); fins != "" {
		t.Errorf("a counted Job Pod keeps finalizers: %q", fins)
	}

	// Deleting the Deployment: the garbage collector takes its ReplicaSets
	// (and their Pods, none left at 0 replicas).
	k.must("delete", "deployment", "web")
	eventually(t, "web's ReplicaSets collected", func() bool { return k.must("get", "rs", "-o", "name") == "" })
	all = kcTable(k.must("get", "all"))
	wantRows(t, "get all (at the end)", all, [][]string{
		{"NAME", "READY", "STATUS", "RESTARTS", "AGE"},
		{"pod/hello", "0/1", "Completed", "0", `\d+s`},
		{`pod/once-[a-z0-9]{5}`, "0/1", "Completed", "0", `\d+s`},
		{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT\\(S\\)", "AGE"},
		{"service/kubernetes", "ClusterIP", `10\.96\.0\.1`, "<none>", "443/TCP", `\d+s`},
		{"service/web", "ClusterIP", `10\.\d+\.\d+\.\d+`, "<none>", "80/TCP", `\d+s`},
		{"NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"},
		{"job.batch/once", "Complete", "1/1", `\d+s`, `\d+s`},
	})
}

// TestSIM_1_KubectlStatefulSetStorage: kind's default StorageClass, a
// StatefulSet's claims provisioned and bound as kind binds them (volumes on
// the Pods' nodes, STORAGECLASS standard), describe's view of a claim, and
// the volumes deleted with their claims.
func TestSIM_1_KubectlStatefulSetStorage(t *testing.T) {
	k := newClusterKubectl(t)
	wantRows(t, "get sc", kcTable(k.must("get", "sc")), [][]string{
		{"NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"},
		{"standard", `\(default\)`, `rancher\.io/local-path`, "Delete", "WaitForFirstConsumer", "false", `\d+s`},
	})
	k.must("apply", "-f", k.file("db.yaml", `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`))
	k.must("rollout", "status", "statefulset/db", "--timeout=60s")
	var volumes []string
	k.eventually("claims bound", func() bool {
		rows := kcTable(k.must("get", "pvc"))
		if len(rows) != 3 || rows[1][1] != "Bound" || rows[2][1] != "Bound" {
			return false
		}
		volumes = []string{rows[1][2], rows[2][2]}
		return true
	})
	wantRows(t, "get pvc", kcTable(k.must("get", "pvc")), [][]string{
		{"NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS", "MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"},
		{"data-db-0", "Bound", volumes[0], "1Gi", "RWO", "standard", "<unset>", `\d+s`},
		{"data-db-1", "Bound", volumes[1], "1Gi", "RWO", "standard", "<unset>", `\d+s`},
	})
	k.eventually("volumes bound", func() bool { return strings.Count(k.must("get", "pv"), " Bound ") == 2 })
	// The REASON column is empty.
	pvRows := [][]string{{"NAME", "CAPACITY", "ACCESS", "MODES", "RECLAIM", "POLICY", "STATUS", "CLAIM", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"}}
	for i, v := range volumes {
		pvRows = append(pvRows, []string{regexp.QuoteMeta(v), "1Gi", "RWO", "Delete", "Bound", "default/data-db-" + string(rune('0'+i)), "standard", "<unset>", `\d+s`})
	}
	got := kcTable(k.must("get", "pv"))
	slices.SortFunc(got[1:], func(a, b []string) int { return strings.Compare(a[5], b[5]) })
	wantRows(t, "get pv", got, pvRows)
	node := k.must("get", "pod", "db-0", "-o", "jsonpath={.spec.nodeName}")
	if affinity := k.must("get", "pv", volumes[0], "-o", "jsonpath={.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}"); affinity != node {
		t.Errorf("data-db-0's volume is on %q, db-0 on %q", affinity, node)
	}
	describe := k.must("describe", "pvc", "data-db-0")
	for _, want := range []string{"StorageClass:  standard", "Status:        Bound", "Volume:        " + volumes[0], "Finalizers:    [kubernetes.io/pvc-protection]",
		"volume.kubernetes.io/selected-node: " + node, "Used By:       db-0", "ExternalProvisioning", "ProvisioningSucceeded"} {
		if !strings.Contains(describe, want) {
			t.Errorf("describe pvc: no %q in\n%s", want, describe)
		}
	}

	// Claims outlive their StatefulSet; deleted, they take their volumes.
	k.must("delete", "statefulset", "db")
	k.eventually("db's Pods gone", func() bool { return k.must("get", "pods", "-o", "name") == "" })
	k.must("delete", "pvc", "--all", "--timeout=60s")
	k.eventually("volumes deleted", func() bool { return k.must("get", "pv", "-o", "name") == "" })
}

// eventually waits (in real time: kubectl's cluster runs on the wall clock)
// until cond holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 100 {
		if cond() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: never", what)
}

// TestSIM_1_ClientGoInformerController: a controller written with client-go
// (a shared informer of Pods, the way real controllers watch a cluster) runs
// against the simulated cluster unchanged, and sees a Deployment's Pods get
// scheduled, addressed and Ready, as it would on a real one.
func TestSIM_1_ClientGoInformerController(t *testing.T) {
	cs := cgClientset(t, startCluster(t).URL, "test-controller")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	ready := map[string]string{} // pod → node, once Ready with an IP
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(cgNamespace))
	_, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) {
			p := obj.(*corev1.Pod)
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.Status.PodIP != "" {
					mu.Lock()
					ready[p.Name] = p.Spec.NodeName
					mu.Unlock()
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	replicas := int32(4)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api"}, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "api"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: "nginx"}}}},
	}}
	if _, err := cs.AppsV1().Deployments(cgNamespace).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "four pods Ready on the workers", func() bool {
		mu.Lock()
		defer mu.Unlock()
		nodes := map[string]int{}
		for _, n := range ready {
			nodes[n]++
		}
		return len(ready) == 4 && nodes["kubeplay-worker"] == 2 && nodes["kubeplay-worker2"] == 2
	})
	// The Deployment's status follows its ReplicaSet's, which follows the
	// Pods': moments after the Pods are Ready, as in kube.
	var got *appsv1.Deployment
	eventually(t, "the Deployment available", func() bool {
		got, err = cs.AppsV1().Deployments(cgNamespace).Get(ctx, "api", metav1.GetOptions{})
		return err == nil && got.Status.AvailableReplicas == 4
	})
	if got.Annotations["deployment.kubernetes.io/revision"] != "1" {
		t.Errorf("deployment: %+v %v", got.Status, got.Annotations)
	}
}

// TestSIM_4_EventsV1ClientGo: client-go's events library (the
// events.k8s.io/v1 API kube-scheduler records with) writes to the sandbox;
// an events.k8s.io/v1 informer sees its event and the scheduler's, the core
// API shows the same objects, and events.k8s.io's field selectors select them.
func TestSIM_4_EventsV1ClientGo(t *testing.T) {
	cs := cgClientset(t, startCluster(t).URL, "test-recorder")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	seen := map[string]*eventsv1.Event{} // by reason
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(cgNamespace))
	record := func(obj any) {
		e := obj.(*eventsv1.Event)
		mu.Lock()
		seen[e.Reason] = e
		mu.Unlock()
	}
	if _, err := factory.Events().V1().Events().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: record, UpdateFunc: func(_, obj any) { record(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()})
	broadcaster.StartRecordingToSink(ctx.Done())
	defer broadcaster.Shutdown()
	recorder := broadcaster.NewRecorder(scheme.Scheme, "example.com/tester")
	cm, err := cs.CoreV1().ConfigMaps(cgNamespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recorder.Eventf(cm, nil, corev1.EventTypeWarning, "Inspected", "Inspect", "looked at %s", cm.Name)
	recorder.Eventf(cm, nil, corev1.EventTypeWarning, "Inspected", "Inspect", "looked at %s", cm.Name)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := cs.CoreV1().Pods(cgNamespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the recorder's event and the scheduler's, through events.k8s.io/v1", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return seen["Inspected"] != nil && seen["Scheduled"] != nil
	})
	mu.Lock()
	e, s := seen["Inspected"], seen["Scheduled"]
	mu.Unlock()
	if e.Regarding.Name != "watched" || e.Regarding.Kind != "ConfigMap" || e.ReportingController != "example.com/tester" ||
		e.Action != "Inspect" || e.Note != "looked at watched" || e.EventTime.IsZero() {
		t.Errorf("recorded event: %+v", e)
	}
	if s.ReportingController != "default-scheduler" || s.Action != "Binding" || s.Regarding.Name != "p" {
		t.Errorf("scheduler's event: %+v", s)
	}
	core, err := cs.CoreV1().Events(cgNamespace).Get(ctx, e.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if core.InvolvedObject.Name != "watched" || core.Message != "looked at watched" || core.ReportingController != "example.com/tester" {
		t.Errorf("the same event through core/v1: %+v", core)
	}
	list, err := cs.EventsV1().Events(cgNamespace).List(ctx, metav1.ListOptions{FieldSelector: "regarding.name=watched,reason=Inspected"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list by regarding.name: %v %v", list, err)
	}
}
