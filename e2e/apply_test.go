package e2e

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"kubeplay/core/apiserver"
)

// Server-side apply as kubectl and client-go do it.

// kcConflictAdvice is what kubectl 1.32 prints after an apply's conflicts
// (recorded against kube-apiserver 1.32.13).
const kcConflictAdvice = `Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the ` + "`--force-conflicts`" + ` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
`

// managers is an object's managedFields as [manager, operation, fieldsV1 JSON],
// by manager (the server orders them by time, which a slow run spreads over
// seconds).
func managers(t *testing.T, obj map[string]any) [][3]string {
	t.Helper()
	entries, _ := kcDig(obj, "metadata", "managedFields").([]any)
	var out [][3]string
	for _, e := range entries {
		m := e.(map[string]any)
		fields, err := json.Marshal(m["fieldsV1"])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, [3]string{m["manager"].(string), m["operation"].(string), string(fields)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0]+out[i][1] < out[j][0]+out[j][1] })
	return out
}

func kcDig(v any, path ...string) any {
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	return v
}

// TestK8S_WRITE_2_KubectlServerSideApplyConflict: two field managers apply the
// same ConfigMap with kubectl; the second's change to a field the first owns is
// refused with kube's conflict and kubectl's advice, until --force-conflicts
// takes the field. managedFields then show who owns what, as on a real cluster.
func TestK8S_WRITE_2_KubectlServerSideApplyConflict(t *testing.T) {
	k := newKubectl(t)
	alice := k.file("alice.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: \"1\"\n  b: \"1\"\n")
	bob := k.file("bob.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: \"2\"\n")
	if out := k.must("apply", "--server-side", "--field-manager=alice", "-f", alice); out != "configmap/settings serverside-applied\n" {
		t.Fatalf("stdout %q", out)
	}
	errOut := k.fails("apply", "--server-side", "--field-manager=bob", "-f", bob)
	if want := "error: Apply failed with 1 conflict: conflict with \"alice\": .data.a\n" + kcConflictAdvice; errOut != want {
		t.Fatalf("stderr\n%s\nwant\n%s", errOut, want)
	}
	if got := k.getJSON("configmap", "settings"); kcDigStr(got, "data", "a") != "1" {
		t.Fatalf("the conflicting apply changed the object: %v", got["data"])
	}
	k.must("apply", "--server-side", "--field-manager=bob", "--force-conflicts", "-f", bob)
	got := k.getJSON("configmap", "settings", "--show-managed-fields")
	if a, b := kcDigStr(got, "data", "a"), kcDigStr(got, "data", "b"); a != "2" || b != "1" {
		t.Fatalf("data %v", got["data"])
	}
	want := [][3]string{
		{"alice", "Apply", `{"f:data":{"f:b":{}}}`},
		{"bob", "Apply", `{"f:data":{"f:a":{}}}`},
	}
	if m := managers(t, got); !reflect.DeepEqual(m, want) {
		t.Fatalf("managedFields %v, want %v", m, want)
	}
	// kubectl hides managedFields unless asked.
	if _, ok := kcDig(k.getJSON("configmap", "settings"), "metadata").(map[string]any)["managedFields"]; ok {
		t.Fatal("kubectl get shows managedFields without --show-managed-fields")
	}
}

