package table

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestK8S_ENC_5_Kubectl serves Tables built by this package to the real kubectl
// (v1.32) from a minimal API server (discovery plus list and watch of pods and
// services in namespace default) and checks what it prints: the output a real
// cluster gives for the same objects, since the cells match kube-apiserver's
// printers (TestK8S_ENC_5_CellsMatchRealPrinters) and kubectl only lays them out.
func TestK8S_ENC_5_Kubectl(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed")
	}
	fixtures := map[string]fixture{}
	for _, fx := range loadFixtures(t) {
		fixtures[fx.cf.Resource] = fx
	}
	items := func(resource string, names ...string) []Item {
		fx := fixtures[resource]
		var out []Item
		for i, c := range fx.cf.Cases {
			for _, n := range names {
				if c.Name == n {
					obj := fx.object(t, i)
					obj["metadata"].(map[string]any)["namespace"] = "default"
					out = append(out, Item{Object: obj, Kind: fx.cf.Kind, APIVersion: fx.cf.APIVersion})
				}
			}
		}
		return out
	}
	pods := items("pods", "running", "image-pull-backoff", "crashloop-with-last-state", "init-running", "sidecar-running", "completed", "terminating", "readiness-gates")
	pods[0].Object["metadata"].(map[string]any)["labels"] = map[string]any{"app": "web", "pod-template-hash": "7d4b9c8f5"}
	services := items("services", "kubernetes", "clusterip-defaults", "headless", "nodeport", "loadbalancer-pending", "loadbalancer-ingress", "externalname")

	var sawAccept []string
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1"}]}`)
	})
	mux.HandleFunc("/apis", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, `{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`)
	})
	mux.HandleFunc("/api/v1", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, `{"kind":"APIResourceList","groupVersion":"v1","resources":[`+
			`{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","list","watch"],"shortNames":["po"],"categories":["all"]},`+
			`{"name":"services","singularName":"service","namespaced":true,"kind":"Service","verbs":["get","list","watch"],"shortNames":["svc"],"categories":["all"]}]}`)
	})
	serve := func(resource string, list []Item) {
		// get: a Table of one row whose metadata holds the object's resourceVersion.
		mux.HandleFunc("/api/v1/namespaces/default/"+resource+"/", func(w http.ResponseWriter, r *http.Request) {
			name := strings.TrimPrefix(r.URL.Path, "/api/v1/namespaces/default/"+resource+"/")
			for _, it := range list {
				if it.Object["metadata"].(map[string]any)["name"] == name {
					b, err := Build(nil, For("", resource), []Item{it}, Options{Version: "v1", ListMeta: ListMeta{ResourceVersion: "42"}, Now: goldenNow})
					if err != nil {
						t.Error(err)
					}
					w.Header().Set("Content-Type", "application/json")
					w.Write(append(b, '\n'))
					return
				}
			}
			http.NotFound(w, r)
		})
		mux.HandleFunc("/api/v1/namespaces/default/"+resource, func(w http.ResponseWriter, r *http.Request) {
			accept := r.Header.Get("Accept")
			sawAccept = append(sawAccept, accept)
			if !strings.Contains(accept, "as=Table") {
				http.Error(w, "this test serves Tables only", http.StatusNotAcceptable)
				return
			}
			include, err := ParseIncludeObject(r.URL.Query().Get("includeObject"))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			p := For("", resource)
			w.Header().Set("Content-Type", "application/json")
			if r.URL.Query().Get("watch") != "true" {
				b, err := Build(nil, p, list, Options{Version: "v1", Include: include, ListMeta: ListMeta{ResourceVersion: "100"}, Now: goldenNow})
				if err != nil {
					t.Error(err)
				}
				w.Write(append(b, '\n'))
				return
			}
			// Two events, then the server ends the watch.
			wt := &Watch{Printer: p, Version: "v1", Include: include}
			for i, typ := range []string{"MODIFIED", "DELETED"} {
				table, err := wt.Append(nil, list[i], goldenNow)
				if err != nil {
					t.Error(err)
				}
				ev, _ := json.Marshal(map[string]any{"type": typ, "object": json.RawMessage(table)})
				w.Write(append(ev, '\n'))
			}
		})
	}
	serve("pods", pods)
	serve("services", services)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: t, cluster: {server: "`+srv.URL+`"}}]
contexts: [{name: t, context: {cluster: t, namespace: default}}]
current-context: t
`), 0o600)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(dir, "cache")}, args...)...)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("kubectl %v: %v\n%s%s", args, err, out.String(), stderr.String())
		}
		return out.String()
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "pods"}, `
NAME                  READY   STATUS             RESTARTS       AGE
web-7d4b9c8f5-abcde   1/1     Running            0              26h
bad-image             0/1     ImagePullBackOff   0              7m30s
crashy                1/2     CrashLoopBackOff   7 (90s ago)    120m
with-init             0/1     Init:1/2           1 (12s ago)    20s
sidecar               2/2     Running            4 (2d2h ago)   400d
job-xyz               0/1     Completed          0              3y
going                 1/1     Terminating        0              60m
gates                 1/1     Running            0              119s
`},
		{[]string{"get", "pods", "-o", "wide"}, `
