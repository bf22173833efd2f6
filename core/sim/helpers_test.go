package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/sandbox"
	"kubeplay/core/sim"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// env is a core and its simulated cluster on a fake clock, and an admin's
// client of it.
type env struct {
	t       *testing.T
	srv     *sandbox.Server
	cluster *sim.Cluster
	clock   *clock.Fake
	c       *client.Client
	ctx     context.Context
}

// start is the time the tests' clocks start at.
var start = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func newEnv(t *testing.T, cfg sim.Config) *env {
	t.Helper()
	return newEnvWith(t, sandbox.Config{}, cfg)
}

// newEnvWith is newEnv with the core configured by core (its clock and logs
// are the env's).
func newEnvWith(t *testing.T, core sandbox.Config, cfg sim.Config) *env {
	t.Helper()
	fake := clock.NewFake(start)
	core.API.Clock, core.API.PodLogs = fake, sim.Logs(fake)
	srv, err := sandbox.NewServer(core)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Clock = fake
	cl, err := sim.Start(srv, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cl.Stop()
		srv.Close()
	})
	return &env{t: t, srv: srv, cluster: cl, clock: fake, ctx: context.Background(),
		c: client.New(srv, user.User{Name: "admin", Groups: []string{user.SystemPrivileged, user.AllAuthenticated}}, "kubectl/v1.32.13")}
}

// until moves the fake clock on, a little at a time (1/1200 of limit, at
// least 50ms), until cond holds: the
// simulation's timers fire as it passes them. It fails the test when the
// simulation does not get there within limit of simulated time.
func (e *env) until(limit time.Duration, what string, cond func() bool) {
	e.t.Helper()
	deadline := e.clock.Now().Add(limit)
	defer func(from time.Time) { e.t.Logf("%s: %v", what, e.clock.Now().Sub(from)) }(e.clock.Now())
	for !cond() {
		if e.clock.Now().After(deadline) {
			e.t.Fatalf("%s: not within %v", what, limit)
		}
		// Let the controllers act on what they have, then move time on.
		for range 20 {
			if cond() {
				return
			}
			time.Sleep(time.Millisecond)
		}
		e.clock.Step(max(50*time.Millisecond, limit/1200))
	}
}

func (e *env) create(path, doc string) object.Object {
	e.t.Helper()
	obj, err := object.Decode([]byte(doc))
	if err != nil {
		e.t.Fatal(err)
	}
	out, err := e.c.Create(e.ctx, path, obj)
	if err != nil {
		e.t.Fatalf("create %s: %v", path, err)
	}
	return out
}

func (e *env) get(path string) object.Object {
	e.t.Helper()
	obj, err := e.c.Get(e.ctx, path)
	if err != nil {
		e.t.Fatalf("get %s: %v", path, err)
	}
	return obj
}

func (e *env) patch(path, patch string) object.Object {
	e.t.Helper()
	b, err := e.c.Do(e.ctx, web.MethodPatch, path, "application/strategic-merge-patch+json", []byte(patch))
	if err != nil {
		e.t.Fatalf("patch %s: %v", path, err)
	}
	obj, _ := object.Decode(b)
	return obj
}

func (e *env) list(path string) []object.Object {
	e.t.Helper()
	l := e.get(path)
	var out []object.Object
	for _, it := range l["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// num is an integer field of obj.
func num(obj object.Object, path ...string) int64 { return object.Int(object.Path(obj, path...)) }

// deploymentDone is `kubectl rollout status`'s test of a finished rollout.
func (e *env) deploymentDone(ns, name string) bool {
	d, err := e.c.Get(e.ctx, "/apis/apps/v1/namespaces/"+ns+"/deployments/"+name)
	if err != nil {
		return false
	}
	replicas := num(d, "spec", "replicas")
	return num(d, "status", "observedGeneration") >= num(d, "metadata", "generation") &&
		num(d, "status", "updatedReplicas") == replicas && num(d, "status", "replicas") == replicas &&
		num(d, "status", "availableReplicas") == replicas
}

// events are the reasons and messages of the events about an object, in the
// order they were first recorded.
func (e *env) events(ns, kind, name string) []string {
	e.t.Helper()
	var out []string
	items := e.list("/api/v1/namespaces/" + ns + "/events?fieldSelector=involvedObject.kind%3D" + kind + "%2CinvolvedObject.name%3D" + name)
	type ev struct {
		order string
		text  string
	}
	var evs []ev
	for _, it := range items {
		_, nanos, _ := strings.Cut(object.MetaString(it, "name"), name+".")
		evs = append(evs, ev{fmt.Sprintf("%020s", nanos), object.String(it["reason"]) + " " + object.String(it["message"])})
	}
	for i := range evs {
		for j := i + 1; j < len(evs); j++ {
			if evs[j].order < evs[i].order {
				evs[i], evs[j] = evs[j], evs[i]
			}
		}
	}
	for _, x := range evs {
		out = append(out, x.text)
	}
	return out
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// idle checks that the settled simulation stays idle: twenty minutes pass
// with nothing pending and nothing written; what names the idle part.
func (e *env) idle(what string) {
	e.t.Helper()
	e.until(time.Minute, "settled", func() bool { return e.cluster.Pending() == 0 })
	rev := e.srv.Storage().Revision()
	for range 20 {
		e.clock.Step(time.Minute)
		time.Sleep(time.Millisecond)
	}
	if e.cluster.Pending() != 0 || e.srv.Storage().Revision() != rev {
		e.t.Errorf("%s worked: %d pending, revision %d after %d", what, e.cluster.Pending(), e.srv.Storage().Revision(), rev)
	}
}
