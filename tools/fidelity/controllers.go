package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
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