// TestK8S_WRITE_2_KubectlClientSideApplyUpgrade: an object made by client-side
// `kubectl apply` (its configuration in the last-applied annotation) is taken
// over by `kubectl apply --server-side` without conflicts: kubectl's manager
// may take what client-side apply set, and the annotation follows the new
// configuration. Another manager then conflicts with kubectl.
func TestK8S_WRITE_2_KubectlClientSideApplyUpgrade(t *testing.T) {
	k := newKubectl(t)
	v1 := k.file("v1.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  a: \"1\"\n  b: \"1\"\n")
	if out := k.must("apply", "-f", v1); out != "configmap/app created\n" {
		t.Fatalf("stdout %q", out)
	}
	got := k.getJSON("configmap", "app", "--show-managed-fields")
	want := [][3]string{{"kubectl-client-side-apply", "Update",
		`{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}`}}
	if m := managers(t, got); !reflect.DeepEqual(m, want) {
		t.Fatalf("after client-side apply: %v, want %v", m, want)
	}

	v2 := k.file("v2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  a: \"5\"\n  b: \"5\"\n")
	if out := k.must("apply", "--server-side", "-f", v2); out != "configmap/app serverside-applied\n" {
		t.Fatalf("stdout %q", out)
	}
	got = k.getJSON("configmap", "app", "--show-managed-fields")
	if a, b := kcDigStr(got, "data", "a"), kcDigStr(got, "data", "b"); a != "5" || b != "5" {
		t.Fatalf("data %v", got["data"])
	}
	lastApplied := kcDigStr(got, "metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration")
	if want := `{"apiVersion":"v1","data":{"a":"5","b":"5"},"kind":"ConfigMap","metadata":{"name":"app","namespace":"default"}}` + "\n"; lastApplied != want {
		t.Fatalf("last-applied annotation %q, want %q", lastApplied, want)
	}
	var kubectlFields string
	for _, m := range managers(t, got) {
		if m[0] == "kubectl" && m[1] == "Apply" {
			kubectlFields = m[2]
		}
	}
	if kubectlFields != `{"f:data":{"f:a":{},"f:b":{}}}` {
		t.Fatalf("kubectl's fields %q; managedFields %v", kubectlFields, managers(t, got))
	}

	other := k.file("other.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  a: \"9\"\n")
	errOut := k.fails("apply", "--server-side", "--field-manager=other", "-f", other)
	if want := "error: Apply failed with 1 conflict: conflict with \"kubectl\": .data.a\n" + kcConflictAdvice; errOut != want {
		t.Fatalf("stderr\n%s\nwant\n%s", errOut, want)
	}
}

// TestK8S_WRITE_2_KubectlWritesNameTheirManagers: kubectl's commands are
// recorded under the managers kubectl names (kubectl-create, kubectl-label,
// kubectl-annotate, kubectl-replace), as a real cluster shows them.
func TestK8S_WRITE_2_KubectlWritesNameTheirManagers(t *testing.T) {
	k := newKubectl(t)
	k.must("create", "configmap", "k1", "--from-literal=a=1")
	k.must("label", "configmap", "k1", "x=y")
	k.must("annotate", "configmap", "k1", "n=m")
	got := k.getJSON("configmap", "k1", "--show-managed-fields")
	want := [][3]string{
		{"kubectl-annotate", "Update", `{"f:metadata":{"f:annotations":{".":{},"f:n":{}}}}`},
		{"kubectl-create", "Update", `{"f:data":{".":{},"f:a":{}}}`},
		{"kubectl-label", "Update", `{"f:metadata":{"f:labels":{".":{},"f:x":{}}}}`},
	}
	if m := managers(t, got); !reflect.DeepEqual(m, want) {
		t.Fatalf("managedFields %v, want %v", m, want)
	}
	replaced := k.file("k1.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: k1\ndata:\n  a: \"2\"\n")
	k.must("replace", "-f", replaced)
	got = k.getJSON("configmap", "k1", "--show-managed-fields")
	want = [][3]string{
		{"kubectl-create", "Update", `{"f:data":{}}`},
		{"kubectl-replace", "Update", `{"f:data":{"f:a":{}}}`},
	}
	if m := managers(t, got); !reflect.DeepEqual(m, want) {
		t.Fatalf("after replace: %v, want %v", m, want)
	}
}

