package e2e

import (
	"strings"
	"testing"
)

// TestK8S_URI_3_KubectlConnect: kubectl exec, attach, port-forward and a
// proxied GET reach kube-apiserver's connect subresources and print, as
// against a cluster whose kubelet or Pod does not answer, kube's words with
// the address kube would dial and why nothing answers in kubeplay (kubectl
// exec tries a WebSocket, then SPDY, as it does against a cluster); the
// checks before the dial are kube's (an unknown container, no such Pod).
func TestK8S_URI_3_KubectlConnect(t *testing.T) {
	k := newClusterKubectl(t)
	k.must("run", "web", "--image=nginx", "--port=80")
	k.must("wait", "--for=condition=Ready", "pod/web", "--timeout=60s")
	node := strings.TrimSpace(k.must("get", "pod", "web", "-o", "jsonpath={.spec.nodeName}"))
	ip := strings.TrimSpace(k.must("get", "pod", "web", "-o", "jsonpath={.status.podIP}"))
	kubelet := `dial tcp ` + node + `:10250: kubeplay simulates node "` + node + `": its containers run no process to `
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"exec", "web", "--", "ls"}, "Error from server: error dialing backend: " + kubelet + "run a command in (kubectl logs shows the simulated logs)"},
		{[]string{"attach", "web"}, "error dialing backend: " + kubelet + "attach to"},
		{[]string{"port-forward", "pod/web", "18089:80"}, "error upgrading connection: error dialing backend: " + kubelet + "forward a port to"},
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
