package sim_test

import (
	"fmt"
	"testing"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/sim"
)

// TestSIM_1_StatefulSetPartitionedUpdate: a StatefulSet's new template
// rolls out only above its partition (a canary, then phase by phase); a Pod
// deleted below the partition comes back of the current revision, one above
// it of the update revision; once every Pod is updated, the update revision
// is the current one.
func TestSIM_1_StatefulSetPartitionedUpdate(t *testing.T) {
	e := newEnv(t, sim.Config{})
	const sets = "/apis/apps/v1/namespaces/default/statefulsets"
	e.create(sets, `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"ss2"},"spec":{"serviceName":"test","replicas":3,`+
		`"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":3}},"selector":{"matchLabels":{"app":"ss2"}},`+
		`"template":{"metadata":{"labels":{"app":"ss2"}},"spec":{"containers":[{"name":"webserver","image":"httpd:2.4.38-4"}]}}}}`)
	e.until(time.Minute, "three ready", func() bool { return num(e.get(sets+"/ss2"), "status", "readyReplicas") == 3 })
	status := func() (current, update string) {
		st := object.Child(e.get(sets+"/ss2"), "status")
		return object.String(st["currentRevision"]), object.String(st["updateRevision"])
	}
	first, update := status()
	if first != update || first == "" {
		t.Fatalf("created with current %q, update %q", first, update)
	}
	// check says which Pods are of the current revision (the old image) and
	// which of the update revision (the new one).
	check := func(what string, partition int, current, update string) {
		t.Helper()
		for i := range 3 {
			p := e.get(fmt.Sprintf("%s/ss2-%d", pods, i))
			image := object.Path(p, "spec", "containers").([]any)[0].(map[string]any)["image"]
			want, wantImage := current, "httpd:2.4.38-4"
			if i >= partition {
				want, wantImage = update, "httpd:2.4.39-4"
			}
			if got := object.Labels(p)["controller-revision-hash"]; got != want || image != wantImage {
				t.Errorf("%s: ss2-%d of revision %s with %s, want %s with %s", what, i, got, image, want, wantImage)
			}
		}
	}
	e.patch(sets+"/ss2", `{"spec":{"template":{"spec":{"containers":[{"name":"webserver","image":"httpd:2.4.39-4"}]}}}}`)
	e.until(time.Minute, "a new revision", func() bool { _, u := status(); return u != first })
	_, update = status()
	check("partition 3", 3, first, update)

	updated := func(partition int) func() bool {
		return func() bool {
			for i := partition; i < 3; i++ {
				ps := e.list(pods + "?fieldSelector=metadata.name%3Dss2-" + fmt.Sprint(i))
				if len(ps) != 1 || object.Labels(ps[0])["controller-revision-hash"] != update || object.Path(ps[0], "status", "phase") != "Running" {
					return false
				}
			}
			return num(e.get(sets+"/ss2"), "status", "readyReplicas") == 3
		}
	}
	e.patch(sets+"/ss2", `{"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}}}}`)
	e.until(time.Minute, "the canary", updated(2))
	check("partition 2", 2, first, update)

	uids := map[string]string{}
	for _, name := range []string{"ss2-0", "ss2-2"} {
		uids[name] = object.MetaString(e.get(pods+"/"+name), "uid")
		if _, err := e.c.Delete(e.ctx, pods+"/"+name); err != nil {
			t.Fatal(err)
		}
	}
	e.until(time.Minute, "deleted Pods back", func() bool {
		for name, uid := range uids {
			ps := e.list(pods + "?fieldSelector=metadata.name%3D" + name)
			if len(ps) != 1 || object.MetaString(ps[0], "uid") == uid || object.Path(ps[0], "status", "phase") != "Running" {
				return false
			}
		}
		return true
	})
	check("after deleting ss2-0 and ss2-2", 2, first, update)

	for partition := 1; partition >= 0; partition-- {
		e.patch(sets+"/ss2", fmt.Sprintf(`{"spec":{"updateStrategy":{"rollingUpdate":{"partition":%d}}}}`, partition))
		e.until(time.Minute, fmt.Sprint("partition ", partition), updated(partition))
		check(fmt.Sprint("partition ", partition), partition, first, update)
	}
	e.until(time.Minute, "update revision current", func() bool { c, u := status(); return c == u })
}

// TestSIM_1_StatefulSetRecreatesRefusedPod: a stateful Pod the kubelet
// refuses (its host port taken on its node) is deleted and made again, until
// the port is free and it runs.
func TestSIM_1_StatefulSetRecreatesRefusedPod(t *testing.T) {
	e := newEnv(t, sim.Config{})
	e.create(pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"test-pod"},"spec":{"nodeName":"kubeplay-worker",`+
		`"containers":[{"name":"webserver","image":"httpd","ports":[{"name":"conflict","containerPort":21017,"hostPort":21017}]}]}}`)
	e.until(time.Minute, "test-pod running", func() bool { return e.phase("test-pod") == "Running" })
	e.create("/apis/apps/v1/namespaces/default/statefulsets", `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"ss"},"spec":{`+
		`"serviceName":"test","replicas":1,"selector":{"matchLabels":{"app":"ss"}},"template":{"metadata":{"labels":{"app":"ss"}},"spec":{"nodeName":"kubeplay-worker",`+
		`"containers":[{"name":"webserver","image":"httpd","ports":[{"name":"conflict","containerPort":21017,"hostPort":21017}]}]}}}}`)
	var first string
	e.until(time.Minute, "ss-0 refused", func() bool {
		ps := e.list(pods + "?fieldSelector=metadata.name%3Dss-0")
		if len(ps) == 1 && object.Path(ps[0], "status", "phase") == "Failed" {
			first = object.MetaString(ps[0], "uid")
		}
		return first != ""
	})
	e.until(time.Minute, "ss-0 deleted and made again", func() bool {
		ps := e.list(pods + "?fieldSelector=metadata.name%3Dss-0")
		return len(ps) == 1 && object.MetaString(ps[0], "uid") != first
	})
	if _, err := e.c.Delete(e.ctx, pods+"/test-pod"); err != nil {
		t.Fatal(err)
	}
	e.until(time.Minute, "ss-0 made again and running", func() bool {
		ps := e.list(pods + "?fieldSelector=metadata.name%3Dss-0")
		return len(ps) == 1 && object.MetaString(ps[0], "uid") != first && object.Path(ps[0], "status", "phase") == "Running"
	})
}
