// Package podautoscaler is kube-controller-manager's HorizontalPodAutoscaler
// controller as an API client of the core
// (system:serviceaccount:kube-system:horizontal-pod-autoscaler), on the
// sandbox's clock, with autoscaling/v2's semantics: every 15 s (a change
// to an autoscaler waits for its next sync, as in kube's queue; the first
// is 15 s after its creation) it reads its target's scale subresource, the
// resource metrics of the Pods the scale's selector selects from
// metrics.k8s.io (Resource metrics, Utilization of the request or an
// AverageValue; the simulated metrics-server's model, core/metricsserver),
// and writes the replica count kube's replica calculator proposes (the
// highest of the metrics', held at the current count within a 0.1
// tolerance), normalized as kube normalizes it: between minReplicas and
// maxReplicas, stabilized over the downscale window (300 s) or the
// behavior's windows, at the rate its policies allow. Its status says what
// it saw (currentMetrics, currentReplicas, desiredReplicas,
// lastScaleTime) and the conditions AbleToScale, ScalingActive and
// ScalingLimited in kube's reasons and messages; each rescale is an event
// (SuccessfulRescale "New size: 3; reason: cpu resource utilization
// (percentage of request) above target"). Pods, Object and External
// metrics have no source here (no custom or external metrics API is
// served) and fail as kube's do without one. What it remembers between
// syncs (recommendations, rescales) is in memory, as kube's is.
package podautoscaler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/clock"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/quantity"
	"kubeplay/core/selector"
	"kubeplay/core/web"
)

// hpa is autoscaling/v2 HorizontalPodAutoscaler, as the controller reads it.
type hpa struct {
	controllers.Object
	Spec struct {
		ScaleTargetRef struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Name       string `json:"name"`
		} `json:"scaleTargetRef"`
		MinReplicas *int32       `json:"minReplicas,omitempty"`
		MaxReplicas int32        `json:"maxReplicas"`
		Metrics     []metricSpec `json:"metrics,omitempty"`
		Behavior    *struct {
			ScaleUp   *rules `json:"scaleUp,omitempty"`
			ScaleDown *rules `json:"scaleDown,omitempty"`
		} `json:"behavior,omitempty"`
	} `json:"spec"`
	Status status `json:"status"`
}

// metricSpec is a MetricSpec; only a Resource metric has a source here.
type metricSpec struct {
	Type     string `json:"type"`
	Resource *struct {
		Name   string `json:"name"`
		Target struct {
			Type               string `json:"type"`
			AverageUtilization *int32 `json:"averageUtilization,omitempty"`
			AverageValue       string `json:"averageValue,omitempty"`
		} `json:"target"`
	} `json:"resource,omitempty"`
	ContainerResource *struct {
		Container string `json:"container"`
	} `json:"containerResource,omitempty"`
	Pods *struct {
		Metric struct {
			Name string `json:"name"`
		} `json:"metric"`
	} `json:"pods,omitempty"`
	Object *struct {
		Metric struct {
			Name string `json:"name"`
		} `json:"metric"`
	} `json:"object,omitempty"`
	External *struct {
		Metric struct {
			Name string `json:"name"`
		} `json:"metric"`
	} `json:"external,omitempty"`
}

// status is HorizontalPodAutoscalerStatus as kube's controller writes it.
type status struct {
	CurrentReplicas int32          `json:"currentReplicas,omitempty"`
	DesiredReplicas int32          `json:"desiredReplicas"`
	LastScaleTime   string         `json:"lastScaleTime,omitempty"`
	CurrentMetrics  []metricStatus `json:"currentMetrics,omitempty"`
	Conditions      []condition    `json:"conditions,omitempty"`
}

// metricStatus is a MetricStatus: a failed metric's is empty.
type metricStatus struct {
	Type     string          `json:"type"`
	Resource *resourceStatus `json:"resource,omitempty"`
}

// resourceStatus is a ResourceMetricStatus.
type resourceStatus struct {
	Name    string `json:"name"`
	Current struct {
		AverageValue       string `json:"averageValue,omitempty"`
		AverageUtilization *int32 `json:"averageUtilization,omitempty"`
	} `json:"current"`
}