// managedFieldsJSON is managedFields as JSON, fieldsV1 read as JSON values.
func managedFieldsJSON(t *testing.T, entries []metav1.ManagedFieldsEntry) string {
	t.Helper()
	var out []any
	for _, e := range entries {
		var fields any
		if err := json.Unmarshal(e.FieldsV1.Raw, &fields); err != nil {
			t.Fatal(err)
		}
		e.FieldsV1 = nil
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m["fieldsV1"] = fields
		out = append(out, m)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// TestK8S_WRITE_2_ClientGoApply: client-go's typed Apply with an
// ApplyConfiguration creates and updates; another manager's conflicting Apply
// gets kube's 409 (apierrors.IsConflict) with a cause naming the manager and the
// field; Force takes it; ExtractConfigMap reads each manager's configuration
// back out of managedFields; a protobuf client reads the same managedFields.
func TestK8S_WRITE_2_ClientGoApply(t *testing.T) {
	hs, _ := startServer(t, apiserver.Config{})
	cs := cgClientset(t, hs.URL, cgDriverAgent)
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps("default")

	first := corev1ac.ConfigMap("app", "default").WithLabels(map[string]string{"team": "a"}).WithData(map[string]string{"a": "1", "b": "1"})
	cm, err := cms.Apply(ctx, first, metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data["a"] != "1" || len(cm.ManagedFields) != 1 || cm.ManagedFields[0].Manager != "alice" ||
		cm.ManagedFields[0].Operation != metav1.ManagedFieldsOperationApply || cm.ManagedFields[0].Time == nil {
		t.Fatalf("created: %+v", cm.ObjectMeta)
	}

	second := corev1ac.ConfigMap("app", "default").WithData(map[string]string{"a": "2"})
	_, err = cms.Apply(ctx, second, metav1.ApplyOptions{FieldManager: "bob"})
	if !apierrors.IsConflict(err) {
		t.Fatalf("conflicting apply: %v, want a conflict", err)
	}
	status := err.(apierrors.APIStatus).Status()
	if status.Message != `Apply failed with 1 conflict: conflict with "alice": .data.a` || status.Details == nil ||
		!reflect.DeepEqual(status.Details.Causes, []metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "alice"`, Field: ".data.a"}}) {
		t.Fatalf("conflict status: %+v", status)
	}

	cm, err = cms.Apply(ctx, second, metav1.ApplyOptions{FieldManager: "bob", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data["a"] != "2" || cm.Data["b"] != "1" {
		t.Fatalf("forced: %v", cm.Data)
	}
	aliceNow, err := corev1ac.ExtractConfigMap(cm, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"b": "1"}; !reflect.DeepEqual(aliceNow.Data, want) || aliceNow.Labels["team"] != "a" {
		t.Fatalf("alice's configuration: %+v", aliceNow)
	}
	bobNow, err := corev1ac.ExtractConfigMap(cm, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"a": "2"}; !reflect.DeepEqual(bobNow.Data, want) {
		t.Fatalf("bob's configuration: %+v", bobNow)
	}

	// The same managedFields read as protobuf (client-go's default for built-in kinds).
	pb, err := kubernetes.NewForConfig(&rest.Config{Host: hs.URL, UserAgent: cgDriverAgent, BearerToken: "kubeplay",
		ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	viaProtobuf, err := pb.CoreV1().ConfigMaps("default").Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := managedFieldsJSON(t, viaProtobuf.ManagedFields), managedFieldsJSON(t, cm.ManagedFields); a != b {
		t.Fatalf("managedFields as protobuf:\n%s\nas JSON:\n%s", a, b)
	}

	// An update through the typed client is recorded under its user agent.
	cm.Data["c"] = "1"
	cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var updater *metav1.ManagedFieldsEntry
	for i := range cm.ManagedFields {
		if cm.ManagedFields[i].Manager == cgDriverAgent {
			updater = &cm.ManagedFields[i]
		}
	}
	if updater == nil || updater.Operation != metav1.ManagedFieldsOperationUpdate || !strings.Contains(string(updater.FieldsV1.Raw), `"f:c"`) {
		t.Fatalf("managedFields after update: %+v", cm.ManagedFields)
	}

	// Apply to a kind without create-on-update creates it all the same.
	svcAccount, err := cs.CoreV1().ServiceAccounts("default").Apply(ctx,
		corev1ac.ServiceAccount("robot", "default").WithLabels(map[string]string{"a": "b"}), metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil || svcAccount.UID == "" {
		t.Fatalf("apply created %+v: %v", svcAccount, err)
	}
}
