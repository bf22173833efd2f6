// Package disruption is kube-controller-manager's disruption controller
// (pkg/controller/disruption) as an API client of the core, acting as
// system:serviceaccount:kube-system:disruption-controller: it keeps each
// PodDisruptionBudget's status, which the eviction subresource enforces.
// For the Pods a budget selects it counts the healthy (ready, neither being
// deleted nor evicted within the last two minutes) and how many should be
// (minAvailable as a count, or a percentage of what the Pods' controllers
// ask for: a ReplicationController, a Deployment through its ReplicaSet, a
// ReplicaSet, a StatefulSet, or any kind with a scale subresource; or what
// maxUnavailable leaves of it), and writes observedGeneration, expectedPods,
// currentHealthy, desiredHealthy, disruptionsAllowed, the disruptedPods the
// eviction recorded that are still due to go, and the DisruptionAllowed
// condition (SufficientPods, InsufficientPods, or SyncFailed with the
// error when the count fails). Its events are kube's (NoPods, UnmanagedPods,
// CalculateExpectedPodCountFailed, and on Pods NotDeleted and
// MultiplePodDisruptionBudgets). A Pod that kept a DisruptionTarget
// condition for two minutes without going has it set back to False.
//
// As kube-controller-manager's shared informers, its informers list and watch
// as system:kube-controller-manager: the controller's own role may not list
// Pods.
package disruption

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// DeletionTimeout is how long a Pod the eviction subresource recorded as
// disrupted is not counted healthy while it is expected to go.
const DeletionTimeout = 2 * time.Minute

// staleDisruptionTimeout is how long a Pod may keep a DisruptionTarget
// condition without being deleted before it is reset.
const staleDisruptionTimeout = 2 * time.Minute

type pod = controllers.Pod

// budget is policy/v1 PodDisruptionBudget.
type budget struct {
	controllers.Object
	Spec struct {
		MinAvailable   json.RawMessage `json:"minAvailable,omitempty"`
		MaxUnavailable json.RawMessage `json:"maxUnavailable,omitempty"`
		Selector       *selector       `json:"selector,omitempty"`
	} `json:"spec"`
	Status status `json:"status"`
}

// selector is a PodDisruptionBudget's label selector: unlike a workload
// controller's, an empty one selects every Pod of the namespace.
type selector controllers.LabelSelector

// status is policy/v1 PodDisruptionBudgetStatus.
type status struct {
	ObservedGeneration int64             `json:"observedGeneration,omitempty"`
	DisruptedPods      map[string]string `json:"disruptedPods,omitempty"`
	DisruptionsAllowed int64             `json:"disruptionsAllowed"`
	CurrentHealthy     int64             `json:"currentHealthy"`
	DesiredHealthy     int64             `json:"desiredHealthy"`
	ExpectedPods       int64             `json:"expectedPods"`
	Conditions         []condition       `json:"conditions,omitempty"`
}

// condition is metav1.Condition.
type condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	LastTransitionTime string `json:"lastTransitionTime"`
	Reason             string `json:"reason"`
	Message            string `json:"message"`
}

// scaled is a workload whose spec.replicas a budget's percentage counts: a
// ReplicationController, ReplicaSet, Deployment or StatefulSet.
type scaled struct {
	controllers.Object
	Spec struct {
		Replicas *int64 `json:"replicas,omitempty"`
	} `json:"spec"`
}

// The DisruptionAllowed condition and its reasons.
const (
	disruptionAllowed = "DisruptionAllowed"
	sufficientPods    = "SufficientPods"
	insufficientPods  = "InsufficientPods"
	syncFailed        = "SyncFailed"
)

// Controller is the disruption controller.
type Controller struct {
	controllers.Base
	stale   *controllers.Queue // Pods whose DisruptionTarget condition may be stale
	ctx     context.Context    // Run's once it runs, for the events the informers' handlers record
	budgets *client.TypedInformer[*budget]
	pods    *client.TypedInformer[*pod]
	rcs     *client.TypedInformer[*scaled]
	sets    *client.TypedInformer[*scaled]
	deploys *client.TypedInformer[*scaled]
	states  *client.TypedInformer[*scaled]
}

