package e2e

import (
	"strings"
	"testing"
)

// TestK8S_URI_3_KubectlConnect: kubectl exec (and cp, an exec of tar),
// attach, port-forward and a proxied GET reach kube-apiserver's connect subresources and print, as
// against a cluster whose kubelet or Pod does not answer, kube's words with
// the address kube would dial and why nothing answers in kubeplay: a
// sandbox runs no containers, and what to read instead (issue 31's friction
// 13: one sentence kubectl prints whole, with kube's 500 for a kubelet it
// cannot dial) (kubectl
// exec tries a WebSocket, then SPDY, as it does against a cluster); the
// checks before the dial are kube's (an unknown container, no such Pod).
func TestK8S_URI_3_KubectlConnect(t *testing.T) {
	k := newClusterKubectl(t)
	k.must("run", "web", "--image=nginx", "--port=80")
	k.must("wait", "--for=condition=Ready", "pod/web", "--timeout=60s")
	node := strings.TrimSpace(k.must("get", "pod", "web", "-o", "jsonpath={.spec.nodeName}"))
	ip := strings.TrimSpace(k.must("get", "pod", "web", "-o", "jsonpath={.status.podIP}"))
	kubelet := `dial tcp ` + node + `:10250: kubeplay simulates node "` + node + `": a kubeplay sandbox runs no containers, so there is nothing to `
	instead := "; read the simulated output with kubectl logs and the Pod's state in its status (kubectl describe pod)"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"exec", "web", "--", "ls"}, "Error from server: error dialing backend: " + kubelet + "exec into" + instead + "\n"},
		{[]string{"cp", "web:/etc/hosts", t.TempDir() + "/hosts"}, "Error from server: error dialing backend: " + kubelet + "exec into" + instead + "\n"},
		{[]string{"attach", "web"}, "Error from server: error dialing backend: " + kubelet + "attach to" + instead + "\n"},
		{[]string{"port-forward", "pod/web", "18089:80"}, "error: error upgrading connection: error dialing backend: " + kubelet + "forward a port to" + instead + "\n"},
		{[]string{"exec", "web", "-c", "nope", "--", "ls"}, "Error from server (BadRequest): container nope is not valid for pod web"},
		{[]string{"exec", "nope", "--", "ls"}, `Error from server (NotFound): pods "nope" not found`},
		{[]string{"get", "--raw", "/api/v1/namespaces/default/pods/web/proxy/"},
			`Error from server (ServiceUnavailable): error trying to reach service: dial tcp ` + ip + `:80: kubeplay simulates Pod "default/web": nothing listens in it`},
	} {
		if out := k.fails(c.args...); !strings.Contains(out, c.want) {
			t.Errorf("kubectl %s:\n%s\nwant %q", strings.Join(c.args, " "), out, c.want)
		}
	}
}
