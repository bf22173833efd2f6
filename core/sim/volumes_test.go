package sim_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/object"
	"kubeplay/core/sim"
)

const (
	claims  = "/api/v1/namespaces/default/persistentvolumeclaims"
	volumes = "/api/v1/persistentvolumes"
)

// gone says whether the object at path no longer exists.
func (e *env) gone(path string) bool {
	_, err := e.c.Get(e.ctx, path)
	return client.IsNotFound(err)
}

// TestSIM_1_ClaimsProvisionedAsKind: the sandbox has kind's default
// StorageClass; a claim of it waits for its first Pod, then the local-path
// provisioner makes a volume on that Pod's node and the binder binds both,
// with kube's annotations and events; the claim, deleted, stays while a
// Pod uses it, and its volume goes with it.
func TestSIM_1_ClaimsProvisionedAsKind(t *testing.T) {
	e := newEnv(t, sim.Config{})
	sc := e.get("/apis/storage.k8s.io/v1/storageclasses/standard")
	if sc["provisioner"] != "rancher.io/local-path" || sc["volumeBindingMode"] != "WaitForFirstConsumer" || sc["reclaimPolicy"] != "Delete" ||
		object.StringMap(object.Meta(sc), "annotations")["storageclass.kubernetes.io/is-default-class"] != "true" {
		t.Fatalf("standard: %v", sc)
	}
	c := e.create(claims, `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"2Gi"}}}}`)
	if object.Path(c, "spec", "storageClassName") != "standard" || !slices.Equal(object.Strings(object.Meta(c), "finalizers"), []string{"kubernetes.io/pvc-protection"}) {
		t.Fatalf("new claim: %v", c)
	}
	e.until(time.Minute, "waiting for a consumer", func() bool { return len(e.events("default", "PersistentVolumeClaim", "data")) > 0 })
	e.create(pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"user"},"spec":{"containers":[{"name":"c","image":"busybox","command":["sleep","3600"]}],`+
		`"volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"data"}}]}}`)
	e.until(time.Minute, "claim bound", func() bool { return object.Path(e.get(claims+"/data"), "status", "phase") == "Bound" })
	c = e.get(claims + "/data")
	uid, node := object.MetaString(c, "uid"), object.String(object.Path(e.get(pods+"/user"), "spec", "nodeName"))
	name := "pvc-" + uid
	annotations := object.StringMap(object.Meta(c), "annotations")
	for k, want := range map[string]string{"pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes",
		"volume.beta.kubernetes.io/storage-provisioner": "rancher.io/local-path", "volume.kubernetes.io/storage-provisioner": "rancher.io/local-path",
		"volume.kubernetes.io/selected-node": node} {
		if annotations[k] != want {
			t.Errorf("claim annotation %s = %q, want %q", k, annotations[k], want)
		}
	}
	if object.Path(c, "spec", "volumeName") != name || object.Path(c, "status", "capacity", "storage") != "2Gi" ||
		!slices.Equal(object.Strings(c["status"].(map[string]any), "accessModes"), []string{"ReadWriteOnce"}) {
		t.Errorf("bound claim: %v %v", c["spec"], c["status"])
	}
	e.until(time.Minute, "volume bound", func() bool { return object.Path(e.get(volumes+"/"+name), "status", "phase") == "Bound" })
	pv := e.get(volumes + "/" + name)
	spec := pv["spec"].(map[string]any)
	if spec["persistentVolumeReclaimPolicy"] != "Delete" || spec["storageClassName"] != "standard" || object.Path(spec, "capacity", "storage") != "2Gi" ||
		object.Path(spec, "claimRef", "name") != "data" || object.Path(spec, "claimRef", "uid") != uid ||
		object.Path(spec, "hostPath", "path") != "/var/local-path-provisioner/"+name+"_default_data" ||
		mustJSON(spec["nodeAffinity"]) != `{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["`+node+`"]}]}]}}` ||
		object.StringMap(object.Meta(pv), "annotations")["pv.kubernetes.io/provisioned-by"] != "rancher.io/local-path" ||
		!slices.Equal(object.Strings(object.Meta(pv), "finalizers"), []string{"kubernetes.io/pv-protection"}) {
		t.Errorf("volume: %s", mustJSON(pv))
	}
	// Whether the binder saw the Pod before it was scheduled (and said so)
	// is a race.
	evs := slices.DeleteFunc(e.events("default", "PersistentVolumeClaim", "data"), func(ev string) bool {
		return ev == "WaitForPodScheduled waiting for pod user to be scheduled"
	})
	want := []string{"WaitForFirstConsumer waiting for first consumer to be created before binding",
		"ExternalProvisioning Waiting for a volume to be created either by the external provisioner 'rancher.io/local-path' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
		`Provisioning External provisioner is provisioning volume for claim "default/data"`,
		"ProvisioningSucceeded Successfully provisioned volume " + name}
	if strings.Join(evs, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s", strings.Join(evs, "\n"))
	}

	// In use, a deleted claim stays; once its Pod is gone, it goes, and so
	// does its volume.
	if _, err := e.c.Delete(e.ctx, claims+"/data"); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		e.clock.Step(100 * time.Millisecond)
		time.Sleep(time.Millisecond)
	}
	if e.gone(claims + "/data") {
		t.Fatal("a claim in use was deleted")
	}
	if _, err := e.c.Delete(e.ctx, pods+"/user?gracePeriodSeconds=0"); err != nil {
		t.Fatal(err)
	}
	e.until(time.Minute, "claim and volume gone", func() bool { return e.gone(claims+"/data") && e.gone(volumes+"/"+name) })
	e.until(time.Minute, "settled", func() bool { return e.cluster.Pending() == 0 })
}