// New is the disruption controller, acting through h.
func New(h web.Handler, clk clock.Clock) *Controller {
	dc := &Controller{Base: controllers.NewBase(h, clk, "disruption-controller", "controllermanager"), stale: controllers.NewQueue(clk),
		ctx: context.Background()}
	shared := controllers.SharedInformerClient(h)
	byNamespace := func(o *controllers.Object) []string { return []string{o.Metadata.Namespace} }
	dc.budgets = client.NewTypedInformer(shared, "/apis/policy/v1/poddisruptionbudgets", controllers.Codec[budget](),
		controllers.OnChange(controllers.QueueKey[budget](dc.Queue)),
		map[string]func(*budget) []string{"namespace": func(b *budget) []string { return byNamespace(&b.Object) }}, clk)
	dc.pods = client.NewTypedInformer(shared, "/api/v1/pods", controllers.Codec[pod](), client.TypedHandler[*pod]{
		Add:    func(p *pod) { dc.podChanged(p, true) },
		Update: func(_, p *pod) { dc.podChanged(p, true) },
		Delete: func(p *pod) { dc.podChanged(p, false) },
	}, map[string]func(*pod) []string{"namespace": func(p *pod) []string { return byNamespace(&p.Object) }}, clk)
	workloads := func(path string) *client.TypedInformer[*scaled] {
		return client.NewTypedInformer(shared, path, controllers.Codec[scaled](), client.TypedHandler[*scaled]{}, nil, clk)
	}
	dc.rcs = workloads("/api/v1/replicationcontrollers")
	dc.sets = workloads("/apis/apps/v1/replicasets")
	dc.deploys = workloads("/apis/apps/v1/deployments")
	dc.states = workloads("/apis/apps/v1/statefulsets")
	return dc
}

// Run works until ctx is done.
func (dc *Controller) Run(ctx context.Context) {
	dc.ctx = ctx
	informers := []controllers.Informer{dc.budgets, dc.pods, dc.rcs, dc.sets, dc.deploys, dc.states}
	for _, inf := range informers {
		go inf.Run(ctx)
	}
	if !controllers.Synced(ctx, informers...) {
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		dc.stale.Run(ctx, dc.syncStale)
	}()
	dc.Queue.Run(ctx, dc.sync)
	wg.Wait()
}

// Pending is how many budgets and Pods wait to be synced, now or later.
func (dc *Controller) Pending() int { return dc.Queue.Pending() + dc.stale.Pending() }

// podChanged queues the budget of a Pod that was added, updated or (not
// live) deleted, and, for a live one, its stale DisruptionTarget condition.
func (dc *Controller) podChanged(p *pod, live bool) {
	if b := dc.budgetFor(p); b != nil {
		dc.Queue.Add(b.Metadata.Key())
	}
	if live {
		if stale, after := dc.staleCondition(p); stale {
			dc.stale.AddAfter(p.Metadata.Key(), after)
		}
	}
}

