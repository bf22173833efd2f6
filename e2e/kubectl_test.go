package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"kubeplay/core/apiserver"
	"kubeplay/core/object"
	"kubeplay/core/request"
)

// The kubectl tests drive the real kubectl binary (v1.32) against the core over
// loopback HTTP, as a user of `kubeplay --server` would. kubectl speaks JSON here:
// the commands that would send protobuf (`kubectl create configmap`, `kubectl run`)
// are avoided until protobuf is served.

// kcTimeout bounds every kubectl invocation.
const kcTimeout = 20 * time.Second

// kcBinary finds kubectl, skipping the test (loudly) when it is not installed.
func kcBinary(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/kubectl"); err == nil {
		return "/usr/bin/kubectl"
	}
	if p, err := exec.LookPath("kubectl"); err == nil {
		return p
	}
	t.Skip("!!! SKIPPED: kubectl is not installed (looked for /usr/bin/kubectl and $PATH); " +
		"these tests prove kubectl compatibility and did NOT run. Install kubectl v1.32 to run them. !!!")
	return ""
}

// kcRequest is one request as the server saw it.
type kcRequest struct {
	Method string
	Path   string
	Verb   string
	Query  url.Values
	Accept string
}

// kcRecorder records every request of kubectl's that reaches the router (not
// those of the core's own controllers).
type kcRecorder struct {
	mu   sync.Mutex
	reqs []kcRequest
}

func (rec *kcRecorder) filter(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.UserAgent(), "kubectl") {
			next.ServeHTTP(w, r)
			return
		}
		req := kcRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Accept: r.Header.Get("Accept")}
		if info := request.RequestInfoFrom(r.Context()); info != nil {
			req.Verb = info.Verb
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, req)
		rec.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// since returns the requests recorded after the first n.
func (rec *kcRecorder) since(n int) []kcRequest {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]kcRequest(nil), rec.reqs[n:]...)
}

func (rec *kcRecorder) len() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.reqs)
}

// kcEnv is a server with a kubectl pointed at it.
type kcEnv struct {
	t          *testing.T
	bin        string
	kubeconfig string
	home       string
	rec        *kcRecorder
}

// newKubectl starts a fresh server (recording its requests) and a kubeconfig for it.
func newKubectl(t *testing.T) *kcEnv {
	t.Helper()
	bin := kcBinary(t)
	rec := &kcRecorder{}
	hs, _ := startServer(t, apiserver.Config{Filters: []apiserver.Filter{rec.filter}})
	return &kcEnv{t: t, bin: bin, kubeconfig: writeKubeconfig(t, hs.URL), home: t.TempDir(), rec: rec}
}

// command builds a kubectl command isolated from the user's configuration and
// discovery cache.
func (k *kcEnv) command(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"--kubeconfig=" + k.kubeconfig, "--cache-dir=" + filepath.Join(k.home, "cache")}, args...)
	cmd := exec.CommandContext(ctx, k.bin, full...)
	env := []string{"HOME=" + k.home, "KUBECONFIG=" + k.kubeconfig}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "HOME=") && !strings.HasPrefix(e, "KUBECONFIG=") && !strings.HasPrefix(e, "KUBECTL_") {
			env = append(env, e)
		}
	}
	cmd.Env = env
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// run runs kubectl to completion, with stdin when given.
func (k *kcEnv) run(stdin string, args ...string) (stdout, stderr string, err error) {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), kcTimeout)
	defer cancel()
	stdout, stderr, err = k.runIn(ctx, stdin, args...)
	if ctx.Err() != nil {
		k.t.Fatalf("kubectl %s: timed out after %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), kcTimeout, stdout, stderr)
	}
	return stdout, stderr, err
}

