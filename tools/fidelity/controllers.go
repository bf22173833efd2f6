package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"
)

// The reference is a kube-apiserver without kube-controller-manager, whose
// ServiceAccount controller gives every namespace its `default`
// ServiceAccount, which ServiceAccount admission requires of a Pod; kubeplay
// runs that controller in every sandbox (its root CA publisher only in a
// simulated cluster, which the harness does not start). Once a step has made
// a namespace or deleted accounts, the harness waits for kubeplay's
// controller and makes on the reference what it made, as
// kube-controller-manager.

// controllerObjects are what the controllers kubeplay runs keep in every
// namespace.
var controllerObjects = []struct{ resource, name string }{
	{"serviceaccounts", "default"},
}

// controllerAgent is kube-controller-manager's User-Agent (its first segment
// names the field manager).
const controllerAgent = "kube-controller-manager/v1.32.13 (linux/amd64) kubernetes/fidelity"

// makesControllerWork says whether a step that succeeded on both sides may
// have set the controllers to work: a namespace made, an account deleted.
func makesControllerWork(s Step, raws [2]raw) bool {
	if raws[sideKubeplay].status/100 != 2 || raws[sideKube].status/100 != 2 {
		return false
	}
	for _, q := range s.Query {
		if q[0] == "dryRun" {
			return false
		}
	}
	switch {
	case s.Kind == "Namespace":
		return s.Verb == "create"
	case s.Kind == "ServiceAccount":
		return s.Verb == "delete" || s.Verb == "deletecollection"
	}
	return false
}

// settleControllers makes on the reference, in namespace ns, the objects
// kubeplay's controllers keep there and it lacks, once kubeplay has them
// (waited for up to settleMax).
func (p *player) settleControllers(ctx context.Context, ns string) {
	kubeplay, kube := p.targets[sideKubeplay], p.targets[sideKube]
	for _, o := range controllerObjects {
		collection := "/api/v1/namespaces/" + ns + "/" + o.resource
		var made []byte
		for deadline := time.Now().Add(settleMax); made == nil && time.Now().Before(deadline) && ctx.Err() == nil; {
			if made = kubeplay.get(ctx, collection+"/"+o.name); made == nil {
				time.Sleep(20 * time.Millisecond)
			}
		}
		if made == nil || kube.get(ctx, collection+"/"+o.name) != nil {
			continue
		}
		var obj map[string]any
		if json.Unmarshal(made, &obj) != nil {
			continue
		}
		meta, _ := obj["metadata"].(map[string]any)
		mine := map[string]any{"name": o.name}
		if a, ok := meta["annotations"]; ok {
			mine["annotations"] = a
		}
		obj["metadata"] = mine
		body, err := json.Marshal(obj)
		if err != nil {
			continue
		}
		kube.do(ctx, "POST", collection, body, controllerAgent)
	}
}

// After a step that deletes on both sides, the harness does on the
// reference what kube-controller-manager's garbage collector and namespace
// controller would do there, once kubeplay's have done it (and only what they
// did): the reference alone would keep an object deleted with Orphan or
// Foreground propagation for ever (its orphan or foregroundDeletion
// finalizer), and a deleted namespace Terminating for ever.

// namespaceSettleMax is how long kubeplay's namespace controller is waited
// for to remove a namespace (it deletes every collection in it first).
const namespaceSettleMax = 5 * time.Second

// gcFinalizers are the finalizers kube's garbage collector removes.
var gcFinalizers = []string{"orphan", "foregroundDeletion"}

// deletesOnBoth says whether a step deleted something on both sides.
func deletesOnBoth(s Step, raws [2]raw) bool {
	return (s.Verb == "delete" || s.Verb == "deletecollection") &&
		raws[sideKubeplay].status/100 == 2 && raws[sideKube].status/100 == 2
}