// budgetFor is the budget that selects p (the first by name when several
// do, with kube's warning on the Pod), or nil.
func (dc *Controller) budgetFor(p *pod) *budget {
	var matching []*budget
	for _, b := range dc.budgets.ByIndex("namespace", p.Metadata.Namespace) {
		if b.Spec.Selector.selects(p.Metadata.Labels) {
			matching = append(matching, b)
		}
	}
	if len(matching) == 0 {
		return nil
	}
	slices.SortFunc(matching, func(a, b *budget) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
	if len(matching) > 1 {
		dc.Events.Eventf(dc.ctx, controllers.Ref(&p.Metadata, "v1", "Pod"), controllers.Warning, "MultiplePodDisruptionBudgets",
			"Pod %q/%q matches multiple PodDisruptionBudgets.  Chose %q arbitrarily.", p.Metadata.Namespace, p.Metadata.Name, matching[0].Metadata.Name)
	}
	return matching[0]
}

// selects says whether the selector selects labels: a nil one selects
// nothing, an empty one everything.
func (s *selector) selects(labels map[string]string) bool {
	if s == nil {
		return false
	}
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range s.MatchExpressions {
		if !r.Matches(labels) {
			return false
		}
	}
	return true
}

// String is the selector as kube's events print a *metav1.LabelSelector.
func (s *selector) String() string {
	if s == nil {
		return "nil"
	}
	var b strings.Builder
	b.WriteString("&LabelSelector{MatchLabels:map[string]string{")
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%v: %v,", k, s.MatchLabels[k])
	}
	b.WriteString("},MatchExpressions:[]LabelSelectorRequirement{")
	for _, r := range s.MatchExpressions {
		fmt.Fprintf(&b, "LabelSelectorRequirement{Key:%v,Operator:%v,Values:%v,},", r.Key, r.Operator, r.Values)
	}
	b.WriteString("},}")
	return b.String()
}

func (dc *Controller) sync(ctx context.Context, key string) error {
	b, ok := dc.budgets.Get(key)
	if !ok {
		return nil
	}
	err := dc.trySync(ctx, key, b)
	if client.IsConflict(err) {
		return err
	}
	if err != nil {
		return dc.failSafe(ctx, b, err)
	}
	return nil
}

func (dc *Controller) trySync(ctx context.Context, key string, b *budget) error {
	ref := controllers.Ref(&b.Metadata, "policy/v1", "PodDisruptionBudget")
	var pods []*pod // by name
	for _, p := range dc.pods.ByIndex("namespace", b.Metadata.Namespace) {
		if b.Spec.Selector.selects(p.Metadata.Labels) {
			pods = append(pods, p)
		}
	}
	slices.SortFunc(pods, func(a, b *pod) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
	if len(pods) == 0 {
		dc.Events.Eventf(ctx, ref, controllers.Normal, "NoPods", "No matching pods found")
	}
	expected, desired, unmanaged, err := dc.expectedPodCount(ctx, b, pods)
	if err != nil {
		dc.Events.Eventf(ctx, ref, controllers.Warning, "CalculateExpectedPodCountFailed", "Failed to calculate the number of expected pods: %v", controllers.Message(err))
		return err
	}
	if unmanaged {
		dc.Events.Eventf(ctx, ref, controllers.Warning, "UnmanagedPods", "Pods selected by this PodDisruptionBudget (selector: %v) were found "+
			"to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. "+
			"To account for these pods please set \".spec.minAvailable\" "+
			"field of the PDB to an integer value.", b.Spec.Selector)
	}
	now := dc.Clock.Now()
	disrupted, recheck := dc.disruptedPods(ctx, b, pods, now)
	healthy := countHealthy(pods, disrupted, now)
	err = dc.updateStatus(ctx, b, healthy, desired, expected, disrupted)
	if err == nil && !recheck.IsZero() {
		dc.Queue.AddAfter(key, recheck.Sub(now))
	}
	return err
}

// expectedPodCount is kube's getExpectedPodCount: how many Pods there
// should be and how many of them must be healthy, and whether some Pods
// selected have no controller (which a percentage cannot count).
func (dc *Controller) expectedPodCount(ctx context.Context, b *budget, pods []*pod) (expected, desired int64, unmanaged bool, err error) {
	switch {
	case b.Spec.MaxUnavailable != nil:
		if expected, unmanaged, err = dc.expectedScale(ctx, pods); err != nil {
			return
		}
		var maxUnavailable int64
		if maxUnavailable, err = scaledValue(b.Spec.MaxUnavailable, expected); err != nil {
			return
		}
		desired = max(expected-maxUnavailable, 0)
	case b.Spec.MinAvailable != nil:
		var count int64
		if json.Unmarshal(b.Spec.MinAvailable, &count) == nil {
			return int64(len(pods)), count, false, nil
		}
		if expected, unmanaged, err = dc.expectedScale(ctx, pods); err != nil {
			return
		}
		desired, err = scaledValue(b.Spec.MinAvailable, expected)
	}
	return
}

// scaledValue is intstr.GetScaledValueFromIntOrPercent rounding up.
func scaledValue(v json.RawMessage, total int64) (int64, error) {
	var n int64
	if json.Unmarshal(v, &n) == nil {
		return n, nil
	}
	var s string
	_ = json.Unmarshal(v, &s)
	digits, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, errors.New("invalid value for IntOrString: invalid type: string is not a percentage")
	}
	pct, err := strconv.Atoi(digits)
	if err != nil {
		return 0, fmt.Errorf("invalid value for IntOrString: invalid value %q: %v", s, err)
	}
	return int64(math.Ceil(float64(pct) * float64(total) / 100)), nil
}