// runIn runs kubectl to completion within ctx, with stdin when given; safe
// from any goroutine.
func (k *kcEnv) runIn(ctx context.Context, stdin string, args ...string) (stdout, stderr string, err error) {
	cmd := k.command(ctx, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// must runs kubectl and fails the test unless it succeeds.
func (k *kcEnv) must(args ...string) string {
	k.t.Helper()
	out, errOut, err := k.run("", args...)
	if err != nil {
		k.t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// fails runs kubectl, fails the test if it succeeds, and returns its stderr.
func (k *kcEnv) fails(args ...string) string {
	k.t.Helper()
	out, errOut, err := k.run("", args...)
	if err == nil {
		k.t.Fatalf("kubectl %s succeeded, want an error\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), out, errOut)
	}
	return errOut
}

// file writes content to a file in the test's directory and returns its path.
func (k *kcEnv) file(name, content string) string {
	k.t.Helper()
	p := filepath.Join(k.home, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		k.t.Fatal(err)
	}
	return p
}

// getJSON runs kubectl get ... -o json and decodes the answer.
func (k *kcEnv) getJSON(args ...string) map[string]any {
	k.t.Helper()
	out := k.must(append(append([]string{"get"}, args...), "-o", "json")...)
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		k.t.Fatalf("kubectl get %s -o json: %v\n%s", strings.Join(args, " "), err, out)
	}
	return obj
}

// seedConfigMaps creates configmaps cm-0..cm-(n-1) in ns (and ns first, when
// createNS) with one kubectl create -f of a multi-document file; cm-i has labels
// idx=i and parity=even|odd.
func (k *kcEnv) seedConfigMaps(ns string, n int, createNS bool) []string {
	k.t.Helper()
	var docs, names []string
	if createNS {
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", ns))
	}
	for i := range n {
		parity := "even"
		if i%2 == 1 {
			parity = "odd"
		}
		name := fmt.Sprintf("cm-%d", i)
		names = append(names, name)
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: %s\n  labels:\n    idx: %q\n    parity: %s\ndata:\n  i: %q\n",
			name, ns, strconv.Itoa(i), parity, strconv.Itoa(i)))
	}
	k.must("create", "-f", k.file("seed-"+ns+".yaml", strings.Join(docs, "---\n")))
	return names
}

// lines splits output into its non-empty lines.
func kcLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func kcDigStr(v any, path ...string) string {
	s, _ := object.Path(v, path...).(string)
	return s
}

// itemNames returns namespace/name of a list's items, sorted.
func kcItemNames(list map[string]any) []string {
	items, _ := list["items"].([]any)
	var out []string
	for _, it := range items {
		ns, name := kcDigStr(it, "metadata", "namespace"), kcDigStr(it, "metadata", "name")
		if ns != "" {
			name = ns + "/" + name
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func TestK8S_URI_2_KubectlAPIResources(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)

	type row struct{ shortNames, apiVersion, namespaced, kind, verbs string }
	want := map[string]row{
		"namespaces":                 {"ns", "v1", "false", "Namespace", "create,delete,get,list,patch,update,watch"},
		"pods":                       {"po", "v1", "true", "Pod", "create,delete,deletecollection,get,list,patch,update,watch"},
		"configmaps":                 {"cm", "v1", "true", "ConfigMap", "create,delete,deletecollection,get,list,patch,update,watch"},
		"secrets":                    {"", "v1", "true", "Secret", "create,delete,deletecollection,get,list,patch,update,watch"},
		"services":                   {"svc", "v1", "true", "Service", "create,delete,deletecollection,get,list,patch,update,watch"},
		"endpoints":                  {"ep", "v1", "true", "Endpoints", "create,delete,deletecollection,get,list,patch,update,watch"},
		"nodes":                      {"no", "v1", "false", "Node", "create,delete,deletecollection,get,list,patch,update,watch"},
		"events":                     {"ev", "v1", "true", "Event", "create,delete,deletecollection,get,list,patch,update,watch"},
		"serviceaccounts":            {"sa", "v1", "true", "ServiceAccount", "create,delete,deletecollection,get,list,patch,update,watch"},
		"deployments":                {"deploy", "apps/v1", "true", "Deployment", "create,delete,deletecollection,get,list,patch,update,watch"},
		"replicasets":                {"rs", "apps/v1", "true", "ReplicaSet", "create,delete,deletecollection,get,list,patch,update,watch"},
		"statefulsets":               {"sts", "apps/v1", "true", "StatefulSet", "create,delete,deletecollection,get,list,patch,update,watch"},
		"leases":                     {"", "coordination.k8s.io/v1", "true", "Lease", "create,delete,deletecollection,get,list,patch,update,watch"},
		"persistentvolumes":          {"pv", "v1", "false", "PersistentVolume", "create,delete,deletecollection,get,list,patch,update,watch"},
		"storageclasses":             {"sc", "storage.k8s.io/v1", "false", "StorageClass", "create,delete,deletecollection,get,list,patch,update,watch"},
		"csidrivers":                 {"", "storage.k8s.io/v1", "false", "CSIDriver", "create,delete,deletecollection,get,list,patch,update,watch"},
		"csinodes":                   {"", "storage.k8s.io/v1", "false", "CSINode", "create,delete,deletecollection,get,list,patch,update,watch"},
		"volumeattachments":          {"", "storage.k8s.io/v1", "false", "VolumeAttachment", "create,delete,deletecollection,get,list,patch,update,watch"},
		"certificatesigningrequests": {"csr", "certificates.k8s.io/v1", "false", "CertificateSigningRequest", "create,delete,deletecollection,get,list,patch,update,watch"},
		"csistoragecapacities":       {"", "storage.k8s.io/v1", "true", "CSIStorageCapacity", "create,delete,deletecollection,get,list,patch,update,watch"},
		"resourcequotas":             {"quota", "v1", "true", "ResourceQuota", "create,delete,deletecollection,get,list,patch,update,watch"},
		"limitranges":                {"limits", "v1", "true", "LimitRange", "create,delete,deletecollection,get,list,patch,update,watch"},
		"podtemplates":               {"", "v1", "true", "PodTemplate", "create,delete,deletecollection,get,list,patch,update,watch"},
		"networkpolicies":            {"netpol", "networking.k8s.io/v1", "true", "NetworkPolicy", "create,delete,deletecollection,get,list,patch,update,watch"},
		"ingresses":                  {"ing", "networking.k8s.io/v1", "true", "Ingress", "create,delete,deletecollection,get,list,patch,update,watch"},
		"ingressclasses":             {"", "networking.k8s.io/v1", "false", "IngressClass", "create,delete,deletecollection,get,list,patch,update,watch"},
		"priorityclasses":            {"pc", "scheduling.k8s.io/v1", "false", "PriorityClass", "create,delete,deletecollection,get,list,patch,update,watch"},
		"runtimeclasses":             {"", "node.k8s.io/v1", "false", "RuntimeClass", "create,delete,deletecollection,get,list,patch,update,watch"},
		"horizontalpodautoscalers":   {"hpa", "autoscaling/v2", "true", "HorizontalPodAutoscaler", "create,delete,deletecollection,get,list,patch,update,watch"},
	}

	// The table is aligned by a tabwriter and SHORTNAMES may be blank, so cut the
	// rows at the header's column offsets.
	out := k.must("api-resources", "-o", "wide")
	ls := strings.Split(strings.TrimRight(out, "\n"), "\n")
	header := ls[0]
	cols := []string{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", "VERBS", "CATEGORIES"}
	offs := make([]int, len(cols))
	for i, c := range cols {
		offs[i] = strings.Index(header, c)
		if offs[i] < 0 || (i > 0 && offs[i] <= offs[i-1]) {
			t.Fatalf("api-resources header %q lacks column %s in order", header, c)
		}
	}
	cell := func(l string, i int) string {
		if offs[i] >= len(l) {
			return ""
		}
		end := len(l)
		if i+1 < len(offs) && offs[i+1] < end {
			end = offs[i+1]
		}
		return strings.TrimSpace(l[offs[i]:end])
	}
	got := map[string]row{} // by name and apiVersion: events are served by two groups, as in kube
	for _, l := range ls[1:] {
		key := cell(l, 0) + " " + cell(l, 2)
		if _, dup := got[key]; dup {
			t.Errorf("api-resources lists %s twice", key)
		}
		got[key] = row{cell(l, 1), cell(l, 2), cell(l, 3), cell(l, 4), cell(l, 5)}
	}
	want["events (events.k8s.io)"] = row{"ev", "events.k8s.io/v1", "true", "Event", "create,delete,deletecollection,get,list,patch,update,watch"}
	for name, w := range want {
		name, _, _ = strings.Cut(name, " ")
		g, ok := got[name+" "+w.apiVersion]
		switch {
		case !ok:
			t.Errorf("api-resources lacks %s\n%s", name, out)
		case g != w:
			t.Errorf("api-resources %s = %+v, want %+v", name, g, w)
		}
	}

	// Filters are applied by kubectl to discovery: group, scope, verbs.
	if got := kcLines(k.must("api-resources", "--api-group=apps", "-o", "name")); !slices.Equal(got, []string{"controllerrevisions.apps", "daemonsets.apps", "deployments.apps", "replicasets.apps", "statefulsets.apps"}) {
		t.Errorf("api-resources --api-group=apps -o name = %q", got)
	}
	clusterScoped := kcLines(k.must("api-resources", "--namespaced=false", "-o", "name"))
	for _, n := range []string{"namespaces", "nodes", "persistentvolumes", "storageclasses.storage.k8s.io"} {
		if !slices.Contains(clusterScoped, n) {
			t.Errorf("api-resources --namespaced=false lacks %s: %q", n, clusterScoped)
		}
	}
	if slices.Contains(clusterScoped, "configmaps") {
		t.Errorf("api-resources --namespaced=false lists configmaps: %q", clusterScoped)
	}
	if dc := kcLines(k.must("api-resources", "--verbs=deletecollection", "-o", "name")); slices.Contains(dc, "namespaces") || !slices.Contains(dc, "pods") {
		t.Errorf("api-resources --verbs=deletecollection = %q: namespaces has no deletecollection, pods has", dc)
	}

	versions := kcLines(k.must("api-versions"))
	for _, gv := range []string{"v1", "apps/v1", "coordination.k8s.io/v1"} {
		if !slices.Contains(versions, gv) {
			t.Errorf("api-versions lacks %s: %q", gv, versions)
		}
	}
}

const kcManifestYAML = `# a namespace, a configmap and a deployment in one file
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  labels:
    team: a
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: team-a
  labels:
    app: web
data:
  color: blue
  size: "3"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: team-a
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
`

const kcManifestJSON = `{
  "apiVersion": "v1",
  "kind": "ConfigMap",
  "metadata": {"name": "from-json", "namespace": "team-a", "labels": {"app": "api"}},
  "data": {"greeting": "hello"}
}
`

func TestK8S_VERB_1_KubectlCreateFromFiles(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	yamlFile := k.file("manifest.yaml", kcManifestYAML)
	jsonFile := k.file("configmap.json", kcManifestJSON)

	out := k.must("create", "-f", yamlFile)
	if want := []string{"namespace/team-a created", "configmap/settings created", "deployment.apps/web created"}; !slices.Equal(kcLines(out), want) {
		t.Errorf("create -f manifest.yaml printed %q, want %q", kcLines(out), want)
	}
	if out := k.must("create", "-f", jsonFile); strings.TrimSpace(out) != "configmap/from-json created" {
		t.Errorf("create -f configmap.json printed %q", out)
	}
	// A JSON Deployment from stdin, into the kubeconfig's namespace.
	stdinDeploy := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"stdin-web"},"spec":{"selector":{"matchLabels":{"app":"s"}},"template":{"metadata":{"labels":{"app":"s"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`
	if out, errOut, err := k.run(stdinDeploy, "create", "-f", "-"); err != nil || strings.TrimSpace(out) != "deployment.apps/stdin-web created" {
		t.Errorf("create -f - = %q, %v\n%s", out, err, errOut)
	}

	ns := k.getJSON("namespace", "team-a")
	if kcDigStr(ns, "kind") != "Namespace" || kcDigStr(ns, "status", "phase") != "Active" || kcDigStr(ns, "metadata", "labels", "team") != "a" {
		t.Errorf("namespace team-a = %v", ns)
	}
	cm := k.getJSON("configmap", "settings", "-n", "team-a")
	if kcDigStr(cm, "data", "color") != "blue" || kcDigStr(cm, "data", "size") != "3" || kcDigStr(cm, "metadata", "labels", "app") != "web" {
		t.Errorf("configmap settings = %v", cm)
	}
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		if kcDigStr(cm, "metadata", f) == "" {
			t.Errorf("configmap settings has no metadata.%s: %v", f, cm)
		}
	}
	dep := k.getJSON("deployment.apps", "web", "-n", "team-a")
	if kcDigStr(dep, "apiVersion") != "apps/v1" || kcDigStr(dep, "kind") != "Deployment" || object.Path(dep, "spec", "replicas") != float64(2) {
		t.Errorf("deployment web = %v", dep)
	}
	if g, _ := object.Path(dep, "metadata", "generation").(float64); g != 1 {
		t.Errorf("deployment web has metadata.generation %v, want 1", object.Path(dep, "metadata", "generation"))
	}
	if got := kcDigStr(k.getJSON("deploy", "stdin-web"), "metadata", "namespace"); got != "default" {
		t.Errorf("deployment from stdin landed in namespace %q, want the context's default", got)
	}
	if got := kcDigStr(k.getJSON("cm", "from-json", "-n", "team-a"), "data", "greeting"); got != "hello" {
		t.Errorf("configmap from-json data.greeting = %q", got)
	}

	// Creating again fails object by object with kube's AlreadyExists.
	errOut := k.fails("create", "-f", yamlFile)
	for _, want := range []string{
		`Error from server (AlreadyExists): error when creating "` + yamlFile + `": namespaces "team-a" already exists`,
		`Error from server (AlreadyExists): error when creating "` + yamlFile + `": configmaps "settings" already exists`,
		`Error from server (AlreadyExists): error when creating "` + yamlFile + `": deployments.apps "web" already exists`,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("create -f again: stderr lacks %q:\n%s", want, errOut)
		}
	}

	// Into a namespace that does not exist: NotFound for the namespace.
	missing := k.file("missing.json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"nowhere"}}`)
	if errOut := k.fails("create", "-f", missing); !strings.Contains(errOut, `Error from server (NotFound): error when creating "`+missing+`": namespaces "nowhere" not found`) {
		t.Errorf("create into a missing namespace: %s", errOut)
	}
}

func TestK8S_ENC_7_KubectlGetOutputFormats(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	k.must("create", "-f", k.file("manifest.yaml", kcManifestYAML), "-f", k.file("cm.json", kcManifestJSON))

	// -o json: the list comes back as kubectl's List of typed items.
	list := k.getJSON("configmaps", "-n", "team-a")
	if got := kcItemNames(list); !slices.Equal(got, []string{"team-a/from-json", "team-a/settings"}) {
		t.Errorf("get configmaps -o json items = %q", got)
	}
	for _, it := range list["items"].([]any) {
		if kcDigStr(it, "kind") != "ConfigMap" || kcDigStr(it, "apiVersion") != "v1" {
			t.Errorf("list item lacks its type: %v", it)
		}
	}

	// -o yaml: the same objects.
	var fromYAML map[string]any
	out := k.must("get", "configmap", "settings", "-n", "team-a", "-o", "yaml")
	if err := yaml.Unmarshal([]byte(out), &fromYAML); err != nil {
		t.Fatalf("get -o yaml: %v\n%s", err, out)
	}
	fromJSON := k.getJSON("configmap", "settings", "-n", "team-a")
	if a, b := kcMustJSON(t, fromYAML), kcMustJSON(t, fromJSON); a != b {
		t.Errorf("get -o yaml and -o json differ:\n%s\n%s", a, b)
	}
	out = k.must("get", "deployments", "-n", "team-a", "-o", "yaml")
	var yamlList map[string]any
	if err := yaml.Unmarshal([]byte(out), &yamlList); err != nil {
		t.Fatalf("get deployments -o yaml: %v\n%s", err, out)
	}
	if got := kcItemNames(yamlList); !slices.Equal(got, []string{"team-a/web"}) {
		t.Errorf("get deployments -o yaml items = %q", got)
	}

	// -o name: resource/name, with the group for non-core kinds.
	if got := kcLines(k.must("get", "cm,deploy", "-n", "team-a", "-o", "name")); !slices.Equal(got,
		[]string{"configmap/from-json", "configmap/settings", "deployment.apps/web"}) {
		t.Errorf("get cm,deploy -o name = %q", got)
	}
	if got := strings.TrimSpace(k.must("get", "ns", "team-a", "-o", "name")); got != "namespace/team-a" {
		t.Errorf("get ns team-a -o name = %q", got)
	}

	// The default table output (server-side Table or kubectl's fallback) names them.
	table := k.must("get", "configmaps", "-n", "team-a")
	if ls := kcLines(table); len(ls) != 3 || !strings.HasPrefix(ls[0], "NAME") ||
		!strings.HasPrefix(ls[1], "from-json") || !strings.HasPrefix(ls[2], "settings") {
		t.Errorf("get configmaps table:\n%s", table)
	}

	// jsonpath reads fields of the served objects.
	if got := k.must("get", "deploy", "web", "-n", "team-a", "-o", "jsonpath={.spec.template.spec.containers[0].image}"); got != "nginx:1.27" {
		t.Errorf("jsonpath image = %q", got)
	}

	// A missing object: kube's NotFound through kubectl.
	if errOut := k.fails("get", "cm", "nope", "-n", "team-a"); !strings.Contains(errOut, `Error from server (NotFound): configmaps "nope" not found`) {
		t.Errorf("get missing configmap: %s", errOut)
	}
}

func kcMustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestK8S_CHUNK_1_KubectlChunkSize(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	names := k.seedConfigMaps("chunky", 7, true)
	k.seedConfigMaps("other", 2, true)

	check := func(what string, args []string, wantNames []string, path string, wantPages int) {
		t.Helper()
		n := k.rec.len()
		got := kcLines(k.must(args...))
		if !slices.Equal(got, wantNames) {
			t.Errorf("%s printed %q, want %q", what, got, wantNames)
		}
		var lists []kcRequest
		for _, r := range k.rec.since(n) {
			if r.Verb == "list" && r.Path == path {
				lists = append(lists, r)
			}
		}
		if len(lists) != wantPages {
			t.Fatalf("%s made %d list requests to %s, want %d: %+v", what, len(lists), path, wantPages, lists)
		}
		var prevContinue []string
		for i, r := range lists {
			if got := r.Query.Get("limit"); got != "2" {
				t.Errorf("%s page %d: limit=%q, want 2", what, i, got)
			}
			c := r.Query.Get("continue")
			if (i == 0) != (c == "") {
				t.Errorf("%s page %d: continue=%q", what, i, c)
			}
			if c != "" && slices.Contains(prevContinue, c) {
				t.Errorf("%s page %d reuses continue token %q", what, i, c)
			}
			prevContinue = append(prevContinue, c)
		}
	}

	var wantNames []string
	for _, n := range names {
		wantNames = append(wantNames, "configmap/"+n)
	}
	check("get cm -n chunky --chunk-size=2 -o name",
		[]string{"get", "configmaps", "-n", "chunky", "--chunk-size=2", "-o", "name"},
		wantNames, "/api/v1/namespaces/chunky/configmaps", 4)

	// Table output pages the same way.
	n := k.rec.len()
	table := kcLines(k.must("get", "configmaps", "-n", "chunky", "--chunk-size=2"))
	if len(table) != 1+len(names) {
		t.Errorf("get --chunk-size=2 table has %d lines, want header + %d:\n%s", len(table), len(names), strings.Join(table, "\n"))
	}
	for _, r := range k.rec.since(n) {
		if r.Verb == "list" && r.Query.Get("limit") != "2" {
			t.Errorf("table list request without limit=2: %+v", r)
		}
	}

	// All namespaces: 7 + 2, plus nothing else (kube-system etc. hold no configmaps).
	var all []string
	for _, n := range names {
		all = append(all, "chunky/"+n)
	}
	all = append(all, "other/cm-0", "other/cm-1")
	n = k.rec.len()
	got := kcLines(k.must("get", "configmaps", "-A", "--chunk-size=2", "-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name", "--no-headers"))
	var gotNames []string
	for _, l := range got {
		f := strings.Fields(l)
		gotNames = append(gotNames, strings.Join(f, "/"))
	}
	sort.Strings(gotNames)
	if !slices.Equal(gotNames, all) {
		t.Errorf("get -A --chunk-size=2 = %q, want %q", gotNames, all)
	}
	pages := 0
	for _, r := range k.rec.since(n) {
		if r.Verb == "list" && r.Path == "/api/v1/configmaps" {
			pages++
		}
	}
	if pages != 5 {
		t.Errorf("get -A --chunk-size=2 over 9 configmaps made %d list requests, want 5", pages)
	}

	// Without --chunk-size kubectl asks for pages of 500.
	n = k.rec.len()
	k.must("get", "configmaps", "-n", "chunky", "-o", "name")
	for _, r := range k.rec.since(n) {
		if r.Verb == "list" && r.Query.Get("limit") != "500" {
			t.Errorf("default kubectl get: limit=%q, want 500", r.Query.Get("limit"))
		}
	}
}

func TestK8S_URI_1_KubectlAllNamespaces(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	k.seedConfigMaps("ns-a", 2, true)
	k.seedConfigMaps("ns-b", 1, true)
	k.seedConfigMaps("default", 1, false)

	n := k.rec.len()
	list := k.getJSON("configmaps", "-A")
	if got, want := kcItemNames(list), []string{"default/cm-0", "ns-a/cm-0", "ns-a/cm-1", "ns-b/cm-0"}; !slices.Equal(got, want) {
		t.Errorf("get configmaps -A = %q, want %q", got, want)
	}
	paths := map[string]bool{}
	for _, r := range k.rec.since(n) {
		if r.Verb == "list" {
			paths[r.Path] = true
		}
	}
	if !paths["/api/v1/configmaps"] || len(paths) != 1 {
		t.Errorf("get -A listed %v, want only /api/v1/configmaps", paths)
	}

	table := kcLines(k.must("get", "configmaps", "--all-namespaces"))
	if len(table) != 5 || !strings.HasPrefix(table[0], "NAMESPACE") {
		t.Errorf("get --all-namespaces table:\n%s", strings.Join(table, "\n"))
	}

	// The namespaces themselves, cluster-scoped: the system ones and ours.
	nsList := kcLines(k.must("get", "namespaces", "-o", "name"))
	for _, want := range []string{"namespace/default", "namespace/kube-system", "namespace/kube-public", "namespace/kube-node-lease", "namespace/ns-a", "namespace/ns-b"} {
		if !slices.Contains(nsList, want) {
			t.Errorf("get namespaces lacks %s: %q", want, nsList)
		}
	}

	// -n scopes the list to one namespace.
	if got := kcLines(k.must("get", "cm", "-n", "ns-b", "-o", "name")); !slices.Equal(got, []string{"configmap/cm-0"}) {
		t.Errorf("get cm -n ns-b = %q", got)
	}
	if out := k.must("get", "cm", "-n", "empty-ns"); out != "" {
		t.Errorf("get cm in a namespace without configmaps printed %q on stdout", out)
	}
}

func TestK8S_WATCH_6_KubectlSelectors(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	k.seedConfigMaps("sel", 6, true)
	k.seedConfigMaps("default", 2, false)

	names := func(args ...string) []string {
		t.Helper()
		return kcItemNames(k.getJSON(args...))
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"cm", "-n", "sel", "-l", "parity=even"}, []string{"sel/cm-0", "sel/cm-2", "sel/cm-4"}},
		{[]string{"cm", "-n", "sel", "-l", "parity!=even"}, []string{"sel/cm-1", "sel/cm-3", "sel/cm-5"}},
		{[]string{"cm", "-n", "sel", "-l", "idx in (1,4,9)"}, []string{"sel/cm-1", "sel/cm-4"}},
		{[]string{"cm", "-n", "sel", "-l", "idx notin (1,4),parity=odd"}, []string{"sel/cm-3", "sel/cm-5"}},
		{[]string{"cm", "-n", "sel", "-l", "idx"}, []string{"sel/cm-0", "sel/cm-1", "sel/cm-2", "sel/cm-3", "sel/cm-4", "sel/cm-5"}},
		{[]string{"cm", "-n", "sel", "-l", "!idx"}, nil},
		{[]string{"cm", "-n", "sel", "-l", "idx>3"}, []string{"sel/cm-4", "sel/cm-5"}},
		{[]string{"cm", "-A", "-l", "idx=1"}, []string{"default/cm-1", "sel/cm-1"}},
		{[]string{"cm", "-n", "sel", "--field-selector", "metadata.name=cm-3"}, []string{"sel/cm-3"}},
		{[]string{"cm", "-n", "sel", "--field-selector", "metadata.name!=cm-3,metadata.name!=cm-0"}, []string{"sel/cm-1", "sel/cm-2", "sel/cm-4", "sel/cm-5"}},
		{[]string{"cm", "-A", "--field-selector", "metadata.namespace=default"}, []string{"default/cm-0", "default/cm-1"}},
		{[]string{"cm", "-A", "--field-selector", "metadata.name=cm-1", "-l", "parity=odd"}, []string{"default/cm-1", "sel/cm-1"}},
		{[]string{"ns", "--field-selector", "metadata.name=sel"}, []string{"sel"}},
		{[]string{"ns", "--field-selector", "status.phase=Active", "-l", "kubernetes.io/metadata.name=sel"}, []string{"sel"}},
		// Selectors combine with paging.
		{[]string{"cm", "-n", "sel", "-l", "parity=odd", "--chunk-size=1"}, []string{"sel/cm-1", "sel/cm-3", "sel/cm-5"}},
	}
	for _, c := range cases {
		if got := names(c.args...); !slices.Equal(got, c.want) {
			t.Errorf("get %s = %q, want %q", strings.Join(c.args, " "), got, c.want)
		}
	}

	// The selectors reach the server as query parameters.
	n := k.rec.len()
	k.must("get", "cm", "-n", "sel", "-l", "parity=odd", "--field-selector", "metadata.name=cm-1", "-o", "name")
	var saw bool
	for _, r := range k.rec.since(n) {
		if r.Verb == "list" && r.Query.Get("labelSelector") == "parity=odd" && r.Query.Get("fieldSelector") == "metadata.name=cm-1" {
			saw = true
		}
	}
	if !saw {
		t.Errorf("no list request carried labelSelector and fieldSelector: %+v", k.rec.since(n))
	}

	// Unsupported fields and malformed selectors are the server's 400s.
	if errOut := k.fails("get", "cm", "-n", "sel", "--field-selector", "spec.nodeName=x"); !strings.Contains(errOut, "Error from server (BadRequest)") ||
		!strings.Contains(errOut, `"spec.nodeName" is not a known field selector: only "metadata.name", "metadata.namespace"`) {
		t.Errorf("unsupported field selector: %s", errOut)
	}
	if errOut := k.fails("get", "cm", "-n", "sel", "-l", "idx in (1"); !strings.Contains(errOut, "Error from server (BadRequest)") {
		t.Errorf("malformed label selector: %s", errOut)
	}
}

// kcStream is a long-running kubectl whose stdout is read line by line.
type kcStream struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	lines  chan string
	stderr *strings.Builder
	done   chan struct{}
}

func (k *kcEnv) start(args ...string) *kcStream {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), kcTimeout)
	cmd := k.command(ctx, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		k.t.Fatal(err)
	}
	s := &kcStream{cmd: cmd, cancel: cancel, lines: make(chan string, 1024), stderr: &strings.Builder{}, done: make(chan struct{})}
	cmd.Stderr = &kcSyncWriter{w: s.stderr}
	if err := cmd.Start(); err != nil {
		cancel()
		k.t.Fatal(err)
	}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	k.t.Cleanup(s.stop)
	return s
}

// stop kills kubectl and waits for it.
func (s *kcStream) stop() {
	s.cancel()
	<-s.done
}

// until reads lines until match accepts one, failing after a deadline. It returns
// every line read.
func (s *kcStream) until(t *testing.T, what string, match func(string) bool) []string {
	t.Helper()
	var seen []string
	deadline := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("kubectl exited before %s; stdout:\n%s\nstderr:\n%s", what, strings.Join(seen, "\n"), s.errText())
			}
			seen = append(seen, l)
			if match(l) {
				return seen
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s; stdout so far:\n%s\nstderr:\n%s", what, strings.Join(seen, "\n"), s.errText())
		}
	}
}

