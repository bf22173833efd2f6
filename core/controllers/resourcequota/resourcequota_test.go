package resourcequota_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"kubeplay/core/apiserver"
	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers/resourcequota"
	"kubeplay/core/object"
	"kubeplay/core/sandbox"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// env is a server with its resource quota controller on a fake clock, and
// an admin's client of it.
type env struct {
	t     *testing.T
	c     *client.Client
	clock *clock.Fake
	rq    *resourcequota.Controller
	ctx   context.Context
}

const quotas = "/api/v1/namespaces/default/resourcequotas"

func newEnv(t *testing.T) *env {
	t.Helper()
	fake := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	s, err := sandbox.NewServer(sandbox.Config{API: apiserver.Config{Clock: fake}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rq := resourcequota.New(s, fake)
	done := make(chan struct{})
	go func() {
		defer close(done)
		rq.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		s.Close()
	})
	return &env{t: t, c: client.New(s, user.User{Name: "admin", Groups: []string{user.SystemPrivileged, user.AllAuthenticated}}, "kubectl/v1.32.13"),
		clock: fake, rq: rq, ctx: ctx}
}

// do sends a request with a JSON (or merge patch) body and returns the answer.
func (e *env) do(method, path, body string) (object.Object, error) {
	contentType := "application/json"
	if method == web.MethodPatch {
		contentType = "application/merge-patch+json"
	}
	b, err := e.c.Do(e.ctx, method, path, contentType, []byte(body))
	if err != nil {
		return nil, err
	}
	return object.Decode(b)
}

func (e *env) must(method, path, body string) object.Object {
	e.t.Helper()
	obj, err := e.do(method, path, body)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	return obj
}

// used is quota name's status.used as JSON, keys sorted.
func (e *env) used(name string) string {
	e.t.Helper()
	b, _ := json.Marshal(object.Path(e.must(web.MethodGet, quotas+"/"+name, ""), "status", "used"))
	return string(b)
}

// patience is how long the test waits for the controller, in wall time (a
// machine under load, -race); the waits end as soon as it has done its work.
const patience = 30 * time.Second

// until waits for the quota's status.used to be want, moving the clock on a
// little at a time (the controller's retries wait on it).
func (e *env) until(name, want string) {
	e.t.Helper()
	for deadline := time.Now().Add(patience); time.Now().Before(deadline); {
		if e.used(name) == want {
			return
		}
		time.Sleep(time.Millisecond)
		e.clock.Step(10 * time.Millisecond)
	}
	e.t.Fatalf("quota %s: used %s, want %s", name, e.used(name), want)
}

// settled waits until the controller has nothing to do, now or later.
func (e *env) settled() {
	e.t.Helper()
	for deadline := time.Now().Add(patience); time.Now().Before(deadline); {
		if e.rq.Pending() == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	e.t.Fatalf("the controller has %d keys pending", e.rq.Pending())
}

func pod(name, cpu string) string {
	return `{"metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"` + cpu + `"}}}]}}`
}

// TestROB_2_QuotaControllerKeepsStatus: kube-controller-manager's resource
// quota controller gives a new quota its status (the limits in force, what
// is used of them, counted from what exists), counts again when its limits
// change and when what it counts is deleted or frees what it used (a Pod
// that finished, a Service no longer NodePort), so that the admission lets
// what was refused in once something is gone; what the admission charged for
// a write that failed, or a status someone else wrote, is corrected a sync
// period later; settled, it schedules nothing.
func TestROB_2_QuotaControllerKeepsStatus(t *testing.T) {
	e := newEnv(t)
	e.must(web.MethodPost, "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"before"}}`)
	e.must(web.MethodPost, quotas, `{"metadata":{"name":"q"},"spec":{"hard":{"pods":"2","requests.cpu":"1","services.nodeports":"1","configmaps":"5","count/deployments.apps":"1","count/widgets.example.com":"1"}}}`)
	e.until("q", `{"configmaps":"1","count/deployments.apps":"0","pods":"0","requests.cpu":"0","services.nodeports":"0"}`)
	hard := object.Path(e.must(web.MethodGet, quotas+"/q", ""), "status", "hard").(map[string]any)
	if len(hard) != 6 || hard["count/widgets.example.com"] != "1" {
		t.Fatalf("status.hard %v", hard)
	}

	// Admission charges; the controller frees what deletions and finished
	// Pods give back.
	e.must(web.MethodPost, "/api/v1/namespaces/default/pods", pod("a", "500m"))
	e.must(web.MethodPost, "/api/v1/namespaces/default/pods", pod("b", "500m"))
	if _, err := e.do(web.MethodPost, "/api/v1/namespaces/default/pods", pod("c", "100m")); !client.IsForbidden(err) {
		t.Fatalf("a third pod: %v", err)
	}
	e.must(web.MethodDelete, "/api/v1/namespaces/default/pods/a", `{"gracePeriodSeconds":0}`)
	e.until("q", `{"configmaps":"1","count/deployments.apps":"0","pods":"1","requests.cpu":"500m","services.nodeports":"0"}`)
	e.must(web.MethodPost, "/api/v1/namespaces/default/pods", pod("c", "100m"))
	e.must(web.MethodPatch, "/api/v1/namespaces/default/pods/b/status", `{"status":{"phase":"Succeeded"}}`)
	e.until("q", `{"configmaps":"1","count/deployments.apps":"0","pods":"1","requests.cpu":"100m","services.nodeports":"0"}`)

	e.must(web.MethodPost, "/api/v1/namespaces/default/services", `{"metadata":{"name":"np"},"spec":{"type":"NodePort","ports":[{"port":80}]}}`)
	e.until("q", `{"configmaps":"1","count/deployments.apps":"0","pods":"1","requests.cpu":"100m","services.nodeports":"1"}`)
	e.must(web.MethodPatch, "/api/v1/namespaces/default/services/np", `{"spec":{"type":"ClusterIP","ports":[{"port":80}]}}`)
	e.until("q", `{"configmaps":"1","count/deployments.apps":"0","pods":"1","requests.cpu":"100m","services.nodeports":"0"}`)

	deployment := `{"metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`
	e.must(web.MethodPost, "/apis/apps/v1/namespaces/default/deployments", deployment)
	e.until("q", `{"configmaps":"1","count/deployments.apps":"1","pods":"1","requests.cpu":"100m","services.nodeports":"0"}`)
	e.must(web.MethodDelete, "/apis/apps/v1/namespaces/default/deployments/web", "")
	e.until("q", `{"configmaps":"1","count/deployments.apps":"0","pods":"1","requests.cpu":"100m","services.nodeports":"0"}`)

	// New limits are in force at once; what was used of them is counted.
	e.must(web.MethodPatch, quotas+"/q", `{"spec":{"hard":{"pods":"3","count/deployments.apps":null,"services.nodeports":null,"secrets":"2"}}}`)
	e.until("q", `{"configmaps":"1","pods":"1","requests.cpu":"100m","secrets":"0"}`)

	// A create refused as AlreadyExists was charged all the same (kube's
	// admission charges before the write is stored); a sync period later
	// the quota is counted again.
	e.settled()
	if _, err := e.do(web.MethodPost, "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"before"}}`); !client.IsConflict(err) {
		t.Fatalf("a second configmap before: %v", err)
	}
	if used := e.used("q"); used != `{"configmaps":"2","pods":"1","requests.cpu":"100m","secrets":"0"}` {
		t.Fatalf("charged: %s", used)
	}
	for deadline := time.Now().Add(patience); e.rq.Pending() == 0; { // the controller has heard of the charge: a recount is due later
		if time.Now().After(deadline) {
			t.Fatal("no recount due after a charge the controller did not count")
		}
		time.Sleep(time.Millisecond)
	}
	e.clock.Step(resourcequota.SyncPeriod)
	e.until("q", `{"configmaps":"1","pods":"1","requests.cpu":"100m","secrets":"0"}`)
	e.settled()

	// A status someone else wrote is reset a sync period later.
	e.must(web.MethodPatch, quotas+"/q/status", `{"status":{"hard":{"pods":"9","configmaps":"9"}}}`)
	for deadline := time.Now().Add(patience); e.rq.Pending() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no recount due after the status was changed")
		}
		time.Sleep(time.Millisecond)
	}
	e.clock.Step(resourcequota.SyncPeriod)
	for deadline := time.Now().Add(patience); ; {
		hard, _ := json.Marshal(object.Path(e.must(web.MethodGet, quotas+"/q", ""), "status", "hard"))
		if string(hard) == `{"configmaps":"5","count/widgets.example.com":"1","pods":"3","requests.cpu":"1","secrets":"2"}` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status.hard %s not reset", hard)
		}
		time.Sleep(time.Millisecond)
		e.clock.Step(10 * time.Millisecond)
	}
	e.settled()
}
