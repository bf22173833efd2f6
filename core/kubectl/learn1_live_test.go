package kubectl_test

// This file owns the live differential test of the commands that need a
// simulated cluster (LEARN-1): Pods that run, kubelets that serve logs,
// metrics, the controllers' events. The real kubectl 1.32 and this package
// run each command against the same sandbox, one after the other, and
// their normalized transcripts must match. It needs /usr/bin/kubectl.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"kubeplay/core/auth"
	"kubeplay/core/sandbox"
	"kubeplay/core/sim"
)

var learn1LiveCases = []string{
	"describe deploy web",
	"describe rs",
	"describe pods",
	"describe svc web",
	"describe node kubeplay-worker",
	"describe job hello",
	"logs deploy/web",
	"logs job/hello --timestamps",
	"logs -l job-name=hello --prefix --tail=2",
	"logs deploy/web --all-containers --since=1h",
	"logs deploy/web --previous",
	"events --for deploy/web",
	"top pod",
	"top node --sort-by=cpu",
	"wait --for=condition=Available deploy/web",
	"wait --for=condition=Complete job/hello",
	"describe sa default",
	"describe role reader",
	"describe rolebinding read-pods",
	"describe clusterrole view",
	"describe sts db",
	"describe ds agent",
	"describe cronjob tick",
	"describe ingress web",
	"describe pdb web",
	"describe hpa web",
	"describe pvc",
	"describe pv",
	"describe sc",
	"describe priorityclass",
	"describe endpointslices",
	"describe endpoints web",
	"describe quota",
	"describe limitrange",
	"describe ns default",
	"describe nodes",
	"describe netpol web",
	"describe rc legacy",
	"describe ingressclass",
}

func TestLEARN_1_SimulatedClusterMatchesKubectl(t *testing.T) {
	if _, err := os.Stat("/usr/bin/kubectl"); err != nil || testing.Short() {
		t.Skip("needs /usr/bin/kubectl (kubectl 1.32)")
	}
	admin := auth.Admin()
	sb, err := sandbox.New(sandbox.Config{Cluster: sim.Config{Speed: 10}, Tokenless: &admin})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sb)
	defer func() {
		hs.CloseClientConnections()
		hs.Close()
		sb.Close()
	}()
	post := func(path, body string) {
		resp, err := http.Post(hs.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 201 {
			t.Fatalf("POST %s: %d", path, resp.StatusCode)
		}
	}
	post("/apis/apps/v1/namespaces/default/deployments", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},
		"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}}}`)
	post("/api/v1/namespaces/default/services", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}`)
	post("/apis/batch/v1/namespaces/default/jobs", `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"hello"},
		"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"hello","image":"busybox","command":["echo","hello"]}]}}}}`)
	for path, body := range map[string]string{
		"/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles": `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"reader"},
			"rules":[{"apiGroups":[""],"resources":["pods","pods/log"],"verbs":["get","list"]},{"apiGroups":["apps"],"resources":["deployments"],"resourceNames":["web"],"verbs":["get"]}]}`,
		"/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings": `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"read-pods"},
			"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"reader"},"subjects":[{"kind":"User","name":"alice"},{"kind":"ServiceAccount","name":"default","namespace":"default"}]}`,
		"/apis/apps/v1/namespaces/default/statefulsets": `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db"},"spec":{"serviceName":"db","replicas":1,
			"selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"db","image":"postgres"}]}},
			"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}`,
		"/apis/apps/v1/namespaces/default/daemonsets": `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent"},"spec":{"selector":{"matchLabels":{"app":"agent"}},
			"template":{"metadata":{"labels":{"app":"agent"}},"spec":{"containers":[{"name":"agent","image":"busybox"}]}}}}`,
		"/apis/batch/v1/namespaces/default/cronjobs": `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"tick"},"spec":{"schedule":"*/5 * * * *",
			"jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"tick","image":"busybox"}]}}}}}}`,
		"/apis/networking.k8s.io/v1/namespaces/default/ingresses": `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"web"},"spec":{
			"tls":[{"hosts":["web.example"],"secretName":"web-tls"}],"rules":[{"host":"web.example","http":{"paths":[{"path":"/","pathType":"Prefix",
			"backend":{"service":{"name":"web","port":{"number":80}}}}]}}]}}`,
		"/apis/policy/v1/namespaces/default/poddisruptionbudgets": `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}}}`,
		"/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers": `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},"spec":{
			"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"minReplicas":2,"maxReplicas":4,
			"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}]}}`,
		"/api/v1/namespaces/default/resourcequotas": `{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"pods"},"spec":{"hard":{"pods":"20"}}}`,
		"/api/v1/namespaces/default/limitranges":    `{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"mem"},"spec":{"limits":[{"type":"Container","default":{"memory":"256Mi"}}]}}`,
		"/apis/networking.k8s.io/v1/namespaces/default/networkpolicies": `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"web"},"spec":{
			"podSelector":{"matchLabels":{"app":"web"}},"policyTypes":["Ingress"],"ingress":[{"from":[{"podSelector":{"matchLabels":{"role":"fe"}}},{"ipBlock":{"cidr":"10.0.0.0/8"}}],
			"ports":[{"port":80}]}]}}`,
		"/api/v1/namespaces/default/replicationcontrollers": `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"legacy"},"spec":{"replicas":1,
			"selector":{"app":"legacy"},"template":{"metadata":{"labels":{"app":"legacy"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`,
		"/apis/networking.k8s.io/v1/ingressclasses": `{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"nginx"},"spec":{"controller":"k8s.io/ingress-nginx"}}`,
	} {
		post(path, body)
	}
	settled := func() bool {
		resp, err := http.Get(hs.URL + "/apis/apps/v1/namespaces/default/deployments/web")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var d struct {
			Status struct{ AvailableReplicas int } `json:"status"`
		}
		json.NewDecoder(resp.Body).Decode(&d)
		jr, err := http.Get(hs.URL + "/apis/batch/v1/namespaces/default/jobs/hello")
		if err != nil {
			return false
		}
		defer jr.Body.Close()
		var j struct {
			Status struct{ Succeeded int } `json:"status"`
		}
		json.NewDecoder(jr.Body).Decode(&j)
		return d.Status.AvailableReplicas == 2 && j.Status.Succeeded == 1
	}
	for deadline := time.Now().Add(60 * time.Second); !settled(); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the deployment and the job did not settle")
		}
	}
	// The controllers' last events and the metrics' first window.
	time.Sleep(3 * time.Second)
	for _, line := range learn1LiveCases {
		args := strings.Fields(line)
		t.Run(learn1Name(line), func(t *testing.T) {
			want := learn1Real(t, hs.URL, args)
			got := learn1Ours(hs.URL, sb, args)
			if got != want {
				t.Errorf("kubectl %s differs from kubectl 1.32's:\n%s", line, learn1Diff(want, got))
			}
		})
	}
}
