package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"kubeplay/core/apiserver"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/sandbox"
)

// TestSIM_4_EventsAsClientGoRecordsThem: a repeated event counts up the first
// one; after ten messages of one reason about one object within ten minutes,
// the next ones go to one aggregate event, "(combined from similar events)",
// without a reporting component, as client-go's EventAggregator makes it.
func TestSIM_4_EventsAsClientGoRecordsThem(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	srv, err := sandbox.NewServer(sandbox.Config{API: apiserver.Config{Clock: fake}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := controllers.NewClient(srv, "deployment-controller")
	r := controllers.NewRecorder(c, fake, "deployment-controller", "")
	ctx := context.Background()
	ref := controllers.Reference{Kind: "Deployment", Namespace: "default", Name: "web", UID: "u1", APIVersion: "apps/v1"}
	events := func() []object.Object {
		t.Helper()
		l, err := c.Get(ctx, "/api/v1/namespaces/default/events")
		if err != nil {
			t.Fatal(err)
		}
		var out []object.Object
		for _, it := range object.Objects(l, "items") {
			out = append(out, it)
		}
		return out
	}

	r.Eventf(ctx, ref, controllers.Normal, "ScalingReplicaSet", "Scaled up replica set web-1 from 0 to 1")
	fake.Step(time.Second)
	r.Eventf(ctx, ref, controllers.Normal, "ScalingReplicaSet", "Scaled up replica set web-1 from 0 to 1")
	if evs := events(); len(evs) != 1 || object.Int(evs[0]["count"]) != 2 || evs[0]["lastTimestamp"] != "2026-03-01T09:00:01Z" {
		t.Fatalf("a repeat: %v", evs)
	}
	for i := 2; i <= 11; i++ {
		r.Eventf(ctx, ref, controllers.Normal, "ScalingReplicaSet", "Scaled up replica set web-1 from %d to %d", i-1, i)
	}
	evs := events()
	if len(evs) != 10 {
		t.Fatalf("%d events, want 9 and an aggregate", len(evs))
	}
	var combined object.Object
	for _, ev := range evs {
		if strings.HasPrefix(object.String(ev["message"]), "(combined") {
			combined = ev
		}
	}
	if combined == nil || combined["message"] != "(combined from similar events): Scaled up replica set web-1 from 10 to 11" ||
		object.Int(combined["count"]) != 2 || combined["reportingComponent"] != "" || object.Path(combined, "source", "component") != "deployment-controller" {
		t.Errorf("aggregate: %v", combined)
	}

	// Ten minutes later, a message is an event of its own again.
	fake.Step(11 * time.Minute)
	r.Eventf(ctx, ref, controllers.Normal, "ScalingReplicaSet", "Scaled down replica set web-1 from 11 to 3")
	if evs := events(); len(evs) != 11 || fmt.Sprint(evs[10]["message"]) != "Scaled down replica set web-1 from 11 to 3" {
		t.Errorf("after the interval: %d events, last %v", len(evs), evs[len(evs)-1]["message"])
	}
}
