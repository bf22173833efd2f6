package rbac

import (
	"context"
	"encoding/json"
	"net/url"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/object"
	"kubeplay/core/user"
	"kubeplay/core/version"
	"kubeplay/core/web"
)

// AggregationController is kube-controller-manager's clusterrole
// aggregation controller as a client of the core: an aggregated ClusterRole
// (admin, edit, view, and any with an aggregationRule) gets the rules of
// the ClusterRoles its selectors pick (Aggregate), written by server-side
// apply as clusterrole-aggregation-controller, whenever a ClusterRole
// changes. It runs with the API alone too (the browser's sandbox), so that
// binding edit or view means what it means on a cluster.
type AggregationController struct {
	c     *client.Client
	clock clock.Clock
}

const aggregationManager = "clusterrole-aggregation-controller"

// NewAggregationController acts through h as
// system:serviceaccount:kube-system:clusterrole-aggregation-controller.
func NewAggregationController(h web.Handler, clk clock.Clock) *AggregationController {
	return &AggregationController{c: client.New(h, user.ServiceAccount("kube-system", aggregationManager),
		"kube-controller-manager/"+version.Kubernetes+" (kubeplay) "+aggregationManager), clock: clk}
}

const clusterRolesPath = "/apis/" + Group + "/v1/clusterroles"

// Run works until ctx is done.
func (a *AggregationController) Run(ctx context.Context) {
	wake := make(chan struct{}, 1)
	poke := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	inf := client.NewInformer(a.c, clusterRolesPath, client.Handler{
		Add:    func(object.Object) { poke() },
		Update: func(_, _ object.Object) { poke() },
		Delete: func(object.Object) { poke() },
	}, nil, a.clock)
	go inf.Run(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
		all := inf.List()
		for _, role := range all {
			rules, ok := Aggregate(role, all)
			if !ok || object.Equal(any(rules), role["rules"]) || (len(rules) == 0 && role["rules"] == nil) {
				continue
			}
			a.apply(ctx, object.MetaString(role, "name"), rules)
		}
	}
}

// apply writes role's rules as the controller's own, forcing conflicts, as
// kube's does. A failure is retried at the next change.
func (a *AggregationController) apply(ctx context.Context, name string, rules []any) {
	body, err := json.Marshal(map[string]any{"apiVersion": Group + "/v1", "kind": "ClusterRole",
		"metadata": map[string]any{"name": name}, "rules": rules})
	if err != nil {
		return
	}
	_, _ = a.c.Do(ctx, "PATCH", clusterRolesPath+"/"+url.PathEscape(name)+"?fieldManager="+aggregationManager+"&force=true",
		"application/apply-patch+yaml", body)
}
