package e2e

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kubeplay/core/auth"
	"kubeplay/core/sandbox"
)

// API Priority and Fairness and identities seen by kubectl: the sandbox (with
// authentication and APF) behind loopback HTTPS (kubectl sends a bearer token
// only over TLS; over plain HTTP its requests are anonymous, and only
// impersonation names a user), its tokens read from a file in kube-apiserver's
// --token-file format, as the native command's --token-file.

func newSandboxKubectl(t *testing.T) (*kcEnv, *sandbox.Sandbox) {
	t.Helper()
	bin := kcBinary(t)
	file := filepath.Join(t.TempDir(), "tokens.csv")
	content := auth.DefaultTokens + "alice-token,alice,alice-uid,\"devs\"\nci-token,system:serviceaccount:ci:deployer,ci-uid,\"system:serviceaccounts,system:serviceaccounts:ci\"\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := auth.ParseTokens(file, f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Its users are bound to no role: what these tests read is how APF
	// classifies them, under kube's AlwaysAllow authorizer.
	sb, err := sandbox.New(sandbox.Config{Tokens: tokens, Authorization: auth.ModeAlwaysAllow})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewTLSServer(sb)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		sb.Close()
	})
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: kp\n  cluster:\n    server: " + hs.URL +
		"\n    insecure-skip-tls-verify: true\nusers:\n- name: kp\n  user:\n    token: kubeplay\ncontexts:\n- name: kp\n  context:\n    cluster: kp\n    user: kp\n    namespace: default\ncurrent-context: kp\n"
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// Until the configuration is in place, requests go to the mandatory levels.
	deadline := time.Now().Add(10 * time.Second)
	for len(sb.APF.Snapshot("", "").FlowSchemas) < 13 || sb.APF.Snapshot("", "").FlowSchemas[1].UID == "" {
		if time.Now().After(deadline) {
			t.Fatal("APF's configuration never came")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return &kcEnv{t: t, bin: bin, kubeconfig: kubeconfig, home: t.TempDir(), rec: &kcRecorder{}}, sb
}

var flowSchemaHeader = regexp.MustCompile(`(?i)X-Kubernetes-Pf-Flowschema-Uid: (\S+)`)

// flowSchemaOf runs kubectl at -v=8 and names the FlowSchema its last
// request was classified into, from the response header.
func flowSchemaOf(t *testing.T, k *kcEnv, uids map[string]string, args ...string) string {
	t.Helper()
	_, stderr, err := k.run("", append([]string{"-v=8"}, args...)...)
	if err != nil {
		t.Fatalf("kubectl %v: %v\n%s", args, err, stderr)
	}
	m := flowSchemaHeader.FindAllStringSubmatch(stderr, -1)
	if len(m) == 0 {
		t.Fatalf("kubectl %v: no FlowSchema header\n%s", args, stderr)
	}
	return uids[m[len(m)-1][1]]
}

// TestAPF_12_KubectlIdentities: kubectl with a token from the token file, with
// --as and --as-group, is classified into the FlowSchema kube-apiserver would
// choose (read from X-Kubernetes-PF-FlowSchema-UID); `kubectl auth whoami`
// and `kubectl auth can-i` answer as kube-apiserver 1.32.13 did (recorded: its
// whoami table for a token user, and `yes`), over protobuf as kubectl sends them.
func TestAPF_12_KubectlIdentities(t *testing.T) {
	k, sb := newSandboxKubectl(t)
	uids := map[string]string{}
	for _, fs := range sb.APF.Snapshot("", "").FlowSchemas {
		uids[fs.UID] = fs.Name
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "configmaps"}, "global-default"},
		{[]string{"--token=alice-token", "get", "configmaps"}, "global-default"},
		{[]string{"--token=kubeplay-super-admin", "get", "configmaps"}, "exempt"},
		{[]string{"--token=ci-token", "get", "configmaps"}, "service-accounts"},
		{[]string{"--as=system:serviceaccount:kube-system:foo", "get", "pods", "-A"}, "kube-system-service-accounts"},
		{[]string{"--as=system:node:n1", "--as-group=system:nodes", "get", "pods", "-A"}, "system-nodes"},
		{[]string{"--as=system:kube-controller-manager", "get", "--raw=/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"}, "kube-controller-manager"},
		{[]string{"--as=boss", "--as-group=system:masters", "get", "configmaps"}, "exempt"},
	} {
		if got := flowSchemaOf(t, k, uids, c.args...); got != c.want {
			t.Errorf("kubectl %v: classified as %q, want %q", c.args, got, c.want)
		}
	}

	// kube-apiserver 1.32.13 printed, for its token user admin (uid admin-uid):
	// ATTRIBUTE   VALUE / Username    admin / UID         admin-uid / Groups      [system:masters system:authenticated]
	if out := k.must("--token=alice-token", "auth", "whoami"); out != "ATTRIBUTE   VALUE\nUsername    alice\nUID         alice-uid\nGroups      [devs system:authenticated]\n" {
		t.Errorf("whoami:\n%s", out)
	}
	var review struct {
		Kind, APIVersion string
		Status           struct {
			UserInfo struct {
				Username string   `json:"username"`
				Groups   []string `json:"groups"`
			} `json:"userInfo"`
		}
	}
	if err := json.Unmarshal([]byte(k.must("auth", "whoami", "--as=alice", "--as-group=devs", "-o", "json")), &review); err != nil {
		t.Fatal(err)
	}
	if review.Kind != "SelfSubjectReview" || review.APIVersion != "authentication.k8s.io/v1" || review.Status.UserInfo.Username != "alice" ||
		strings.Join(review.Status.UserInfo.Groups, ",") != "devs,system:authenticated" {
		t.Errorf("whoami -o json: %+v", review)
	}
	if out := k.must("auth", "whoami", "--as=system:serviceaccount:default:default"); !strings.Contains(out,
		"Groups      [system:serviceaccounts system:serviceaccounts:default system:authenticated]") {
		t.Errorf("whoami as a service account:\n%s", out)
	}
	for _, args := range [][]string{{"auth", "can-i", "create", "pods"}, {"auth", "can-i", "create", "pods", "--as=alice"}, {"auth", "can-i", "get", "/healthz", "--as=alice"}} {
		if out := k.must(args...); out != "yes\n" {
			t.Errorf("kubectl %v: %q", args, out)
		}
	}
	// The APF objects through kubectl, printed with kube's columns, FlowSchemas
	// in matching order.
	fs := strings.Split(k.must("get", "flowschemas"), "\n")
	if strings.Join(strings.Fields(fs[0]), " ") != "NAME PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD AGE MISSINGPL" ||
		!strings.HasPrefix(fs[1], "exempt ") || !strings.HasPrefix(fs[2], "probes ") || !strings.HasPrefix(fs[13], "catch-all ") ||
		strings.Fields(fs[12])[3] != "ByUser" || strings.Fields(fs[12])[5] != "False" {
		t.Errorf("flowschemas:\n%s", strings.Join(fs, "\n"))
	}
	pl := strings.Split(strings.TrimSpace(k.must("get", "prioritylevelconfigurations", "global-default", "exempt")), "\n")
	for i, want := range []string{"NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE QUEUELENGTHLIMIT AGE",
		"global-default Limited 20 128 6 50", "exempt Exempt <none> <none> <none> <none>"} {
		if i >= len(pl) || !strings.HasPrefix(strings.Join(strings.Fields(pl[i]), " "), want) {
			t.Errorf("priority levels: want %q in\n%s", want, strings.Join(pl, "\n"))
		}
	}
}
