package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The native command's guards are for browsers and idle clients: kubectl and
// client-go, which send no Origin and name the server as they reach it, work
// through them, and a kubectl watch outlives --request-timeout.
func TestPLAY_8_KubectlAndClientGoThroughTheNativeCommand(t *testing.T) {
	p := durStart(t, durBuildPlayground(t), "--request-timeout", "200ms")
	k := &kcEnv{t: t, bin: kcBinary(t), kubeconfig: writeKubeconfig(t, p.url), home: t.TempDir()}
	k.must("create", "-f", k.file("before.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: before\n"))
	w := k.start("get", "configmaps", "-w", "--no-headers", "-o", "custom-columns=NAME:.metadata.name")
	w.until(t, "the watch's list", func(l string) bool { return strings.TrimSpace(l) == "before" })
	time.Sleep(time.Second) // the watch is past the request timeout

	k.must("create", "-f", k.file("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-kubectl\n"))
	w.until(t, "the watch to see from-kubectl", func(l string) bool { return strings.TrimSpace(l) == "from-kubectl" })

	cs := cgClientset(t, p.url, cgDriverAgent)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cs.CoreV1().ConfigMaps(cgNamespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "from-client-go"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("client-go create: %v", err)
	}
	w.until(t, "the watch to see from-client-go", func(l string) bool { return strings.TrimSpace(l) == "from-client-go" })
	list, err := cs.CoreV1().ConfigMaps(cgNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("client-go list: %v", err)
	}
	if len(list.Items) != 3 {
		t.Errorf("client-go lists %d ConfigMaps, want before, from-kubectl and from-client-go", len(list.Items))
	}
}