// condition is a HorizontalPodAutoscalerCondition.
type condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	LastTransitionTime string `json:"lastTransitionTime,omitempty"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
}

// scale is autoscaling/v1 Scale.
type scale struct {
	controllers.Object
	Spec struct {
		Replicas int32 `json:"replicas"`
	} `json:"spec"`
	Status struct {
		Replicas int32  `json:"replicas"`
		Selector string `json:"selector,omitempty"`
	} `json:"status"`
}

// Controller is the HorizontalPodAutoscaler controller.
type Controller struct {
	controllers.Base
	hpas *client.TypedInformer[*hpa]
	pods *client.TypedInformer[*controllers.Pod]

	mu      sync.Mutex
	history map[string]*history // by the autoscaler's key
	plurals map[string]string   // a kind's resource, by apiVersion and kind, once discovery named it
}

// New is the HorizontalPodAutoscaler controller, acting through h.
func New(h web.Handler, clk clock.Clock) *Controller {
	hc := &Controller{Base: controllers.NewBase(h, clk, "horizontal-pod-autoscaler", "horizontal-pod-autoscaler"), history: map[string]*history{}, plurals: map[string]string{}}
	// As kube's queue (its rate limiter a fixed resync interval), every
	// change to an autoscaler is seen at its next sync, the first 15 s
	// after its creation, never at once: its own status writes do not make
	// it sync again.
	hc.hpas = client.NewTypedInformer(hc.C, "/apis/autoscaling/v2/horizontalpodautoscalers", controllers.Codec[hpa](),
		controllers.OnChange(func(a *hpa) { hc.Queue.AddAfter(a.Metadata.Key(), syncPeriod) }), nil, clk)
	hc.pods = client.NewTypedInformer(controllers.SharedInformerClient(h), "/api/v1/pods", controllers.Codec[controllers.Pod](), client.TypedHandler[*controllers.Pod]{},
		map[string]func(*controllers.Pod) []string{"namespace": func(p *controllers.Pod) []string { return []string{p.Metadata.Namespace} }}, clk)
	return hc
}

// Run works until ctx is done.
func (hc *Controller) Run(ctx context.Context) {
	controllers.Run(ctx, hc.Queue, hc.sync, hc.hpas, hc.pods)
}

func (hc *Controller) sync(ctx context.Context, key string) error {
	a, ok := hc.hpas.Get(key)
	if !ok {
		hc.mu.Lock()
		delete(hc.history, key)
		hc.mu.Unlock()
		return nil
	}
	// kube's resync: every autoscaler again after the sync period.
	defer hc.Queue.AddAfter(key, syncPeriod)
	hc.mu.Lock()
	h := hc.history[key]
	if h == nil {
		h = &history{}
		hc.history[key] = h
	}
	hc.mu.Unlock()
	return hc.reconcile(ctx, a, h)
}

// run is one reconciliation's state: the autoscaler, its new status and
// its event reference.
type run struct {
	hc  *Controller
	a   *hpa
	st  status
	ref controllers.Reference
	now time.Time
}

// setCondition is kube's setCondition: the transition time changes with
// the status.
func (r *run) setCondition(typ, status, reason, message string) {
	for i := range r.st.Conditions {
		if c := &r.st.Conditions[i]; c.Type == typ {
			if c.Status != status {
				c.LastTransitionTime = object.Timestamp(r.now)
			}
			c.Status, c.Reason, c.Message = status, reason, message
			return
		}
	}
	r.st.Conditions = append(r.st.Conditions, condition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: object.Timestamp(r.now)})
}

func (r *run) warn(ctx context.Context, reason, message string) {
	r.hc.Events.Eventf(ctx, r.ref, controllers.Warning, reason, "%s", message)
}

// reconcile is kube's reconcileAutoscaler.
func (hc *Controller) reconcile(ctx context.Context, a *hpa, h *history) error {
	r := &run{hc: hc, a: a, now: hc.Clock.Now(), ref: controllers.Ref(&a.Metadata, "autoscaling/v2", "HorizontalPodAutoscaler")}
	r.st = a.Status
	r.st.Conditions = append([]condition(nil), a.Status.Conditions...)
	target := a.Spec.ScaleTargetRef
	path, err := hc.scalePath(ctx, a.Metadata.Namespace, target.APIVersion, target.Kind, target.Name)
	var sc *scale
	if err == nil {
		if sc, err = hc.getScale(ctx, path); err != nil {
			hc.mu.Lock()
			delete(hc.plurals, target.APIVersion+" "+target.Kind) // found again next time: the kind may have changed
			hc.mu.Unlock()
		}
	}
	if err != nil {
		msg := controllers.Message(err)
		r.warn(ctx, "FailedGetScale", msg)
		r.setCondition("AbleToScale", "False", "FailedGetScale", "the HPA controller was unable to get the target's current scale: "+msg)
		return hc.writeStatus(ctx, a, r.st)
	}
	r.setCondition("AbleToScale", "True", "SucceededGetScale", "the HPA controller was able to get the target's current scale")
	current := sc.Spec.Replicas
	if len(h.recommendations) == 0 {
		h.recommendations = append(h.recommendations, recommendation{current, r.now})
	}
	minReplicas := int32(1)
	if a.Spec.MinReplicas != nil {
		minReplicas = *a.Spec.MinReplicas
	}
	desired, reason, rescale := int32(0), "", true
	var statuses []metricStatus
	switch {
	case current == 0 && minReplicas != 0:
		rescale = false
		r.setCondition("ScalingActive", "False", "ScalingDisabled", "scaling is disabled since the replica count of the target is zero")
	case current > a.Spec.MaxReplicas:
		reason, desired = "Current number of replicas above Spec.MaxReplicas", a.Spec.MaxReplicas
	case current < minReplicas:
		reason, desired = "Current number of replicas below Spec.MinReplicas", minReplicas
	default:
		var proposal int32
		var metric string
		proposal, metric, statuses, err = r.computeReplicasForMetrics(ctx, sc)
		if err != nil && proposal == -1 {
			r.st.CurrentReplicas, r.st.CurrentMetrics = current, statuses
			r.warn(ctx, "FailedComputeMetricsReplicas", err.Error())
			return hc.writeStatus(ctx, a, r.st)
		}
		rescaleMetric := ""
		if proposal > desired {
			desired, rescaleMetric = proposal, metric
		}
		if desired > current {
			reason = rescaleMetric + " above target"
		}
		if desired < current {
			reason = "All metrics below target"
		}
		var l limits
		if b := a.Spec.Behavior; b == nil {
			l = h.normalize(current, desired, minReplicas, a.Spec.MaxReplicas, r.now)
		} else {
			up, down := rules{}, rules{}
			if b.ScaleUp != nil {
				up = *b.ScaleUp
			}
			if b.ScaleDown != nil {
				down = *b.ScaleDown
			}
			if up.StabilizationWindowSeconds == nil {
				zero := int32(0)
				up.StabilizationWindowSeconds = &zero
			}
			l = h.normalizeWithBehavior(up, down, current, desired, minReplicas, a.Spec.MaxReplicas, r.now)
		}
		r.setCondition("AbleToScale", "True", l.ableReason, l.ableMessage)
		limited := "False"
		if l.limited {
			limited = "True"
		}
		r.setCondition("ScalingLimited", limited, l.limitedReason, l.limitedMessage)
		desired = l.replicas
		rescale = desired != current
	}
	if rescale {
		sc.Spec.Replicas = desired
		if _, err := controllers.Send(ctx, hc.C, web.MethodPut, path, sc.body()); err != nil {
			msg := controllers.Message(err)
			hc.Events.Eventf(ctx, r.ref, controllers.Warning, "FailedRescale", "New size: %d; reason: %s; error: %s", desired, reason, msg)
			r.setCondition("AbleToScale", "False", "FailedUpdateScale", "the HPA controller was unable to update the target scale: "+msg)
			r.st.CurrentReplicas, r.st.CurrentMetrics = current, statuses
			return hc.writeStatus(ctx, a, r.st)
		}
		r.setCondition("AbleToScale", "True", "SucceededRescale", fmt.Sprintf("the HPA controller was able to update the target scale to %d", desired))
		hc.Events.Eventf(ctx, r.ref, controllers.Normal, "SuccessfulRescale", "New size: %d; reason: %s", desired, reason)
		if b := a.Spec.Behavior; b != nil {
			rs := b.ScaleDown
			if desired > current {
				rs = b.ScaleUp
			}
			if rs != nil {
				h.storeScaleEvent(*rs, current, desired, r.now)
			}
		}
		r.st.LastScaleTime = object.Timestamp(r.now)
	} else {
		desired = current
	}
	r.st.CurrentReplicas, r.st.DesiredReplicas, r.st.CurrentMetrics = current, desired, statuses
	return hc.writeStatus(ctx, a, r.st)
}

// computeReplicasForMetrics is kube's: the highest proposal of the metrics
// that could be computed; -1 with an error when none could, or when some
// failed and the rest would scale down.
func (r *run) computeReplicasForMetrics(ctx context.Context, sc *scale) (int32, string, []metricStatus, error) {
	sel, err := r.selector(ctx, sc.Status.Selector)
	if err != nil {
		return -1, "", nil, err
	}
	specs := r.a.Spec.Metrics
	statuses := make([]metricStatus, len(specs))
	var replicas int32
	var metric string
	invalid := 0
	var firstErr error
	var firstCond condition
	for i, spec := range specs {
		proposal, name, cond, err := r.computeReplicasForMetric(ctx, spec, sc.Spec.Replicas, sel, &statuses[i])
		if err != nil {
			if invalid == 0 {
				firstErr, firstCond = err, cond
			}
			invalid++
			continue
		}
		if replicas == 0 || proposal > replicas {
			replicas, metric = proposal, name
		}
	}
	if firstErr != nil {
		firstErr = fmt.Errorf("invalid metrics (%d invalid out of %d), first error is: %v", invalid, len(specs), firstErr)
	}
	if invalid >= len(specs) || (invalid > 0 && replicas < sc.Spec.Replicas) {
		r.setCondition(firstCond.Type, firstCond.Status, firstCond.Reason, firstCond.Message)
		return -1, "", statuses, firstErr
	}
	r.setCondition("ScalingActive", "True", "ValidMetricFound", "the HPA was able to successfully calculate a replica count from "+metric)
	return replicas, metric, statuses, firstErr
}

// selector is kube's validateAndParseSelector: the scale's selector, which
// must be there and parse.
func (r *run) selector(ctx context.Context, s string) (selector.Labels, error) {
	if s == "" {
		r.warn(ctx, "SelectorRequired", "selector is required")
		r.setCondition("ScalingActive", "False", "InvalidSelector", "the HPA target's scale is missing a selector")
		return nil, errors.New("selector is required")
	}
	sel, err := selector.ParseLabels(s)
	if err != nil {
		msg := "couldn't convert selector into a corresponding internal selector object: " + err.Error()
		r.warn(ctx, "InvalidSelector", msg)
		r.setCondition("ScalingActive", "False", "InvalidSelector", msg)
		return nil, errors.New(msg)
	}
	return sel, nil
}

// unable is kube's getUnableComputeReplicaCountCondition, its event sent.
func (r *run) unable(ctx context.Context, reason string, err error) condition {
	r.warn(ctx, reason, err.Error())
	return condition{Type: "ScalingActive", Status: "False", Reason: reason, Message: "the HPA was unable to compute the replica count: " + err.Error()}
}

// computeReplicasForMetric is kube's for one metric.
func (r *run) computeReplicasForMetric(ctx context.Context, spec metricSpec, current int32, sel selector.Labels, st *metricStatus) (int32, string, condition, error) {
	switch spec.Type {
	case "Resource":
		if spec.Resource == nil {
			break
		}
		res := spec.Resource
		proposal, name, cur, err := r.resourceMetric(ctx, current, res.Name, res.Target.AverageUtilization, res.Target.AverageValue, sel)
		if err != nil {
			return 0, "", r.unable(ctx, "FailedGetResourceMetric", err), fmt.Errorf("failed to get %s resource metric value: %v", res.Name, err)
		}
		*st = metricStatus{Type: "Resource", Resource: cur}
		st.Resource.Name = res.Name
		return proposal, name, condition{}, nil
	case "ContainerResource", "Pods", "Object", "External":
		// No custom or external metrics API is served: kube's client fails
		// to reach one.
		what, reason := "", "FailedGet"+spec.Type+"Metric"
		switch {
		case spec.ContainerResource != nil:
			what = spec.ContainerResource.Container + " container"
		case spec.Pods != nil:
			what = "pods"
		case spec.Object != nil:
			what = "object"
		case spec.External != nil:
			what = spec.External.Metric.Name + " external"
		}
		err := errors.New("the server could not find the requested resource")
		if spec.Type == "ContainerResource" {
			reason = "FailedGetContainerResourceMetric"
		}
		return 0, "", r.unable(ctx, reason, err), fmt.Errorf("failed to get %s metric value: %v", what, err)
	}
	err := fmt.Errorf("unknown metric source type %q", spec.Type)
	return 0, "", r.unable(ctx, "InvalidMetricSourceType", err), err
}

// resourceMetric is kube's computeStatusForResourceMetricGeneric.
func (r *run) resourceMetric(ctx context.Context, current int32, resource string, utilization *int32, averageValue string, sel selector.Labels) (int32, string, *resourceStatus, error) {
	out := &resourceStatus{}
	if averageValue == "" && utilization == nil {
		return 0, "", nil, errors.New("invalid resource metric source: neither an average utilization target nor an average value (usage) target was set")
	}
	metrics, err := r.hc.podMetrics(ctx, r.a.Metadata.Namespace, resource, sel)
	what := "utilization"
	if averageValue != "" {
		what = "usage"
	}
	if err != nil {
		return 0, "", nil, fmt.Errorf("failed to get %s %s: unable to get metrics for resource %s: %v", resource, what, resource, err)
	}
	pods := r.hc.podInfos(r.a.Metadata.Namespace, sel, resource)
	if averageValue != "" {
		replicas, _, average, err := kcm.resourceReplicas(current, pods, metrics, resource, nil, quantity.MilliValue(averageValue), r.now)
		if err != nil {
			return 0, "", nil, fmt.Errorf("failed to get %s usage: %v", resource, err)
		}
		out.Current.AverageValue = milli(average)
		return replicas, resource + " resource", out, nil
	}
	replicas, u, average, err := kcm.resourceReplicas(current, pods, metrics, resource, utilization, 0, r.now)
	if err != nil {
		return 0, "", nil, fmt.Errorf("failed to get %s utilization: %v", resource, err)
	}
	out.Current.AverageUtilization, out.Current.AverageValue = &u, milli(average)
	return replicas, resource + " resource utilization (percentage of request)", out, nil
}

// milli is a milli-value as resource.NewMilliQuantity prints it.
func milli(v int64) string {
	q, _ := quantity.Canonical(fmt.Sprintf("%dm", v))
	return q
}

// podMetrics is kube's resource metrics client: each Pod's usage of
// resource (the sum of its containers', milli-units) from metrics.k8s.io.
func (hc *Controller) podMetrics(ctx context.Context, ns, resource string, sel selector.Labels) (map[string]podMetric, error) {
	body, err := hc.C.Do(ctx, web.MethodGet, "/apis/metrics.k8s.io/v1beta1/namespaces/"+ns+"/pods?labelSelector="+url.QueryEscape(sel.String()), "", nil)
	if err != nil {
		return nil, fmt.Errorf("unable to fetch metrics from resource metrics API: %s", controllers.Message(err))
	}
	var list struct {
		Items []struct {
			Metadata   controllers.ObjectMeta `json:"metadata"`
			Timestamp  time.Time              `json:"timestamp"`
			Window     string                 `json:"window"`
			Containers []struct {
				Usage map[string]string `json:"usage"`
			} `json:"containers"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, err
	}
	if len(list.Items) == 0 {
		return nil, errors.New("no metrics returned from resource metrics API")
	}
	out := map[string]podMetric{}
	for _, m := range list.Items {
		window, _ := time.ParseDuration(m.Window)
		var sum int64
		missing := len(m.Containers) == 0
		for _, c := range m.Containers {
			v, ok := c.Usage[resource]
			if !ok {
				missing = true
				break
			}
			sum += quantity.MilliValue(v)
		}
		if !missing {
			out[m.Metadata.Name] = podMetric{value: sum, timestamp: m.Timestamp, window: window}
		}
	}
	return out, nil
}