// expectedScale is the sum of the scales of the Pods' controllers, and
// whether some Pods have none.
func (dc *Controller) expectedScale(ctx context.Context, pods []*pod) (int64, bool, error) {
	scales := map[string]int64{}
	unmanaged := false
	for _, p := range pods {
		ref := controllerOf(p)
		if ref == nil {
			unmanaged = true
			continue
		}
		if _, ok := scales[ref.UID]; ok {
			continue
		}
		found := false
		for _, finder := range []func(context.Context, *controllers.OwnerReference, string) (string, int64, error){
			dc.replicationController, dc.deployment, dc.replicaSet, dc.statefulSet, dc.scaleController} {
			uid, scale, err := finder(ctx, ref, p.Metadata.Namespace)
			if err != nil {
				return 0, false, err
			}
			if uid != "" {
				scales[uid], found = scale, true
				break
			}
		}
		if !found {
			return 0, false, fmt.Errorf("found no controllers for pod %q", p.Metadata.Name)
		}
	}
	var total int64
	for _, n := range scales {
		total += n
	}
	return total, unmanaged, nil
}

// controllerOf is the Pod's controller reference, or nil.
func controllerOf(p *pod) *controllers.OwnerReference {
	for i, ref := range p.Metadata.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			return &p.Metadata.OwnerReferences[i]
		}
	}
	return nil
}

// groupVersion is schema.ParseGroupVersion.
func groupVersion(apiVersion string) (group, version string, err error) {
	switch strings.Count(apiVersion, "/") {
	case 0:
		return "", apiVersion, nil
	case 1:
		group, version, _ = strings.Cut(apiVersion, "/")
		return group, version, nil
	}
	return "", "", fmt.Errorf("unexpected GroupVersion string: %v", apiVersion)
}

// isKind says whether ref names kind in one of groups (kube's verifyGroupKind).
func isKind(ref *controllers.OwnerReference, kind string, groups ...string) (bool, error) {
	group, _, err := groupVersion(ref.APIVersion)
	if err != nil || ref.Kind != kind {
		return false, err
	}
	for _, g := range groups {
		if g == group {
			return true, nil
		}
	}
	return false, nil
}

// lookup is the workload of inf named in ns with uid, or nil.
func lookup(inf *client.TypedInformer[*scaled], ns, name, uid string) *scaled {
	w, ok := inf.Get(ns + "/" + name)
	if !ok || w.Metadata.UID != uid {
		return nil
	}
	return w
}

// The finders of a Pod's controller and its scale, in kube's order: each
// answers the controller's uid ("" when ref is not its kind or not found).

func (dc *Controller) replicationController(_ context.Context, ref *controllers.OwnerReference, ns string) (string, int64, error) {
	if ok, err := isKind(ref, "ReplicationController", ""); !ok || err != nil {
		return "", 0, err
	}
	if rc := lookup(dc.rcs, ns, ref.Name, ref.UID); rc != nil {
		return rc.Metadata.UID, controllers.Replicas(rc.Spec.Replicas), nil
	}
	return "", 0, nil
}

