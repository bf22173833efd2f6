package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// workshopSandbox is one sandbox of POST /workshops' answer.
type workshopSandbox struct {
	ID, Label, Token, Server, Kubeconfig, Playground string
}

// TestWORK_1_WorkshopOf30WithKubectl: the native command with TLS and an
// instructor token makes a workshop of 30 simulated sandboxes; for each,
// real kubectl with the kubeconfig handed out (the CA in it, verification
// on) runs a short workshop script: apply a Deployment, scale it, rollout
// status, auth whoami (the attendee), logs; six attendees at a time. No
// sandbox sees another's objects, a wrong token is 401, and a reset empties
// one sandbox and leaves the others.
func TestWORK_1_WorkshopOf30WithKubectl(t *testing.T) {
	const attendees, parallel = 30, 6
	bin := kcBinary(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "instructor-token")
	const instructor = "e2e-instructor-token-0123456789"
	if err := os.WriteFile(tokenFile, []byte(instructor+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := durStart(t, durBuildPlayground(t), "--tls", "--tls-dir", filepath.Join(dir, "tls"), "--instructor-token-file", tokenFile)
	if !strings.HasPrefix(p.url, "https://") {
		t.Fatalf("the server is not serving TLS: %s", p.url)
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, "tls", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 30 * time.Second}
	do := func(method, url, token, body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}

	code, body := do("POST", p.url+"/workshops", instructor, fmt.Sprintf(`{"attendees":%d,"cluster":{"mode":"simulated","speed":20}}`, attendees))
	var ws struct {
		Workshop  string
		Sandboxes []workshopSandbox
	}
	if err := json.Unmarshal(body, &ws); err != nil || code != 201 || len(ws.Sandboxes) != attendees {
		t.Fatalf("POST /workshops: %d %s", code, body)
	}
	wantCA := "certificate-authority-data: " + base64.StdEncoding.EncodeToString(caPEM) + "\n"
	envs := make([]*kcEnv, attendees)
	for i, s := range ws.Sandboxes {
		if !strings.Contains(s.Kubeconfig, wantCA) {
			t.Fatalf("sandbox %s's kubeconfig does not embed the server's CA:\n%s", s.Label, s.Kubeconfig)
		}
		home := filepath.Join(dir, s.Label)
		if err := os.MkdirAll(home, 0o700); err != nil {
			t.Fatal(err)
		}
		kc := filepath.Join(home, "kubeconfig")
		if err := os.WriteFile(kc, []byte(s.Kubeconfig), 0o600); err != nil {
			t.Fatal(err)
		}
		envs[i] = &kcEnv{t: t, bin: bin, kubeconfig: kc, home: home}
	}

	// The script, for every attendee, six at a time.
	deployment := func(label string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {attendee: ` + label + `}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: nginx}]
`
	}
	script := func(k *kcEnv, s workshopSandbox) error {
		steps := []struct {
			args  []string
			stdin string
			want  *regexp.Regexp
		}{
			{[]string{"apply", "-f", "-"}, deployment(s.Label), regexp.MustCompile(`^deployment.apps/web created\n$`)},
			{[]string{"create", "configmap", "of-" + s.Label}, "", regexp.MustCompile(`^configmap/of-` + s.Label + ` created\n$`)},
			{[]string{"scale", "deployment/web", "--replicas=2"}, "", regexp.MustCompile(`^deployment.apps/web scaled\n$`)},
			{[]string{"rollout", "status", "deployment/web", "--timeout=120s"}, "", regexp.MustCompile(`deployment "web" successfully rolled out\n$`)},
			{[]string{"auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"}, "", regexp.MustCompile(`^` + s.Label + `$`)},
			{[]string{"logs", "deployment/web"}, "", regexp.MustCompile(`\[notice\] 1#1: start worker processes`)},
			{[]string{"get", "deployments,configmaps", "-o", "name"}, "", regexp.MustCompile(`^deployment.apps/web\nconfigmap/kube-root-ca.crt\nconfigmap/of-` + s.Label + `\n$`)},
		}
		for _, step := range steps {
			out, err := k.try(step.stdin, step.args...)
			if err != nil {
				return fmt.Errorf("kubectl %s: %w", strings.Join(step.args, " "), err)
			}
			if !step.want.MatchString(out) {
				return fmt.Errorf("kubectl %s: %q, want %s", strings.Join(step.args, " "), out, step.want)
			}
		}
		return nil
	}
	errs := make([]error, attendees)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range ws.Sandboxes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = script(envs[i], ws.Sandboxes[i])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("%s: %v", ws.Sandboxes[i].Label, err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// No sandbox sees another's objects: each lists its own ConfigMap and
	// its own Pods alone.
	for i, s := range ws.Sandboxes {
		code, body := do("GET", s.Server+"/api/v1/configmaps", s.Token, "")
		var list struct {
			Items []struct {
				Metadata struct{ Name, Namespace string }
			}
		}
		if err := json.Unmarshal(body, &list); err != nil || code != 200 {
			t.Fatalf("%s: list ConfigMaps: %d %s", s.Label, code, body)
		}
		for _, it := range list.Items {
			if strings.HasPrefix(it.Metadata.Name, "of-") && it.Metadata.Name != "of-"+s.Label {
				t.Errorf("%s sees %s's ConfigMap", s.Label, it.Metadata.Name)
			}
		}
		code, body = do("GET", s.Server+"/apis/apps/v1/deployments", s.Token, "")
		if code != 200 || bytes.Count(body, []byte(`"attendee":"`)) != 1 || !bytes.Contains(body, []byte(`"attendee":"`+s.Label+`"`)) {
			t.Errorf("%s's Deployments: %d %s", s.Label, code, body)
		}
		// Another attendee's token, a made-up one and none are 401 here.
		other := ws.Sandboxes[(i+1)%attendees]
		for _, token := range []string{other.Token, "wrong", ""} {
			if code, body := do("GET", s.Server+"/api/v1/namespaces", token, ""); code != 401 || !bytes.Contains(body, []byte(`"reason":"Unauthorized"`)) {
				t.Errorf("token %q on %s's sandbox: %d %s", token, s.Label, code, body)
			}
		}
	}

	// A reset empties the first sandbox and leaves the second.
	first, second := ws.Sandboxes[0], ws.Sandboxes[1]
	if code, body := do("POST", p.url+"/sandboxes/"+first.ID+"/reset", instructor, ""); code != 200 {
		t.Fatalf("reset: %d %s", code, body)
	}
	// The new sandbox's root CA publisher writes kube-root-ca.crt once it
	// runs, as kube-controller-manager's does after a start.
	until(t, time.Minute, first.Label+" reset to a new sandbox with only kube-root-ca.crt", func() bool {
		return envs[0].must("get", "deployments,configmaps", "-o", "name") == "configmap/kube-root-ca.crt\n"
	})
	if out := envs[1].must("get", "deployments,configmaps", "-o", "name"); out != "deployment.apps/web\nconfigmap/kube-root-ca.crt\nconfigmap/of-"+second.Label+"\n" {
		t.Errorf("after another's reset, %s has %q", second.Label, out)
	}
	if out := envs[0].must("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"); out != first.Label {
		t.Errorf("whoami after the reset: %q", out)
	}

	// The instructor's list has the 30, with their activity.
	code, body = do("GET", p.url+"/sandboxes", instructor, "")
	var infos struct {
		Sandboxes []struct {
			Label        string
			LastActiveAt time.Time
			CreatedAt    time.Time
			Objects      int
		}
	}
	if err := json.Unmarshal(body, &infos); err != nil || code != 200 || len(infos.Sandboxes) != attendees {
		t.Fatalf("GET /sandboxes: %d %s", code, body)
	}
	for _, in := range infos.Sandboxes {
		if in.Objects == 0 || in.LastActiveAt.Before(in.CreatedAt) {
			t.Errorf("info %+v", in)
		}
	}
}

// try runs kubectl with stdin, returning its stdout, or an error with its
// stderr; safe from any goroutine.
func (k *kcEnv) try(stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	out, errOut, err := k.runIn(ctx, stdin, args...)
	if err != nil {
		return out, fmt.Errorf("%v: %s", err, errOut)
	}
	return out, nil
}
