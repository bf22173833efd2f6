// Package tainteviction is kube-controller-manager's taint eviction controller
// (pkg/controller/tainteviction) as an API client of the core, acting with
// the node controller's identity as kube's does
// (system:serviceaccount:kube-system:node-controller), its events from
// taint-eviction-controller. A Pod bound to a node with NoExecute taints it
// does not tolerate is deleted at once; one that tolerates them for a while
// (tolerationSeconds, the least of the tolerations used) is deleted when that
// time has passed since the controller first saw it so, unless the taints go
// or the Pod does first; one that tolerates them forever stays. Before
// deleting, it gives the Pod the DisruptionTarget condition kube gives it.
package tainteviction

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

const (
	reason = "TaintManagerEviction" // of its events
	// The DisruptionTarget condition kube's taint eviction gives a Pod it deletes.
	disruptionReason  = "DeletionByTaintManager"
	disruptionMessage = "Taint manager: deleting due to NoExecute taint"
)

// Controller is the taint eviction controller.
type Controller struct {
	controllers.Base
	pods  *client.TypedInformer[*controllers.Pod]
	nodes *client.TypedInformer[*controllers.Node]

	mu        sync.Mutex
	scheduled map[string]eviction // by Pod key
}

// eviction is a Pod's deletion the controller has scheduled: when it first
// saw the Pod tolerating its node's taints for a while, and when it is due.
type eviction struct{ created, due time.Time }

// New is the taint eviction controller, acting through h.
func New(h web.Handler, clk clock.Clock) *Controller {
	tc := &Controller{Base: controllers.NewBase(h, clk, "node-controller", "taint-eviction-controller"),
		scheduled: map[string]eviction{}}
	shared := controllers.SharedInformerClient(h)
	queuePod := func(p *controllers.Pod) { tc.Queue.Add(p.Metadata.Key()) }
	// kube looks at a Pod again when it is bound or its tolerations change,
	// not at every change of its status.
	tc.pods = client.NewTypedInformer(shared, "/api/v1/pods", controllers.Codec[controllers.Pod](), client.TypedHandler[*controllers.Pod]{
		Add: queuePod,
		Update: func(old, p *controllers.Pod) {
			if old.Spec.NodeName != p.Spec.NodeName || !slices.EqualFunc(old.Spec.Tolerations, p.Spec.Tolerations, sameToleration) {
				queuePod(p)
			}
		},
		Delete: queuePod,
	}, map[string]func(*controllers.Pod) []string{"node": func(p *controllers.Pod) []string { return []string{p.Spec.NodeName} }}, clk)
	queueNode := func(n *controllers.Node) {
		for _, p := range tc.pods.ByIndex("node", n.Metadata.Name) {
			queuePod(p)
		}
	}
	tc.nodes = client.NewTypedInformer(shared, "/api/v1/nodes", controllers.Codec[controllers.Node](), client.TypedHandler[*controllers.Node]{
		Add: queueNode,
		Update: func(old, n *controllers.Node) {
			if !slices.Equal(noExecute(old.Spec.Taints), noExecute(n.Spec.Taints)) {
				queueNode(n)
			}
		},
	}, nil, clk)
	return tc
}

// Run works until ctx is done.
func (tc *Controller) Run(ctx context.Context) {
	controllers.Run(ctx, tc.Queue, tc.sync, tc.pods, tc.nodes)
}

// sync decides the fate of the Pod at key as kube's processPodOnNode does,
// and deletes it when that is due.
func (tc *Controller) sync(ctx context.Context, key string) error {
	p, ok := tc.pods.Get(key)
	if !ok {
		tc.cancel(ctx, key)
		return nil
	}
	if p.Spec.NodeName == "" {
		return nil
	}
	n, ok := tc.nodes.Get(p.Spec.NodeName)
	if !ok {
		return nil
	}
	taints := noExecute(n.Spec.Taints)
	if len(taints) == 0 {
		tc.cancel(ctx, key)
		return nil
	}
	now := tc.Clock.Now()
	tolerated, used := matching(taints, p.Spec.Tolerations)
	if !tolerated {
		tc.cancel(ctx, key)
		return tc.evict(ctx, p)
	}
	wait, forever := minTolerationTime(used)
	if forever {
		tc.cancel(ctx, key)
		return nil
	}
	tc.mu.Lock()
	e, ok := tc.scheduled[key]
	if !ok {
		e = eviction{created: now, due: now.Add(wait)}
		tc.scheduled[key] = e
	}
	tc.mu.Unlock()
	if e.due.After(now) {
		tc.Queue.AddAfter(key, e.due.Sub(now))
		return nil
	}
	return tc.evict(ctx, p)
}