func (dc *Controller) deployment(_ context.Context, ref *controllers.OwnerReference, ns string) (string, int64, error) {
	if ok, err := isKind(ref, "ReplicaSet", "apps", "extensions"); !ok || err != nil {
		return "", 0, err
	}
	rs := lookup(dc.sets, ns, ref.Name, ref.UID)
	if rs == nil {
		return "", 0, nil
	}
	var owner *controllers.OwnerReference
	for i, r := range rs.Metadata.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			owner = &rs.Metadata.OwnerReferences[i]
		}
	}
	if owner == nil {
		return "", 0, nil
	}
	if ok, err := isKind(owner, "Deployment", "apps", "extensions"); !ok || err != nil {
		return "", 0, err
	}
	if d := lookup(dc.deploys, ns, owner.Name, owner.UID); d != nil {
		return d.Metadata.UID, controllers.Replicas(d.Spec.Replicas), nil
	}
	return "", 0, nil
}

func (dc *Controller) replicaSet(_ context.Context, ref *controllers.OwnerReference, ns string) (string, int64, error) {
	if ok, err := isKind(ref, "ReplicaSet", "apps", "extensions"); !ok || err != nil {
		return "", 0, err
	}
	rs := lookup(dc.sets, ns, ref.Name, ref.UID)
	if rs == nil {
		return "", 0, nil
	}
	for _, r := range rs.Metadata.OwnerReferences {
		if r.Controller != nil && *r.Controller && r.Kind == "Deployment" {
			return "", 0, nil
		}
	}
	return rs.Metadata.UID, controllers.Replicas(rs.Spec.Replicas), nil
}

func (dc *Controller) statefulSet(_ context.Context, ref *controllers.OwnerReference, ns string) (string, int64, error) {
	if ok, err := isKind(ref, "StatefulSet", "apps"); !ok || err != nil {
		return "", 0, err
	}
	if ss := lookup(dc.states, ns, ref.Name, ref.UID); ss != nil {
		return ss.Metadata.UID, controllers.Replicas(ss.Spec.Replicas), nil
	}
	return "", 0, nil
}

// scaleController finds any other controller through discovery and its
// scale subresource, as kube's getScaleController does with its REST
// mapper and scale client.
func (dc *Controller) scaleController(ctx context.Context, ref *controllers.OwnerReference, ns string) (string, int64, error) {
	group, version, err := groupVersion(ref.APIVersion)
	if err != nil {
		return "", 0, err
	}
	base := "/apis/" + group + "/" + version
	if group == "" {
		base = "/api/" + version
	}
	var discovery struct {
		Resources []struct {
			Name    string `json:"name"`
			Kind    string `json:"kind"`
			Group   string `json:"group"`
			Version string `json:"version"`
		} `json:"resources"`
	}
	noMatch := fmt.Errorf("no matches for kind %q in version %q", ref.Kind, strings.TrimPrefix(group+"/"+version, "/"))
	raw, err := dc.C.Do(ctx, web.MethodGet, base, "", nil)
	switch {
	case client.IsNotFound(err):
		return "", 0, noMatch
	case err != nil:
		return "", 0, err
	}
	if err := json.Unmarshal(raw, &discovery); err != nil {
		return "", 0, err
	}
	resource := ""
	for _, r := range discovery.Resources {
		if r.Kind == ref.Kind && !strings.Contains(r.Name, "/") {
			resource = r.Name
			break
		}
	}
	if resource == "" {
		return "", 0, noMatch
	}
	var scale struct {
		Metadata controllers.ObjectMeta `json:"metadata"`
		Spec     struct {
			Replicas int64 `json:"replicas"`
		} `json:"spec"`
	}
	raw, err = dc.C.Do(ctx, web.MethodGet, base+"/namespaces/"+ns+"/"+resource+"/"+ref.Name+"/scale", "", nil)
	if client.IsNotFound(err) {
		for _, r := range discovery.Resources {
			if r.Name == resource+"/scale" && r.Kind == "Scale" && scaleVersions[r.Group+"/"+r.Version] {
				return "", 0, nil
			}
		}
		gr := resource
		if group != "" {
			gr += "." + group
		}
		return "", 0, fmt.Errorf("%s does not implement the scale subresource", gr)
	}
	if err != nil {
		return "", 0, err
	}
	if err := json.Unmarshal(raw, &scale); err != nil {
		return "", 0, err
	}
	if scale.Metadata.UID != ref.UID {
		return "", 0, nil
	}
	return scale.Metadata.UID, scale.Spec.Replicas, nil
}