// podInfos are the Pods in ns that sel selects, as the calculation reads
// them.
func (hc *Controller) podInfos(ns string, sel selector.Labels, resource string) []podInfo {
	var out []podInfo
	for _, p := range hc.pods.ByIndex("namespace", ns) {
		if !sel.Matches(p.Metadata.Labels) {
			continue
		}
		info := podInfo{name: p.Metadata.Name, deleting: p.Metadata.DeletionTimestamp != "", phase: p.Status.Phase}
		if c := controllers.FindCondition(p.Status.Conditions, "Ready"); c != nil {
			info.ready = c.Status
			info.readyChanged, _ = time.Parse(time.RFC3339, c.LastTransitionTime)
		}
		info.started, _ = time.Parse(time.RFC3339, p.Status.StartTime)
		info.hasStarted = p.Status.StartTime != ""
		for _, c := range p.Spec.Containers {
			req, ok := c.Resources.Requests[resource]
			if !ok {
				info.requestMissingIn = c.Name
				break
			}
			info.request += quantity.MilliValue(req)
		}
		out = append(out, info)
	}
	return out
}

// scalePath is the scale subresource of the target an autoscaler names,
// found as kube's REST mapper finds it: the resource of the kind in the
// group's discovery, remembered once found.
func (hc *Controller) scalePath(ctx context.Context, ns, apiVersion, kind, name string) (string, error) {
	group, version, grouped := strings.Cut(apiVersion, "/")
	prefix := "/apis/" + apiVersion
	if !grouped {
		group, version, prefix = "", apiVersion, "/api/"+apiVersion
	}
	if strings.Count(apiVersion, "/") > 1 || version == "" {
		return "", fmt.Errorf("unexpected GroupVersion string: %s", apiVersion)
	}
	hc.mu.Lock()
	plural, known := hc.plurals[apiVersion+" "+kind]
	hc.mu.Unlock()
	if !known {
		body, err := hc.C.Do(ctx, web.MethodGet, prefix, "", nil)
		var list struct {
			Resources []struct {
				Name string `json:"name"`
				Kind string `json:"kind"`
			} `json:"resources"`
		}
		if err == nil && json.Unmarshal(body, &list) == nil {
			for _, res := range list.Resources {
				if res.Kind == kind && !strings.Contains(res.Name, "/") {
					plural, known = res.Name, true
				}
			}
		}
		if !known {
			return "", fmt.Errorf("no matches for kind %q in group %q", kind, group)
		}
		hc.mu.Lock()
		hc.plurals[apiVersion+" "+kind] = plural
		hc.mu.Unlock()
	}
	return prefix + "/namespaces/" + ns + "/" + plural + "/" + url.PathEscape(name) + "/scale", nil
}

