package e2e

import (
	"strings"
	"testing"
)

// TestCONF_1_KubectlDebug: kubectl debug -it adds an ephemeral container
// aimed at the Pod's container (its strategic merge patch of the
// ephemeralcontainers subresource), waits for the simulated kubelet to
// report it running, and then, as no process runs to attach to, warns with
// kube's dial error and why (issue 31, friction 13) and falls back to the
// debugging container's log, as kubectl does when it cannot attach (the
// simulated kubelet serves ephemeral containers' logs); the Pod keeps the
// container, running.
func TestCONF_1_KubectlDebug(t *testing.T) {
	k := newClusterKubectl(t)
	k.must("run", "web", "--image=nginx")
	k.must("wait", "--for=condition=Ready", "pod/web", "--timeout=60s")
	out, errOut, err := k.run("", "debug", "-it", "web", "--image=busybox", "--target=web", "--container=debugger")
	if err != nil || !strings.Contains(errOut, "warning: couldn't attach to pod/web, falling back to streaming logs: error dialing backend: ") ||
		!strings.Contains(errOut, "a kubeplay sandbox runs no containers, so there is nothing to attach to; read the simulated output with kubectl logs") ||
		!strings.Contains(out, "container debugger started from image busybox (kubeplay simulates it: no process runs)\n") {
		t.Errorf("kubectl debug -it: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	pod := k.getJSON("pod", "web")
	ecs, _ := pod["spec"].(map[string]any)["ephemeralContainers"].([]any)
	statuses, _ := pod["status"].(map[string]any)["ephemeralContainerStatuses"].([]any)
	if len(ecs) != 1 || len(statuses) != 1 {
		t.Fatalf("ephemeral containers %v, statuses %v", ecs, statuses)
	}
	ec, st := ecs[0].(map[string]any), statuses[0].(map[string]any)
	if ec["name"] != "debugger" || ec["image"] != "busybox" || ec["targetContainerName"] != "web" || ec["stdin"] != true || ec["tty"] != true {
		t.Errorf("ephemeral container: %v", ec)
	}
	if running, _ := st["state"].(map[string]any)["running"].(map[string]any); st["name"] != "debugger" || running == nil {
		t.Errorf("ephemeral container status: %v", st)
	}
	// A second name taken is kube's 422, as kubectl words it.
	if errOut := k.fails("debug", "web", "--image=busybox", "--container=web"); !strings.Contains(errOut, `spec.ephemeralContainers[1].name: Duplicate value: "web"`) {
		t.Errorf("kubectl debug --container=web:\n%s", errOut)
	}
}

// TestCONF_1_KubectlGetComponentStatuses: kubectl get cs shows kube's
// columns and its deprecation warning; a simulated cluster's components are
// all Healthy, an API server alone's scheduler and controller manager
// refuse the probe, as kube's do.
func TestCONF_1_KubectlGetComponentStatuses(t *testing.T) {
	for _, c := range []struct {
		k    *kcEnv
		want []string
	}{
		{newClusterKubectl(t), []string{
			"NAME                 STATUS    MESSAGE   ERROR",
			"controller-manager   Healthy   ok        ",
			"etcd-0               Healthy   ok        ",
			"scheduler            Healthy   ok        ",
		}},
		{newKubectl(t), []string{
			"NAME                 STATUS      MESSAGE                                                                                        ERROR",
			`controller-manager   Unhealthy   Get "https://127.0.0.1:10257/healthz": dial tcp 127.0.0.1:10257: connect: connection refused   `,
			"etcd-0               Healthy     ok                                                                                             ",
			`scheduler            Unhealthy   Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused   `,
		}},
	} {
		out, errOut, err := c.k.run("", "get", "cs")
		if err != nil || out != strings.Join(c.want, "\n")+"\n" || errOut != "Warning: v1 ComponentStatus is deprecated in v1.19+\n" {
			t.Errorf("kubectl get cs: %v\nstdout:\n%s\nstderr:\n%s\nwant:\n%s", err, out, errOut, strings.Join(c.want, "\n"))
		}
	}
}