// scaleVersions are the Scale kinds client-go's scale client reads.
var scaleVersions = map[string]bool{"autoscaling/v1": true, "extensions/v1beta1": true, "apps/v1beta1": true, "apps/v1beta2": true}

// disruptedPods are the budget's disrupted Pods still expected to go (not
// deleted yet, recorded less than DeletionTimeout ago), and when the first
// of them is due; a Pod past its time gets kube's NotDeleted warning.
func (dc *Controller) disruptedPods(ctx context.Context, b *budget, pods []*pod, now time.Time) (map[string]string, time.Time) {
	out := map[string]string{}
	var recheck time.Time
	if b.Status.DisruptedPods == nil {
		return out, recheck
	}
	for _, p := range pods {
		if p.Metadata.DeletionTimestamp != "" {
			continue
		}
		at, ok := b.Status.DisruptedPods[p.Metadata.Name]
		if !ok {
			continue
		}
		t, _ := time.Parse(time.RFC3339, at)
		due := t.Add(DeletionTimeout)
		if due.Before(now) {
			dc.Events.Eventf(ctx, controllers.Ref(&p.Metadata, "v1", "Pod"), controllers.Warning, "NotDeleted",
				"Pod was expected by PDB %s/%s to be deleted but it wasn't", b.Metadata.Namespace, b.Metadata.Namespace)
			continue
		}
		if recheck.IsZero() || due.Before(recheck) {
			recheck = due
		}
		out[p.Metadata.Name] = at
	}
	return out, recheck
}

// countHealthy counts the ready Pods neither being deleted nor disrupted.
func countHealthy(pods []*pod, disrupted map[string]string, now time.Time) int64 {
	var n int64
	for _, p := range pods {
		if p.Metadata.DeletionTimestamp != "" {
			continue
		}
		if at, ok := disrupted[p.Metadata.Name]; ok {
			if t, _ := time.Parse(time.RFC3339, at); t.Add(DeletionTimeout).After(now) {
				continue
			}
		}
		if p.Ready() {
			n++
		}
	}
	return n
}

// updateStatus writes the budget's status unless it says so already.
func (dc *Controller) updateStatus(ctx context.Context, b *budget, healthy, desired, expected int64, disrupted map[string]string) error {
	allowed := healthy - desired
	if expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	cur := b.Status
	if cur.CurrentHealthy == healthy && cur.DesiredHealthy == desired && cur.ExpectedPods == expected &&
		cur.DisruptionsAllowed == allowed && sameTimes(cur.DisruptedPods, disrupted) &&
		cur.ObservedGeneration == b.Metadata.Generation && conditionsUpToDate(b) {
		return nil
	}
	next := status{CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: expected, DisruptionsAllowed: allowed,
		DisruptedPods: disrupted, ObservedGeneration: b.Metadata.Generation, Conditions: append([]condition(nil), cur.Conditions...)}
	allowedCondition(&next.Conditions, next.DisruptionsAllowed, next.ObservedGeneration, dc.Clock.Now())
	return dc.write(ctx, b, next)
}

// failSafe allows no disruption, with a SyncFailed condition saying why.
func (dc *Controller) failSafe(ctx context.Context, b *budget, cause error) error {
	next := b.Status
	next.DisruptionsAllowed = 0
	next.Conditions = append([]condition(nil), next.Conditions...)
	setCondition(&next.Conditions, condition{Type: disruptionAllowed, Status: "False", Reason: syncFailed,
		Message: controllers.Message(cause), ObservedGeneration: next.ObservedGeneration}, dc.Clock.Now())
	return dc.write(ctx, b, next)
}