NAME                  READY   STATUS             RESTARTS       AGE     IP           NODE          NOMINATED NODE   READINESS GATES
web-7d4b9c8f5-abcde   1/1     Running            0              26h     10.244.1.5   kind-worker   <none>           <none>
bad-image             0/1     ImagePullBackOff   0              7m30s   10.0.0.9     n1            <none>           <none>
crashy                1/2     CrashLoopBackOff   7 (90s ago)    120m    10.0.0.10    n1            <none>           <none>
with-init             0/1     Init:1/2           1 (12s ago)    20s     <none>       n2            <none>           <none>
sidecar               2/2     Running            4 (2d2h ago)   400d    fd00::5      n3            <none>           <none>
job-xyz               0/1     Completed          0              3y      <none>       <none>        <none>           <none>
going                 1/1     Terminating        0              60m     10.0.0.3     n1            <none>           <none>
gates                 1/1     Running            0              119s    <none>       n1            n9               1/3
`},
		{[]string{"get", "services"}, `
NAME         TYPE           CLUSTER-IP   EXTERNAL-IP                                                                             PORT(S)                      AGE
kubernetes   ClusterIP      10.96.0.1    <none>                                                                                  443/TCP                      30d
web          ClusterIP      10.96.12.7   <none>                                                                                  80/TCP,53/UDP                2m5s
db           ClusterIP      None         <none>                                                                                  5432/TCP                     4h
np           NodePort       10.96.4.4    <none>                                                                                  80:30080/TCP,443:30443/TCP   2d2h
lb           LoadBalancer   10.96.5.5    <pending>                                                                               80:31000/TCP                 10s
lb2          LoadBalancer   10.96.6.6    198.51.100.7,203.0.113.10,a1b2c3d4e5f6a7b8c9d0-1234567890.us-east-1.elb.amazonaws.com   443:31443/TCP                10m
ext-db       ExternalName   <none>       db.example.com                                                                          <none>                       100d
`},
		{[]string{"get", "all"}, `
NAME                      READY   STATUS             RESTARTS       AGE
pod/web-7d4b9c8f5-abcde   1/1     Running            0              26h
pod/bad-image             0/1     ImagePullBackOff   0              7m30s
pod/crashy                1/2     CrashLoopBackOff   7 (90s ago)    120m
pod/with-init             0/1     Init:1/2           1 (12s ago)    20s
pod/sidecar               2/2     Running            4 (2d2h ago)   400d
pod/job-xyz               0/1     Completed          0              3y
pod/going                 1/1     Terminating        0              60m
pod/gates                 1/1     Running            0              119s

NAME                 TYPE           CLUSTER-IP   EXTERNAL-IP                                                                             PORT(S)                      AGE
service/kubernetes   ClusterIP      10.96.0.1    <none>                                                                                  443/TCP                      30d
service/web          ClusterIP      10.96.12.7   <none>                                                                                  80/TCP,53/UDP                2m5s
service/db           ClusterIP      None         <none>                                                                                  5432/TCP                     4h
service/np           NodePort       10.96.4.4    <none>                                                                                  80:30080/TCP,443:30443/TCP   2d2h
service/lb           LoadBalancer   10.96.5.5    <pending>                                                                               80:31000/TCP                 10s
service/lb2          LoadBalancer   10.96.6.6    198.51.100.7,203.0.113.10,a1b2c3d4e5f6a7b8c9d0-1234567890.us-east-1.elb.amazonaws.com   443:31443/TCP                10m
service/ext-db       ExternalName   <none>       db.example.com                                                                          <none>                       100d
`},
		{[]string{"get", "pods", "-w"}, `
NAME                  READY   STATUS             RESTARTS       AGE
web-7d4b9c8f5-abcde   1/1     Running            0              26h
bad-image             0/1     ImagePullBackOff   0              7m30s
crashy                1/2     CrashLoopBackOff   7 (90s ago)    120m
with-init             0/1     Init:1/2           1 (12s ago)    20s
sidecar               2/2     Running            4 (2d2h ago)   400d
job-xyz               0/1     Completed          0              3y
going                 1/1     Terminating        0              60m
gates                 1/1     Running            0              119s
web-7d4b9c8f5-abcde   1/1     Running            0              26h
bad-image             0/1     ImagePullBackOff   0              7m30s
`},
		{[]string{"get", "pods", "--show-labels", "--sort-by", ".metadata.name"}, `
NAME                  READY   STATUS             RESTARTS       AGE     LABELS
bad-image             0/1     ImagePullBackOff   0              7m30s   <none>
crashy                1/2     CrashLoopBackOff   7 (90s ago)    120m    <none>
gates                 1/1     Running            0              119s    <none>
going                 1/1     Terminating        0              60m     <none>
job-xyz               0/1     Completed          0              3y      <none>
sidecar               2/2     Running            4 (2d2h ago)   400d    <none>
web-7d4b9c8f5-abcde   1/1     Running            0              26h     app=web,pod-template-hash=7d4b9c8f5
with-init             0/1     Init:1/2           1 (12s ago)    20s     <none>
`},
		{[]string{"get", "svc", "-o", "wide", "web"}, `
NAME   TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)         AGE    SELECTOR
web    ClusterIP   10.96.12.7   <none>        80/TCP,53/UDP   2m5s   a.b/c=d,app=web,tier=frontend
`},
	} {
		got := "\n" + run(tc.args...)
		if got != tc.want {
			t.Errorf("kubectl %s:\n got:%s\nwant:%s", strings.Join(tc.args, " "), got, tc.want)
		}
	}
	for _, a := range sawAccept {
		if !strings.HasPrefix(a, "application/json;as=Table;v=v1;g=meta.k8s.io") {
			t.Errorf("kubectl asked for %q", a)
		}
	}
}