// TestSIM_1_ClaimsBindVolumes: a volume made by hand is Available, a claim
// of its class that fits gets it (the smallest that fits), a claim that
// names a volume gets that one, and released, a volume is retained; once settled, nothing waits to happen (SIM-5).
func TestSIM_1_ClaimsBindVolumes(t *testing.T) {
	e := newEnv(t, sim.Config{})
	for _, v := range []struct{ name, size string }{{"big", "10Gi"}, {"small", "1Gi"}, {"fits", "3Gi"}} {
		e.create(volumes, `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"`+v.name+`"},"spec":{"capacity":{"storage":"`+v.size+`"},`+
			`"accessModes":["ReadWriteOnce","ReadOnlyMany"],"storageClassName":"manual","hostPath":{"path":"/data/`+v.name+`"}}}`)
	}
	e.until(time.Minute, "volumes available", func() bool {
		for _, pv := range e.list(volumes) {
			if object.Path(pv, "status", "phase") != "Available" {
				return false
			}
		}
		return true
	})
	e.create(claims, `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"logs"},"spec":{"storageClassName":"manual",`+
		`"accessModes":["ReadOnlyMany"],"resources":{"requests":{"storage":"2Gi"}}}}`)
	e.until(time.Minute, "claim bound", func() bool { return object.Path(e.get(claims+"/logs"), "status", "phase") == "Bound" })
	c := e.get(claims + "/logs")
	if object.Path(c, "spec", "volumeName") != "fits" || object.Path(c, "status", "capacity", "storage") != "3Gi" {
		t.Errorf("claim: %v %v", c["spec"], c["status"])
	}
	e.until(time.Minute, "volume bound", func() bool { return object.Path(e.get(volumes+"/fits"), "status", "phase") == "Bound" })
	pv := e.get(volumes + "/fits")
	if object.Path(pv, "spec", "claimRef", "uid") != object.MetaString(c, "uid") ||
		object.StringMap(object.Meta(pv), "annotations")["pv.kubernetes.io/bound-by-controller"] != "yes" {
		t.Errorf("volume: %s", mustJSON(pv))
	}
	// A claim may name its volume.
	e.create(claims, `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"named"},"spec":{"storageClassName":"manual","volumeName":"small",`+
		`"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`)
	e.until(time.Minute, "named claim bound", func() bool {
		return object.Path(e.get(claims+"/named"), "status", "phase") == "Bound" && object.Path(e.get(volumes+"/small"), "status", "phase") == "Bound"
	})
	if object.Path(e.get(volumes+"/small"), "spec", "claimRef", "name") != "named" {
		t.Errorf("small: %s", mustJSON(e.get(volumes+"/small")))
	}
	if _, err := e.c.Delete(e.ctx, claims+"/logs"); err != nil {
		t.Fatal(err)
	}
	e.until(time.Minute, "volume released", func() bool { return object.Path(e.get(volumes+"/fits"), "status", "phase") == "Released" })
	e.idle("idle storage")
	if e.gone(volumes + "/fits") {
		t.Error("a retained volume was deleted")
	}
}
