package e2e

import (
	"bufio"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// kcTable splits kubectl's table output into rows of whitespace-separated cells
// (columns whose cells contain spaces do not occur in these tests).
func kcTable(out string) [][]string {
	var rows [][]string
	for _, line := range kcLines(out) {
		rows = append(rows, strings.Fields(line))
	}
	return rows
}

func TestK8S_ENC_5_KubectlTables(t *testing.T) {
	k := newKubectl(t)
	k.must("create", "-f", k.file("objs.yaml", `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers: [{name: web, image: nginx:1.27}, {name: side, image: busybox}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080, protocol: TCP}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
---
apiVersion: v1
kind: PodTemplate
metadata: {name: web}
template:
  metadata: {labels: {app: web}}
  spec: {containers: [{name: web, image: nginx:1.27}, {name: side, image: busybox}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: nginx
  rules:
  - host: web.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
`))
	k.must("patch", "pod", "web", "--subresource=status", "--type=merge", "-p",
		`{"status":{"phase":"Running","podIP":"10.1.2.3","podIPs":[{"ip":"10.1.2.3"}],"containerStatuses":[`+
			`{"name":"web","ready":true,"restartCount":2,"image":"nginx:1.27","imageID":"","state":{"running":{"startedAt":"2026-01-01T00:00:00Z"}}},`+
			`{"name":"side","ready":false,"restartCount":0,"image":"busybox","imageID":"","state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}}`)

	// kubectl asks for Tables; the columns are the ones a cluster shows.
	pods := kcTable(k.must("get", "pods"))
	wantRows(t, "get pods", pods, [][]string{
		{"NAME", "READY", "STATUS", "RESTARTS", "AGE"},
		{"web", "1/2", "CrashLoopBackOff", "2", `\d+s`},
	})
	wide := kcTable(k.must("get", "pods", "-o", "wide"))
	wantRows(t, "get pods -o wide", wide, [][]string{
		{"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED", "NODE", "READINESS", "GATES"},
		{"web", "1/2", "CrashLoopBackOff", "2", `\d+s`, `10\.1\.2\.3`, "<none>", "<none>", "<none>"},
	})
	svc := kcTable(k.must("get", "svc", "web"))
	wantRows(t, "get svc", svc, [][]string{
		{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT\\(S\\)", "AGE"},
		{"web", "ClusterIP", `10\.\d+\.\d+\.\d+`, "<none>", "80/TCP", `\d+s`},
	})
	templates := kcTable(k.must("get", "podtemplates"))
	wantRows(t, "get podtemplates", templates, [][]string{
		{"NAME", "CONTAINERS", "IMAGES", "POD", "LABELS"},
		{"web", "web,side", `nginx:1\.27,busybox`, "app=web"},
	})
	ing := kcTable(k.must("get", "ing"))
	wantRows(t, "get ing", ing, [][]string{
		{"NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"},
		{"web", "nginx", `web\.example\.com`, "80", `\d+s`},
	})
	// The system PriorityClasses are there from the start, as kube's
	// bootstrap creates them; the server prints the wide column too.
	pcs := kcTable(k.must("get", "pc"))
	wantRows(t, "get pc", pcs, [][]string{
		{"NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"},
		{"system-cluster-critical", "2000000000", "false", `\d+s`, "PreemptLowerPriority"},
		{"system-node-critical", "2000001000", "false", `\d+s`, "PreemptLowerPriority"},
	})
	rcs := kcTable(k.must("get", "runtimeclasses"))
	wantRows(t, "get runtimeclasses", rcs, [][]string{
		{"NAME", "HANDLER", "AGE"},
		{"gvisor", "runsc", `\d+s`},
	})
	// kubectl autoscale writes an autoscaling/v1 HorizontalPodAutoscaler;
	// kube prints it from its v2 form: the CPU target, not yet observed.
	k.must("autoscale", "deployment", "web", "--min=2", "--max=5", "--cpu-percent=70")
	hpas := kcTable(k.must("get", "hpa"))
	wantRows(t, "get hpa", hpas, [][]string{
		{"NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"},
		{"web", "Deployment/web", "cpu:", "<unknown>/70%", "2", "5", "0", `\d+s`}, // TARGETS is "cpu: <unknown>/70%"
	})
	all := k.must("get", "all")
	for _, want := range []string{"pod/web", "service/web", "deployment.apps/web", "READY   UP-TO-DATE   AVAILABLE", "horizontalpodautoscaler.autoscaling/web"} {
		if !strings.Contains(all, want) {
			t.Errorf("get all: no %q in\n%s", want, all)
		}
	}
	for _, r := range k.rec.since(0) {
		if r.Verb == "list" && !strings.Contains(r.Accept, "as=Table") {
			t.Errorf("kubectl listed %s without asking for a Table: Accept %q", r.Path, r.Accept)
		}
	}

	// get -w prints the rows of later changes through Tables too.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := k.command(ctx, "get", "configmaps", "-w")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	time.Sleep(500 * time.Millisecond)
	k.must("create", "configmap", "later", "--from-literal=a=1", "--from-literal=b=2")
	re := regexp.MustCompile(`^later\s+2\s+\d+s$`)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("kubectl get -w ended before the new configmap")
			}
			if re.MatchString(l) {
				return
			}
		case <-ctx.Done():
			t.Fatal("kubectl get -w never printed the new configmap")
		}
	}
}

// wantRows checks table rows against patterns, cell by cell.
func wantRows(t *testing.T, what string, got [][]string, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d: %q", what, len(got), len(want), got)
		return
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("%s: row %d is %q, want %q", what, i, got[i], want[i])
			continue
		}
		for j := range want[i] {
			if !regexp.MustCompile("^" + want[i][j] + "$").MatchString(got[i][j]) {
				t.Errorf("%s: row %d cell %d is %q, want %q", what, i, j, got[i][j], want[i][j])
			}
		}
	}
}