// settleDeletions finishes, on the reference, the deletions of step s (of the
// session in namespace ns) that kubeplay's collector and namespace controller
// finished: it waits (up to settleMax) for each object the reference holds
// being deleted to be gone from kubeplay or to have lost the collector's
// finalizers there, then removes them on the reference as the collector does
// (a merge patch of the finalizers left, at the object's resourceVersion), and
// a namespace's content and its "kubernetes" finalizer as the namespace
// controller does.
func (p *player) settleDeletions(ctx context.Context, s Step, ns string) {
	if strings.Contains(strings.ReplaceAll(s.Path, "{{ns}}", ""), "{{") {
		return
	}
	collection := strings.ReplaceAll(s.Path, "{{ns}}", ns)
	if s.Verb == "delete" {
		collection = path.Dir(collection)
	}
	kubeplay, kube := p.targets[sideKubeplay], p.targets[sideKube]
	var list struct {
		Items []map[string]any `json:"items"`
	}
	// A consistent list, which brings a server's watch caches to its newest
	// revision: kubeplay is sent the same, so that the harness's reads move
	// both servers' caches alike.
	kubeplay.get(ctx, collection)
	if json.Unmarshal(kube.get(ctx, collection), &list) != nil {
		return
	}
	for _, item := range list.Items {
		meta, _ := item["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		if meta["deletionTimestamp"] == nil || !strings.Contains(collection, "/namespaces/"+ns+"/") && name != ns && !strings.HasPrefix(name, ns+"-") {
			continue
		}
		isNamespace := collection == "/api/v1/namespaces"
		held := slices.ContainsFunc(stringList(meta["finalizers"]), func(f string) bool { return slices.Contains(gcFinalizers, f) })
		if !held && !isNamespace {
			continue
		}
		// What kubeplay has of it once its controllers are done: nil when gone.
		var theirs map[string]any
		wait := settleMax
		if isNamespace {
			wait = namespaceSettleMax
		}
		for deadline := time.Now().Add(wait); ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
			theirs = nil
			if b := kubeplay.get(ctx, collection+"/"+name); b != nil && json.Unmarshal(b, &theirs) != nil {
				return
			}
			if theirs == nil || !time.Now().Before(deadline) {
				break
			}
			if m, _ := theirs["metadata"].(map[string]any); !isNamespace &&
				!slices.ContainsFunc(stringList(m["finalizers"]), func(f string) bool { return slices.Contains(gcFinalizers, f) }) {
				break
			}
		}
		if isNamespace && theirs == nil {
			p.finishNamespace(ctx, item)
		}
		var left []string
		if theirs != nil {
			m, _ := theirs["metadata"].(map[string]any)
			left = stringList(m["finalizers"])
		}
		kept := slices.DeleteFunc(stringList(meta["finalizers"]), func(f string) bool {
			return slices.Contains(gcFinalizers, f) && !slices.Contains(left, f)
		})
		if len(kept) == len(stringList(meta["finalizers"])) {
			continue
		}
		patch := map[string]any{"metadata": map[string]any{"finalizers": kept, "resourceVersion": meta["resourceVersion"]}}
		if len(kept) == 0 {
			patch["metadata"].(map[string]any)["finalizers"] = nil
		}
		if isNamespace {
			// The namespace controller's finalize wrote a newer revision.
			delete(patch["metadata"].(map[string]any), "resourceVersion")
		}
		body, _ := json.Marshal(patch)
		kube.doPatch(ctx, collection+"/"+name, body, gcAgent)
	}
}