func (s *kcStream) errText() string {
	if w, ok := s.cmd.Stderr.(*kcSyncWriter); ok {
		return w.String()
	}
	return ""
}

type kcSyncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (w *kcSyncWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(b)
}

func (w *kcSyncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.String()
}

func TestK8S_WATCH_1_KubectlGetWatch(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	k.seedConfigMaps("watched", 3, true)

	// -o name: the listed objects first, then the new one.
	w := k.start("get", "configmaps", "-n", "watched", "-w", "-o", "name")
	seen := w.until(t, "the initial list", func(l string) bool { return l == "configmap/cm-2" })
	if want := []string{"configmap/cm-0", "configmap/cm-1", "configmap/cm-2"}; !slices.Equal(seen, want) {
		t.Errorf("initial list printed %q, want %q", seen, want)
	}
	k.must("create", "-f", k.file("late.json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late","namespace":"watched"}}`))
	w.until(t, "configmap/late from the watch", func(l string) bool { return l == "configmap/late" })
	w.stop()

	// The watch request starts at the list's resourceVersion, as kube clients do.
	var watches []kcRequest
	for _, r := range k.rec.since(0) {
		if r.Verb == "watch" && r.Path == "/api/v1/namespaces/watched/configmaps" {
			watches = append(watches, r)
		}
	}
	if len(watches) == 0 || watches[0].Query.Get("resourceVersion") == "" {
		t.Errorf("watch requests = %+v, want one from the list's resourceVersion", watches)
	}

	// --output-watch-events -o json: typed events, including DELETED, for one name.
	ev := k.start("get", "configmap", "late", "-n", "watched", "-w", "--output-watch-events", "-o", "json")
	events := kcEvents(ev.lines)
	if e := events.next(t); e.Type != "ADDED" || kcDigStr(e.Object, "metadata", "name") != "late" {
		t.Fatalf("first event = %s %v, want ADDED late", e.Type, e.Object)
	}
	k.must("delete", "configmap", "late", "-n", "watched")
	if e := events.next(t); e.Type != "DELETED" || kcDigStr(e.Object, "metadata", "name") != "late" || kcDigStr(e.Object, "kind") != "ConfigMap" {
		t.Fatalf("event after delete = %s %v, want DELETED late", e.Type, e.Object)
	}
	ev.stop()
}

// kcEvent is one event printed by kubectl get -w --output-watch-events -o json.
type kcEvent struct {
	Type   string         `json:"type"`
	Object map[string]any `json:"object"`
}

// kcEventReader decodes the JSON documents kubectl prints, one per event.
type kcEventReader struct {
	dec *json.Decoder
	ch  chan kcEvent
	err chan error
}

func kcEvents(ls <-chan string) *kcEventReader {
	pr, pw := io.Pipe()
	go func() {
		for l := range ls {
			if _, err := io.WriteString(pw, l+"\n"); err != nil {
				return
			}
		}
		pw.Close()
	}()
	r := &kcEventReader{dec: json.NewDecoder(pr), ch: make(chan kcEvent, 1024), err: make(chan error, 1)}
	go func() {
		for {
			var e kcEvent
			if err := r.dec.Decode(&e); err != nil {
				r.err <- err
				pr.Close()
				return
			}
			r.ch <- e
		}
	}()
	return r
}

func (r *kcEventReader) next(t *testing.T) kcEvent {
	t.Helper()
	select {
	case e := <-r.ch:
		return e
	case err := <-r.err:
		if errors.Is(err, io.EOF) {
			t.Fatal("kubectl's event stream ended")
		}
		t.Fatalf("decoding kubectl's events: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for a watch event from kubectl")
	}
	return kcEvent{}
}

func TestK8S_VERB_1_KubectlDelete(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	k.seedConfigMaps("del", 6, true)
	yamlFile := k.file("manifest.yaml", kcManifestYAML)
	k.must("create", "-f", yamlFile)

	// By name.
	if out := k.must("delete", "configmap", "cm-0", "-n", "del"); strings.TrimSpace(out) != `configmap "cm-0" deleted` {
		t.Errorf("delete configmap cm-0 printed %q", out)
	}
	if errOut := k.fails("get", "cm", "cm-0", "-n", "del"); !strings.Contains(errOut, `configmaps "cm-0" not found`) {
		t.Errorf("get after delete: %s", errOut)
	}
	// Several names, then a missing one: kube's NotFound.
	k.must("delete", "cm", "cm-1", "cm-2", "-n", "del")
	if errOut := k.fails("delete", "cm", "cm-1", "-n", "del"); !strings.Contains(errOut, `Error from server (NotFound): configmaps "cm-1" not found`) {
		t.Errorf("delete a missing configmap: %s", errOut)
	}
	if out := k.must("delete", "cm", "cm-1", "-n", "del", "--ignore-not-found"); out != "" {
		t.Errorf("delete --ignore-not-found printed %q", out)
	}
	// By label selector: kubectl lists with the selector, then deletes each.
	if got := kcLines(k.must("delete", "cm", "-n", "del", "-l", "parity=odd")); !slices.Equal(got, []string{`configmap "cm-3" deleted`, `configmap "cm-5" deleted`}) {
		t.Errorf("delete -l parity=odd printed %q", got)
	}
	if got := kcLines(k.must("get", "cm", "-n", "del", "-o", "name")); !slices.Equal(got, []string{"configmap/cm-4"}) {
		t.Errorf("left after deletes: %q", got)
	}
	// --all.
	k.must("delete", "cm", "--all", "-n", "del")
	if out := k.must("get", "cm", "-n", "del", "-o", "name"); out != "" {
		t.Errorf("left after delete --all: %q", out)
	}

	// By file: the deployment and configmap of the manifest (the namespace's deletion
	// is covered by the cascade test), in one call.
	only := k.file("two.yaml", strings.SplitN(kcManifestYAML, "---\n", 2)[1])
	got := kcLines(k.must("delete", "-f", only))
	if want := []string{`configmap "settings" deleted`, `deployment.apps "web" deleted`}; !slices.Equal(got, want) {
		t.Errorf("delete -f printed %q, want %q", got, want)
	}
	if out := k.must("get", "cm,deploy", "-n", "team-a", "-o", "name"); out != "" {
		t.Errorf("left after delete -f: %q", out)
	}
}

func TestK8S_NS_1_KubectlDeleteNamespaceCascades(t *testing.T) {
	t.Parallel()
	k := newKubectl(t)
	k.must("create", "-f", k.file("manifest.yaml", kcManifestYAML))
	k.seedConfigMaps("team-a", 4, false)
	k.seedConfigMaps("bystander", 2, true)

	// Watch the namespace's configmaps and the namespace itself with kubectl, to
	// see the order of events: contents first, then the namespace.
	cmw := kcEvents(k.start("get", "configmaps", "-n", "team-a", "-w", "--output-watch-events", "-o", "json").lines)
	nsw := kcEvents(k.start("get", "namespace", "team-a", "-w", "--output-watch-events", "-o", "json").lines)
	if e := nsw.next(t); e.Type != "ADDED" || kcDigStr(e.Object, "status", "phase") != "Active" {
		t.Fatalf("first namespace event = %s %v", e.Type, e.Object)
	}
	cms := map[string]bool{}
	for len(cms) < 5 {
		e := cmw.next(t)
		if e.Type != "ADDED" {
			t.Fatalf("configmap event before the delete = %s %v", e.Type, e.Object)
		}
		cms[kcDigStr(e.Object, "metadata", "name")] = true
	}

	if out := k.must("delete", "namespace", "team-a", "--wait=false"); strings.TrimSpace(out) != `namespace "team-a" deleted` {
		t.Errorf("delete namespace printed %q", out)
	}

	// The namespace goes Terminating, then away; its configmaps are deleted before it.
	var lastCMDelete, nsDeleted int64
	sawTerminating := false
	for nsDeleted == 0 {
		e := nsw.next(t)
		rv, _ := strconv.ParseInt(kcDigStr(e.Object, "metadata", "resourceVersion"), 10, 64)
		switch e.Type {
		case "MODIFIED":
			if kcDigStr(e.Object, "status", "phase") == "Terminating" && kcDigStr(e.Object, "metadata", "deletionTimestamp") != "" {
				sawTerminating = true
			}
		case "DELETED":
			nsDeleted = rv
		default:
			t.Fatalf("namespace event %s %v", e.Type, e.Object)
		}
	}
	if !sawTerminating {
		t.Error("the namespace never showed phase Terminating with a deletionTimestamp")
	}
	for len(cms) > 0 {
		e := cmw.next(t)
		if e.Type != "DELETED" {
			t.Fatalf("configmap event during namespace deletion = %s %v", e.Type, e.Object)
		}
		delete(cms, kcDigStr(e.Object, "metadata", "name"))
		rv, _ := strconv.ParseInt(kcDigStr(e.Object, "metadata", "resourceVersion"), 10, 64)
		lastCMDelete = max(lastCMDelete, rv)
	}
	if lastCMDelete == 0 || lastCMDelete >= nsDeleted {
		t.Errorf("last configmap deleted at resourceVersion %d, namespace at %d: contents must go first", lastCMDelete, nsDeleted)
	}

	// And kubectl agrees: nothing left in it, the namespace is gone, the bystander is not.
	if errOut := k.fails("get", "namespace", "team-a"); !strings.Contains(errOut, `Error from server (NotFound): namespaces "team-a" not found`) {
		t.Errorf("get deleted namespace: %s", errOut)
	}
	if out := k.must("get", "cm,deploy", "-n", "team-a", "-o", "name"); out != "" {
		t.Errorf("objects left in the deleted namespace: %q", out)
	}
	if got := kcLines(k.must("get", "cm", "-n", "bystander", "-o", "name")); len(got) != 2 {
		t.Errorf("bystander namespace lost objects: %q", got)
	}

	// The name can be reused at once; with kubectl's default --wait=true, the delete
	// returns only when the namespace is gone.
	k.must("create", "-f", k.file("again.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n"))
	k.seedConfigMaps("team-a-2", 1, true)
	k.must("delete", "namespace", "team-a", "team-a-2")
	for _, ns := range []string{"team-a", "team-a-2"} {
		if errOut := k.fails("get", "namespace", ns); !strings.Contains(errOut, "NotFound") {
			t.Errorf("namespace %s after delete --wait: %s", ns, errOut)
		}
	}
	if out := k.must("get", "cm", "-n", "team-a-2", "-o", "name"); out != "" {
		t.Errorf("objects left in team-a-2: %q", out)
	}
}

// TestK8S_WRITE_3_KubectlDryRunServerWritesNothing: `--dry-run=server` runs the
// write and stores nothing.
func TestK8S_WRITE_3_KubectlDryRunServerWritesNothing(t *testing.T) {
	k := newKubectl(t)
	if out := k.must("create", "configmap", "drytest", "--from-literal=a=b", "--dry-run=server"); !strings.Contains(out, "configmap/drytest created (server dry run)") {
		t.Fatalf("stdout: %s", out)
	}
	k.fails("get", "configmap", "drytest")
	k.must("create", "configmap", "kept", "--from-literal=a=b")
	if out := k.must("delete", "configmap", "kept", "--dry-run=server"); !strings.Contains(out, `configmap "kept" deleted (server dry run)`) {
		t.Fatalf("stdout: %s", out)
	}
	k.must("get", "configmap", "kept")
	out := k.must("create", "configmap", "shown", "--from-literal=a=b", "--dry-run=server", "-o", "jsonpath={.metadata.uid}/{.metadata.resourceVersion}")
	if !strings.HasSuffix(out, "/") || len(out) < 10 {
		t.Fatalf("dry-run object: %q (a uid, no resourceVersion)", out)
	}
}