func (hc *Controller) getScale(ctx context.Context, path string) (*scale, error) {
	body, err := hc.C.Do(ctx, web.MethodGet, path, "", nil)
	if err != nil {
		return nil, err
	}
	var sc scale
	if err := json.Unmarshal(body, &sc); err != nil {
		return nil, err
	}
	sc.Raw = body
	return &sc, nil
}

// body is the Scale as read, with its new spec.replicas.
func (sc *scale) body() object.Object {
	obj, err := object.Decode(sc.Raw)
	if err != nil {
		obj = object.Object{}
	}
	object.Child(obj, "spec")["replicas"] = sc.Spec.Replicas
	return obj
}

// writeStatus is kube's updateStatusIfNeeded: a write only when the status
// changed.
func (hc *Controller) writeStatus(ctx context.Context, a *hpa, st status) error {
	if controllers.MustJSON(a.Status) == controllers.MustJSON(st) {
		return nil
	}
	path := "/apis/autoscaling/v2/namespaces/" + a.Metadata.Namespace + "/horizontalpodautoscalers/" + a.Metadata.Name + "/status"
	_, err := controllers.Update(ctx, hc.C, path, a.Raw, func(obj object.Object) {
		var m map[string]any
		_ = json.Unmarshal([]byte(controllers.MustJSON(st)), &m)
		obj["status"] = m
	})
	if err != nil {
		r := controllers.Ref(&a.Metadata, "autoscaling/v2", "HorizontalPodAutoscaler")
		hc.Events.Eventf(ctx, r, controllers.Warning, "FailedUpdateStatus", "%s", controllers.Message(err))
		return fmt.Errorf("failed to update status for %s: %v", a.Metadata.Name, err)
	}
	return nil
}