// cancel forgets a scheduled deletion, with kube's event, if there was one.
func (tc *Controller) cancel(ctx context.Context, key string) {
	tc.mu.Lock()
	_, ok := tc.scheduled[key]
	delete(tc.scheduled, key)
	tc.mu.Unlock()
	if ok {
		tc.Events.Eventf(ctx, podRef(key), controllers.Normal, reason, "Cancelling deletion of Pod %s", key)
	}
}

// evict marks the Pod with the DisruptionTarget condition, unless it has
// it, and deletes it.
func (tc *Controller) evict(ctx context.Context, p *controllers.Pod) error {
	key := p.Metadata.Key()
	tc.Events.Eventf(ctx, podRef(key), controllers.Normal, reason, "Marking for deletion Pod %s", key)
	path := "/api/v1/namespaces/" + p.Metadata.Namespace + "/pods/" + p.Metadata.Name
	if c := controllers.FindCondition(p.Status.Conditions, "DisruptionTarget"); c == nil || c.Status != "True" || c.Reason != disruptionReason || c.Message != disruptionMessage {
		patch, err := json.Marshal(map[string]any{
			"metadata": map[string]any{"uid": p.Metadata.UID},
			"status": map[string]any{"conditions": []any{map[string]any{"type": "DisruptionTarget", "status": "True",
				"lastProbeTime": nil, "lastTransitionTime": object.Timestamp(tc.Clock.Now()),
				"reason": disruptionReason, "message": disruptionMessage}}},
		})
		if err != nil {
			return err
		}
		if _, err := tc.C.Do(ctx, web.MethodPatch, path+"/status", "application/strategic-merge-patch+json", patch); err != nil {
			if client.IsNotFound(err) || client.IsConflict(err) {
				tc.forget(key)
				return nil // gone, or another Pod of that name now
			}
			return fmt.Errorf("marking pod %s: %w", key, err)
		}
	}
	if _, err := tc.C.Do(ctx, web.MethodDelete, path, "application/json", nil); err != nil && !client.IsNotFound(err) {
		return err
	}
	tc.forget(key)
	return nil
}

func (tc *Controller) forget(key string) {
	tc.mu.Lock()
	delete(tc.scheduled, key)
	tc.mu.Unlock()
}

// podRef names the Pod at key, as kube's events of this controller name it
// (no uid).
func podRef(key string) controllers.Reference {
	ns, name, _ := strings.Cut(key, "/")
	return controllers.Ref(&controllers.ObjectMeta{Namespace: ns, Name: name}, "v1", "Pod")
}

func sameToleration(a, b controllers.Toleration) bool {
	return a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.Effect == b.Effect &&
		(a.TolerationSeconds == nil) == (b.TolerationSeconds == nil) && (a.TolerationSeconds == nil || *a.TolerationSeconds == *b.TolerationSeconds)
}

// noExecute is the NoExecute taints of taints.
func noExecute(taints []controllers.Taint) []controllers.Taint {
	var out []controllers.Taint
	for _, t := range taints {
		if t.Effect == "NoExecute" {
			out = append(out, t)
		}
	}
	return out
}

// matching says whether tolerations tolerate every taint, and which
// tolerate them (for each taint, the first that does), as kube's
// GetMatchingTolerations.
func matching(taints []controllers.Taint, tolerations []controllers.Toleration) (bool, []controllers.Toleration) {
	var used []controllers.Toleration
	for _, taint := range taints {
		i := slices.IndexFunc(tolerations, func(t controllers.Toleration) bool { return t.Tolerates(taint) })
		if i < 0 {
			return false, nil
		}
		used = append(used, tolerations[i])
	}
	return true, used
}

// minTolerationTime is how long the tolerations used let a Pod stay: the
// least tolerationSeconds among them (0 for a non-positive one or for none),
// or forever when none has a limit.
func minTolerationTime(used []controllers.Toleration) (time.Duration, bool) {
	if len(used) == 0 {
		return 0, false
	}
	least := int64(-1)
	for _, t := range used {
		switch {
		case t.TolerationSeconds == nil:
		case *t.TolerationSeconds <= 0:
			return 0, false
		case least < 0 || *t.TolerationSeconds < least:
			least = *t.TolerationSeconds
		}
	}
	if least < 0 {
		return 0, true
	}
	return time.Duration(least) * time.Second, false
}
