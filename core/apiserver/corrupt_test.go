package apiserver

import (
	"encoding/json"
	"testing"
	"time"
)

// kube-apiserver 1.32.13's answers below were taken from the refapi kit
// started with FEATURE_GATES=AllowUnsafeMalformedObjectDeletion=true, with
// the object made unreadable by writing an aescbc-looking value to its etcd
// key. (1.32.13 itself then panics on the unsafe delete, a nil object given
// to admission; the answer to it is 1.33's, the Status kube's delete handler
// makes when the deleter returns no object.)
const (
	corruptReadMessage = "StorageError: corrupt object, Code: 7, Key: /configmaps/default/bad, ResourceVersion: 0, " +
		"AdditionalErrorMsg: data from the storage is not transformable revision=0: identity transformer tried to read encrypted data"
	corruptUpdateMessage = "Internal error occurred: data from the storage is not transformable revision=0: identity transformer tried to read encrypted data"
)

// TestK8S_DEL_3_CorruptObject: an object the server cannot read (made so by
// /debug/kubeplay/corrupt) answers every read and write with kube's 500s,
// fails its collection's lists with StorageReadError, is invisible to
// watches, and goes only with ignoreStoreReadErrorWithClusterBreakingPotential,
// which readable and missing objects, and other options beside it, refuse.
func TestK8S_DEL_3_CorruptObject(t *testing.T) {
	s := newTestServer(t, testConfig{})
	const cms = "/api/v1/namespaces/default/configmaps"
	bad := cm("bad", nil, map[string]string{"a": "b"})
	bad["metadata"].(map[string]any)["finalizers"] = []string{"example.com/hold"}
	s.do("POST", cms, bad).must(t, 201)
	good := s.createCM("default", "good", nil)
	w := s.watch(cms + "?watch=1&resourceVersion=" + good.str("metadata", "resourceVersion"))

	s.do("GET", "/debug/kubeplay/corrupt?path="+cms+"/bad", nil).wantStatus(t, 405, "MethodNotAllowed", "")
	s.do("POST", "/debug/kubeplay/corrupt?path="+cms, nil).wantStatus(t, 400, "BadRequest", `path "/api/v1/namespaces/default/configmaps" names no object`)
	s.do("POST", "/debug/kubeplay/corrupt?path="+cms+"/missing", nil).wantStatus(t, 404, "NotFound", `configmaps "missing" not found`)
	s.do("POST", "/debug/kubeplay/corrupt?path="+cms+"/bad", nil).must(t, 200)

	r := s.do("GET", cms+"/bad", nil).wantStatus(t, 500, "InternalError", "Internal error occurred: "+corruptReadMessage)
	if got := string(mustJSON(r.Obj["details"])); got != `{"causes":[{"message":"`+corruptReadMessage+`"}]}` {
		t.Errorf("details %s", got)
	}
	s.do("DELETE", cms+"/bad", nil).wantStatus(t, 500, "InternalError", "Internal error occurred: "+corruptReadMessage)
	s.do("PUT", cms+"/bad", cm("bad", nil, nil)).wantStatus(t, 500, "InternalError", corruptUpdateMessage)
	s.do("PATCH", cms+"/bad", "{}", "Content-Type", "application/merge-patch+json").wantStatus(t, 500, "InternalError", corruptUpdateMessage)
	for _, path := range []string{cms, "/api/v1/configmaps"} {
		r := s.do("GET", path, nil).wantStatus(t, 500, "StorageReadError", "failed to read one or more configmaps from the storage")
		want := `{"causes":[{"field":"/registry/configmaps/default/bad","message":"StorageError: corrupt object, Code: 7, Key: /registry/configmaps/default/bad, ResourceVersion: 0, AdditionalErrorMsg: data from the storage is not transformable revision=0: identity transformer tried to read encrypted data","reason":"UnexpectedServerResponse"}],"kind":"configmaps","name":"list"}`
		if got := string(mustJSON(r.Obj["details"])); got != want {
			t.Errorf("%s: details\n got %s\nwant %s", path, got, want)
		}
	}

	const force = "?ignoreStoreReadErrorWithClusterBreakingPotential=true"
	const onlyCorrupt = `ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option`
	s.do("DELETE", cms+"/good"+force, nil).wantStatus(t, 422, "Invalid", `configmaps "good" is invalid: `+onlyCorrupt)
	s.do("DELETE", cms+"/missing"+force, nil).wantStatus(t, 422, "Invalid", `configmaps "missing" is invalid: `+onlyCorrupt)
	const together = "ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with ."
	s.do("DELETE", cms+"/bad", map[string]any{"ignoreStoreReadErrorWithClusterBreakingPotential": true, "dryRun": []string{"All"},
		"gracePeriodSeconds": 0, "propagationPolicy": "Orphan", "preconditions": map[string]any{"uid": "x"}}).
		wantStatus(t, 422, "Invalid", `DeleteOptions.meta.k8s.io "" is invalid: [`+together+"dryRun, "+together+"propagationPolicy, "+together+"gracePeriodSeconds, "+together+"preconditions]")
	s.do("DELETE", cms+"/bad", map[string]any{"ignoreStoreReadErrorWithClusterBreakingPotential": true, "orphanDependents": true, "gracePeriodSeconds": 3}).
		wantStatus(t, 422, "Invalid", `DeleteOptions.meta.k8s.io "" is invalid: [`+together+"orphanDependents, "+together+"gracePeriodSeconds]")

	// Its finalizer does not hold it.
	r = s.do("DELETE", cms+"/bad"+force, nil).must(t, 200)
	if got := string(r.Body); !jsonEqual(got, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"bad","kind":"ConfigMap"},"code":200}`) {
		t.Errorf("unsafe delete answered %s", got)
	}
	s.do("GET", cms+"/bad", nil).must(t, 404)
	if names := s.do("GET", cms, nil).must(t, 200).names(); len(names) != 1 || names[0] != "good" {
		t.Errorf("after the unsafe delete: %v", names)
	}
	// The watch heard nothing of the corrupt object: its next event is the
	// next readable change.
	s.createCM("default", "after", nil)
	if e := w.next(); e.Type != "ADDED" || e.name() != "after" {
		t.Errorf("watch: %s %s", e.Type, e.name())
	}
	w.quiet(50 * time.Millisecond)
}

// jsonEqual says whether two JSON texts hold the same value.
func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return string(mustJSON(x)) == string(mustJSON(y))
}