// finishNamespace does on the reference what kube's namespace controller does
// with a namespace being deleted: it deletes every namespaced collection in it
// (found through discovery), then removes its "kubernetes" finalizer through
// its finalize subresource (which removes it when no other finalizer holds it).
func (p *player) finishNamespace(ctx context.Context, ns map[string]any) {
	kube := p.targets[sideKube]
	meta, _ := ns["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	for _, c := range kube.namespacedCollections(ctx) {
		kube.do(ctx, "DELETE", strings.Replace(c, "{namespace}", name, 1), nil, namespaceAgent)
	}
	spec, _ := ns["spec"].(map[string]any)
	if spec == nil || !slices.Contains(stringList(spec["finalizers"]), "kubernetes") {
		return
	}
	latest := kube.get(ctx, "/api/v1/namespaces/"+name)
	var cur map[string]any
	if json.Unmarshal(latest, &cur) != nil {
		return
	}
	curSpec, _ := cur["spec"].(map[string]any)
	if curSpec == nil {
		return
	}
	curSpec["finalizers"] = slices.DeleteFunc(stringList(curSpec["finalizers"]), func(f string) bool { return f == "kubernetes" })
	body, err := json.Marshal(cur)
	if err != nil {
		return
	}
	kube.do(ctx, "PUT", "/api/v1/namespaces/"+name+"/finalize", body, namespaceAgent)
}

// The User-Agents of kube-controller-manager's garbage collector and
// namespace controller (the first segment names the field manager).
const (
	gcAgent        = "kube-controller-manager/v1.32.13 (linux/amd64) kubernetes/fidelity/system:serviceaccount:kube-system:generic-garbage-collector"
	namespaceAgent = "kube-controller-manager/v1.32.13 (linux/amd64) kubernetes/fidelity/system:serviceaccount:kube-system:namespace-controller"
)

// namespacedCollections are the collection paths, {namespace} for the
// namespace, of every namespaced resource t serves that can be deleted as a
// collection (its preferred versions, as the namespace controller's
// discovery finds them); read once.
func (t *target) namespacedCollections(ctx context.Context) []string {
	t.discovery.Do(func() {
		versions := []string{"/api/v1"}
		var groups struct {
			Groups []struct {
				PreferredVersion struct{ GroupVersion string } `json:"preferredVersion"`
			} `json:"groups"`
		}
		if json.Unmarshal(t.get(ctx, "/apis"), &groups) != nil {
			return
		}
		for _, g := range groups.Groups {
			versions = append(versions, "/apis/"+g.PreferredVersion.GroupVersion)
		}
		for _, gv := range versions {
			var rl struct {
				Resources []struct {
					Name       string   `json:"name"`
					Namespaced bool     `json:"namespaced"`
					Verbs      []string `json:"verbs"`
				} `json:"resources"`
			}
			if json.Unmarshal(t.get(ctx, gv), &rl) != nil {
				continue
			}
			for _, r := range rl.Resources {
				if r.Namespaced && !strings.Contains(r.Name, "/") && slices.Contains(r.Verbs, "deletecollection") {
					t.collections = append(t.collections, gv+"/namespaces/{namespace}/"+r.Name)
				}
			}
		}
	})
	return t.collections
}

// stringList is a JSON list of strings as decoded (other values left out).
func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// doPatch sends a JSON merge patch of t's own.
func (t *target) doPatch(ctx context.Context, path string, body []byte, agent string) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, "PATCH", t.base+path, bytes.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("User-Agent", agent)
	req.Header.Set("Content-Type", "application/merge-patch+json")
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	if res, err := t.client.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}

// get is the object at path as t has it, or nil.
func (t *target) get(ctx context.Context, path string) []byte {
	status, body := t.do(ctx, "GET", path, nil, userAgent)
	if status != http.StatusOK {
		return nil
	}
	return body
}

// do sends a request of the harness's own to t and returns the answer's
// status and body (0 when there was none).
func (t *target) do(ctx context.Context, method, path string, body []byte, agent string) (int, []byte) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, method, t.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil
	}
	req.Header.Set("User-Agent", agent)
	req.Header.Set("Content-Type", "application/json")
	if t.token != "" {
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	res, err := t.client.Do(req)
	if err != nil {
		return 0, nil
	}
	defer res.Body.Close()
	out, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	if err != nil {
		return 0, nil
	}
	return res.StatusCode, out
}