func (dc *Controller) write(ctx context.Context, b *budget, st status) error {
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	value, err := object.Decode(raw)
	if err != nil {
		return err
	}
	_, err = controllers.Update(ctx, dc.C, "/apis/policy/v1/namespaces/"+b.Metadata.Namespace+"/poddisruptionbudgets/"+b.Metadata.Name+"/status",
		b.Raw, func(obj object.Object) { obj["status"] = map[string]any(value) })
	return err
}

func sameTimes(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// conditionsUpToDate is kube's ConditionsAreUpToDate: the DisruptionAllowed
// condition says what disruptionsAllowed does, for the current generation.
func conditionsUpToDate(b *budget) bool {
	var c *condition
	for i := range b.Status.Conditions {
		if b.Status.Conditions[i].Type == disruptionAllowed {
			c = &b.Status.Conditions[i]
		}
	}
	if c == nil || b.Status.ObservedGeneration != b.Metadata.Generation {
		return false
	}
	if b.Status.DisruptionsAllowed > 0 {
		return c.Status == "True" && c.Reason == sufficientPods
	}
	return c.Status == "False" && c.Reason == insufficientPods
}

// allowedCondition is kube's UpdateDisruptionAllowedCondition: the
// DisruptionAllowed condition for allowed disruptions, observed at
// generation.
func allowedCondition(conditions *[]condition, allowed, generation int64, now time.Time) {
	c := condition{Type: disruptionAllowed, Status: "False", Reason: insufficientPods, ObservedGeneration: generation}
	if allowed > 0 {
		c.Status, c.Reason = "True", sufficientPods
	}
	setCondition(conditions, c, now)
}

// setCondition is apimachinery's meta.SetStatusCondition.
func setCondition(conditions *[]condition, c condition, now time.Time) {
	for i := range *conditions {
		cur := &(*conditions)[i]
		if cur.Type != c.Type {
			continue
		}
		if cur.Status != c.Status {
			cur.Status, cur.LastTransitionTime = c.Status, object.Timestamp(now)
		}
		cur.Reason, cur.Message, cur.ObservedGeneration = c.Reason, c.Message, c.ObservedGeneration
		return
	}
	c.LastTransitionTime = object.Timestamp(now)
	*conditions = append(*conditions, c)
}

// staleCondition says whether a live Pod has a DisruptionTarget condition
// nothing acted on (not the kubelet's, the Pod not finished), and how long
// until it is stale.
func (dc *Controller) staleCondition(p *pod) (bool, time.Duration) {
	if p.Metadata.DeletionTimestamp != "" {
		return false, 0
	}
	c := controllers.FindCondition(p.Status.Conditions, "DisruptionTarget")
	if c == nil || c.Status != "True" || c.Reason == "TerminationByKubelet" || p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed" {
		return false, 0
	}
	since, _ := time.Parse(time.RFC3339, c.LastTransitionTime)
	return true, max(staleDisruptionTimeout-dc.Clock.Now().Sub(since), 0)
}

// syncStale sets a Pod's stale DisruptionTarget condition to False.
func (dc *Controller) syncStale(ctx context.Context, key string) error {
	p, ok := dc.pods.Get(key)
	if !ok {
		return nil
	}
	stale, after := dc.staleCondition(p)
	if !stale {
		return nil
	}
	if after > 0 {
		dc.stale.AddAfter(key, after)
		return nil
	}
	now := object.Timestamp(dc.Clock.Now())
	_, err := controllers.Update(ctx, dc.C, "/api/v1/namespaces/"+p.Metadata.Namespace+"/pods/"+p.Metadata.Name+"/status", p.Raw, func(obj object.Object) {
		for _, c := range object.Objects(object.Child(obj, "status"), "conditions") {
			if c["type"] == "DisruptionTarget" {
				for k := range c {
					delete(c, k)
				}
				c["type"], c["status"], c["lastProbeTime"], c["lastTransitionTime"] = "DisruptionTarget", "False", nil, now
			}
		}
	})
	return err
}
