package conversion

import (
	"encoding/json"
	"strings"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/quantity"
)

// kube stores a HorizontalPodAutoscaler as autoscaling/v2 and serves it
// in autoscaling/v1 too (pkg/apis/autoscaling/v1/conversion.go): v1 has one
// metric, the CPU's target utilization, and keeps what else v2 says in
// annotations, as JSON, so that a v1 client's read and write loses none of
// it.
const (
	hpaMetricsAnnotation        = "autoscaling.alpha.kubernetes.io/metrics"
	hpaCurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	hpaConditionsAnnotation     = "autoscaling.alpha.kubernetes.io/conditions"
	hpaBehaviorAnnotation       = "autoscaling.alpha.kubernetes.io/behavior"
	// hpaDefaultCPUUtilization is the CPU target of an autoscaler with no
	// metric (DefaultCPUUtilization).
	hpaDefaultCPUUtilization = 80
)

// DropHPARoundTripAnnotations removes the annotations in which
// autoscaling/v1 keeps what only autoscaling/v2 says from an object's
// metadata (DropRoundTripHorizontalPodAutoscalerAnnotations): v2 never
// shows or stores them.
func DropHPARoundTripAnnotations(obj object.Object) {
	meta, _ := obj["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	for _, key := range []string{hpaMetricsAnnotation, hpaBehaviorAnnotation, hpaCurrentMetricsAnnotation, hpaConditionsAnnotation} {
		delete(annotations, key)
	}
}

// HPAV1FromV2 turns an autoscaling/v2 HorizontalPodAutoscaler into its
// autoscaling/v1 form, in place: the first CPU utilization target is
// targetCPUUtilizationPercentage, the last CPU utilization observed
// currentCPUUtilizationPercentage, and the other metrics, every metric
// observed, the behavior and the conditions are annotations.
func HPAV1FromV2(obj object.Object) object.Object {
	var in hpaV2
	fromMap(obj, &in)
	DropHPARoundTripAnnotations(obj)
	spec := map[string]any{"scaleTargetRef": in.Spec.ScaleTargetRef, "maxReplicas": in.Spec.MaxReplicas}
	if in.Spec.MinReplicas != nil {
		spec["minReplicas"] = *in.Spec.MinReplicas
	}
	var others []metricSpecV1
	cpuSet := false
	for _, m := range in.Spec.Metrics {
		if m.cpuUtilization() {
			if !cpuSet {
				spec["targetCPUUtilizationPercentage"] = *m.Resource.Target.AverageUtilization
				cpuSet = true
			}
			continue
		}
		others = append(others, m.toV1())
	}
	status := map[string]any{"currentReplicas": in.Status.CurrentReplicas, "desiredReplicas": in.Status.DesiredReplicas}
	if in.Status.ObservedGeneration != nil {
		status["observedGeneration"] = *in.Status.ObservedGeneration
	}
	if in.Status.LastScaleTime != nil {
		status["lastScaleTime"] = *in.Status.LastScaleTime
	}
	current := make([]metricStatusV1, len(in.Status.CurrentMetrics))
	for i, m := range in.Status.CurrentMetrics {
		if m.Type == "Resource" && m.Resource != nil && m.Resource.Name == "cpu" && m.Resource.Current.AverageUtilization != nil {
			status["currentCPUUtilizationPercentage"] = *m.Resource.Current.AverageUtilization
		}
		current[i] = m.toV1()
	}
	annotate := func(key string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			return
		}
		object.Child(object.Meta(obj), "annotations")[key] = string(b)
	}
	if len(others) > 0 {
		annotate(hpaMetricsAnnotation, others)
	}
	if len(current) > 0 {
		annotate(hpaCurrentMetricsAnnotation, current)
	}
	if in.Spec.Behavior != nil {
		annotate(hpaBehaviorAnnotation, in.Spec.Behavior.internal())
	}
	if len(in.Status.Conditions) > 0 {
		annotate(hpaConditionsAnnotation, in.Status.Conditions)
	}
	obj["apiVersion"] = "autoscaling/v1"
	obj["spec"], obj["status"] = toMap(spec), toMap(status)
	return obj
}

// HPAV1ToV2 turns an autoscaling/v1 HorizontalPodAutoscaler into its
// autoscaling/v2 form, in place: targetCPUUtilizationPercentage is a CPU
// utilization metric after those the annotation keeps, and 80% of the CPU
// the target of an autoscaler that names none; the annotations give back
// the behavior, the metrics observed and the conditions, and go.
func HPAV1ToV2(obj object.Object) object.Object {
	var in hpaV1
	fromMap(obj, &in)
	spec := hpaSpecV2{ScaleTargetRef: in.Spec.ScaleTargetRef, MinReplicas: in.Spec.MinReplicas, MaxReplicas: in.Spec.MaxReplicas}
	if in.Spec.TargetCPUUtilizationPercentage != nil {
		spec.Metrics = []metricSpecV2{cpuUtilization(*in.Spec.TargetCPUUtilizationPercentage)}
	}
	status := hpaStatusV2{ObservedGeneration: in.Status.ObservedGeneration, LastScaleTime: in.Status.LastScaleTime,
		CurrentReplicas: in.Status.CurrentReplicas, DesiredReplicas: in.Status.DesiredReplicas}
	if u := in.Status.CurrentCPUUtilizationPercentage; u != nil {
		status.CurrentMetrics = []metricStatusV2{{Type: "Resource", Resource: &resourceMetricStatusV2{Name: "cpu", Current: metricValueStatus{AverageUtilization: u}}}}
	}
	annotations := object.StringMap(object.Meta(obj), "annotations")
	if enc, ok := annotations[hpaMetricsAnnotation]; ok {
		var others []metricSpecV1
		if json.Unmarshal([]byte(enc), &others) == nil {
			metrics := make([]metricSpecV2, 0, len(others)+len(spec.Metrics))
			for _, m := range others {
				metrics = append(metrics, m.toV2())
			}
			spec.Metrics = append(metrics, spec.Metrics...)
		}
	}
	if enc, ok := annotations[hpaBehaviorAnnotation]; ok {
		var b hpaBehaviorInternal
		if json.Unmarshal([]byte(enc), &b) == nil && (b.ScaleUp != nil || b.ScaleDown != nil) {
			spec.Behavior = b.v2()
		}
	}
	if enc, ok := annotations[hpaCurrentMetricsAnnotation]; ok {
		var current []metricStatusV1
		if json.Unmarshal([]byte(enc), &current) == nil {
			status.CurrentMetrics = make([]metricStatusV2, len(current))
			for i, m := range current {
				status.CurrentMetrics[i] = m.toV2()
			}
		}
	}
	if len(spec.Metrics) == 0 {
		spec.Metrics = []metricSpecV2{cpuUtilization(hpaDefaultCPUUtilization)}
	}
	if enc, ok := annotations[hpaConditionsAnnotation]; ok {
		var conditions []hpaCondition
		if json.Unmarshal([]byte(enc), &conditions) == nil {
			status.Conditions = conditions
		}
	}
	DropHPARoundTripAnnotations(obj)
	obj["apiVersion"] = "autoscaling/v2"
	obj["spec"], obj["status"] = toMap(spec), toMap(status)
	return obj
}

// fromMap reads part of an object into v (what does not fit is left out).
func fromMap(m any, v any) {
	if b, err := json.Marshal(m); err == nil {
		_ = json.Unmarshal(b, v)
	}
}

// toMap is v as a decoded object.
func toMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return map[string]any{}
	}
	m, err := object.Decode(b)
	if err != nil {
		return map[string]any{}
	}
	return m
}

func cpuUtilization(percent int32) metricSpecV2 {
	return metricSpecV2{Type: "Resource", Resource: &resourceMetricSourceV2{Name: "cpu", Target: metricTarget{Type: "Utilization", AverageUtilization: &percent}}}
}

// qty is a resource.Quantity: written canonically, read from a string or a
// number as kube's Quantity is; "" is the zero quantity.
type qty string

func (q qty) MarshalJSON() ([]byte, error) {
	if q == "" {
		return []byte(`"0"`), nil
	}
	return json.Marshal(string(q))
}

func (q *qty) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		*q = ""
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	c, err := quantity.Canonical(strings.TrimSpace(s))
	if err != nil {
		return err
	}
	*q = qty(c)
	return nil
}

// ptr is q as an optional quantity (the zero one, "0", for "").
func (q qty) ptr() *qty {
	if q == "" {
		q = "0"
	}
	return &q
}

// val is an optional quantity as a required one.
func val(q *qty) qty {
	if q == nil {
		return ""
	}
	return *q
}

// metaTime is a metav1.Time: null when zero, RFC 3339 in UTC.
type metaTime string

func (t metaTime) MarshalJSON() ([]byte, error) {
	if t == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(t))
}

func (t *metaTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	parsed, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	*t = metaTime(object.Timestamp(parsed))
	return nil
}

type crossVersionRef struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
}

type labelSelector struct {
	MatchLabels      map[string]string `json:"matchLabels,omitempty"`
	MatchExpressions []struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values,omitempty"`
	} `json:"matchExpressions,omitempty"`
}

type hpaCondition struct {
	Type               string   `json:"type"`
	Status             string   `json:"status"`
	LastTransitionTime metaTime `json:"lastTransitionTime"`
	Reason             string   `json:"reason,omitempty"`
	Message            string   `json:"message,omitempty"`
}

// The autoscaling/v2 form.

type hpaV2 struct {
	Spec   hpaSpecV2   `json:"spec"`
	Status hpaStatusV2 `json:"status"`
}

type hpaSpecV2 struct {
	ScaleTargetRef crossVersionRef `json:"scaleTargetRef"`
	MinReplicas    *int32          `json:"minReplicas,omitempty"`
	MaxReplicas    int32           `json:"maxReplicas"`
	Metrics        []metricSpecV2  `json:"metrics,omitempty"`
	Behavior       *hpaBehaviorV2  `json:"behavior,omitempty"`
}

type hpaStatusV2 struct {
	ObservedGeneration *int64           `json:"observedGeneration,omitempty"`
	LastScaleTime      *metaTime        `json:"lastScaleTime,omitempty"`
	CurrentReplicas    int32            `json:"currentReplicas,omitempty"`
	DesiredReplicas    int32            `json:"desiredReplicas"`
	CurrentMetrics     []metricStatusV2 `json:"currentMetrics,omitempty"`
	Conditions         []hpaCondition   `json:"conditions,omitempty"`
}

type hpaBehaviorV2 struct {
	ScaleUp   *scalingRulesV2 `json:"scaleUp,omitempty"`
	ScaleDown *scalingRulesV2 `json:"scaleDown,omitempty"`
}

type scalingRulesV2 struct {
	StabilizationWindowSeconds *int32            `json:"stabilizationWindowSeconds,omitempty"`
	SelectPolicy               *string           `json:"selectPolicy,omitempty"`
	Policies                   []scalingPolicyV2 `json:"policies,omitempty"`
}

type scalingPolicyV2 struct {
	Type          string `json:"type"`
	Value         int32  `json:"value"`
	PeriodSeconds int32  `json:"periodSeconds"`
}

// hpaBehaviorInternal is the behavior as kube's annotation writes it: its
// internal Go type, without JSON names.
type hpaBehaviorInternal struct {
	ScaleUp, ScaleDown *scalingRulesInternal
}

type scalingRulesInternal struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *string
	Policies                   []scalingPolicyInternal
}

type scalingPolicyInternal struct {
	Type          string
	Value         int32
	PeriodSeconds int32
}

func (b *hpaBehaviorV2) internal() hpaBehaviorInternal {
	rules := func(r *scalingRulesV2) *scalingRulesInternal {
		if r == nil {
			return nil
		}
		out := &scalingRulesInternal{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy}
		if r.Policies != nil {
			out.Policies = make([]scalingPolicyInternal, len(r.Policies))
			for i, p := range r.Policies {
				out.Policies[i] = scalingPolicyInternal(p)
			}
		}
		return out
	}
	return hpaBehaviorInternal{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}

func (b hpaBehaviorInternal) v2() *hpaBehaviorV2 {
	rules := func(r *scalingRulesInternal) *scalingRulesV2 {
		if r == nil {
			return nil
		}
		out := &scalingRulesV2{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy}
		for _, p := range r.Policies {
			out.Policies = append(out.Policies, scalingPolicyV2(p))
		}
		return out
	}
	return &hpaBehaviorV2{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}

type metricIdentifier struct {
	Name     string         `json:"name"`
	Selector *labelSelector `json:"selector,omitempty"`
}

type metricTarget struct {
	Type               string `json:"type"`
	Value              *qty   `json:"value,omitempty"`
	AverageValue       *qty   `json:"averageValue,omitempty"`
	AverageUtilization *int32 `json:"averageUtilization,omitempty"`
}

type metricValueStatus struct {
	Value              *qty   `json:"value,omitempty"`
	AverageValue       *qty   `json:"averageValue,omitempty"`
	AverageUtilization *int32 `json:"averageUtilization,omitempty"`
}

type metricSpecV2 struct {
	Type              string                           `json:"type"`
	Object            *objectMetricSourceV2            `json:"object,omitempty"`
	Pods              *podsMetricSourceV2              `json:"pods,omitempty"`
	Resource          *resourceMetricSourceV2          `json:"resource,omitempty"`
	ContainerResource *containerResourceMetricSourceV2 `json:"containerResource,omitempty"`
	External          *externalMetricSourceV2          `json:"external,omitempty"`
}

type objectMetricSourceV2 struct {
	DescribedObject crossVersionRef  `json:"describedObject"`
	Target          metricTarget     `json:"target"`
	Metric          metricIdentifier `json:"metric"`
}

type podsMetricSourceV2 struct {
	Metric metricIdentifier `json:"metric"`
	Target metricTarget     `json:"target"`
}

type resourceMetricSourceV2 struct {
	Name   string       `json:"name"`
	Target metricTarget `json:"target"`
}

type containerResourceMetricSourceV2 struct {
	Name      string       `json:"name"`
	Target    metricTarget `json:"target"`
	Container string       `json:"container"`
}

type externalMetricSourceV2 struct {
	Metric metricIdentifier `json:"metric"`
	Target metricTarget     `json:"target"`
}

type metricStatusV2 struct {
	Type              string                           `json:"type"`
	Object            *objectMetricStatusV2            `json:"object,omitempty"`
	Pods              *podsMetricStatusV2              `json:"pods,omitempty"`
	Resource          *resourceMetricStatusV2          `json:"resource,omitempty"`
	ContainerResource *containerResourceMetricStatusV2 `json:"containerResource,omitempty"`
	External          *externalMetricStatusV2          `json:"external,omitempty"`
}

type objectMetricStatusV2 struct {
	Metric          metricIdentifier  `json:"metric"`
	Current         metricValueStatus `json:"current"`
	DescribedObject crossVersionRef   `json:"describedObject"`
}

type podsMetricStatusV2 struct {
	Metric  metricIdentifier  `json:"metric"`
	Current metricValueStatus `json:"current"`
}

type resourceMetricStatusV2 struct {
	Name    string            `json:"name"`
	Current metricValueStatus `json:"current"`
}

type containerResourceMetricStatusV2 struct {
	Name      string            `json:"name"`
	Current   metricValueStatus `json:"current"`
	Container string            `json:"container"`
}

type externalMetricStatusV2 struct {
	Metric  metricIdentifier  `json:"metric"`
	Current metricValueStatus `json:"current"`
}

// cpuUtilization says whether m is what v1's targetCPUUtilizationPercentage
// says.
func (m metricSpecV2) cpuUtilization() bool {
	return m.Type == "Resource" && m.Resource != nil && m.Resource.Name == "cpu" && m.Resource.Target.AverageUtilization != nil
}

// The autoscaling/v1 form.

type hpaV1 struct {
	Spec struct {
		ScaleTargetRef                 crossVersionRef `json:"scaleTargetRef"`
		MinReplicas                    *int32          `json:"minReplicas"`
		MaxReplicas                    int32           `json:"maxReplicas"`
		TargetCPUUtilizationPercentage *int32          `json:"targetCPUUtilizationPercentage"`
	} `json:"spec"`
	Status struct {
		ObservedGeneration              *int64    `json:"observedGeneration"`
		LastScaleTime                   *metaTime `json:"lastScaleTime"`
		CurrentReplicas                 int32     `json:"currentReplicas"`
		DesiredReplicas                 int32     `json:"desiredReplicas"`
		CurrentCPUUtilizationPercentage *int32    `json:"currentCPUUtilizationPercentage"`
	} `json:"status"`
}

type metricSpecV1 struct {
	Type              string                           `json:"type"`
	Object            *objectMetricSourceV1            `json:"object,omitempty"`
	Pods              *podsMetricSourceV1              `json:"pods,omitempty"`
	Resource          *resourceMetricSourceV1          `json:"resource,omitempty"`
	ContainerResource *containerResourceMetricSourceV1 `json:"containerResource,omitempty"`
	External          *externalMetricSourceV1          `json:"external,omitempty"`
}

type objectMetricSourceV1 struct {
	Target       crossVersionRef `json:"target"`
	MetricName   string          `json:"metricName"`
	TargetValue  qty             `json:"targetValue"`
	Selector     *labelSelector  `json:"selector,omitempty"`
	AverageValue *qty            `json:"averageValue,omitempty"`
}

type podsMetricSourceV1 struct {
	MetricName         string         `json:"metricName"`
	TargetAverageValue qty            `json:"targetAverageValue"`
	Selector           *labelSelector `json:"selector,omitempty"`
}

type resourceMetricSourceV1 struct {
	Name                     string `json:"name"`
	TargetAverageUtilization *int32 `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *qty   `json:"targetAverageValue,omitempty"`
}

type containerResourceMetricSourceV1 struct {
	Name                     string `json:"name"`
	TargetAverageUtilization *int32 `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue       *qty   `json:"targetAverageValue,omitempty"`
	Container                string `json:"container"`
}

type externalMetricSourceV1 struct {
	MetricName         string         `json:"metricName"`
	MetricSelector     *labelSelector `json:"metricSelector,omitempty"`
	TargetValue        *qty           `json:"targetValue,omitempty"`
	TargetAverageValue *qty           `json:"targetAverageValue,omitempty"`
}

type metricStatusV1 struct {
	Type              string                           `json:"type"`
	Object            *objectMetricStatusV1            `json:"object,omitempty"`
	Pods              *podsMetricStatusV1              `json:"pods,omitempty"`
	Resource          *resourceMetricStatusV1          `json:"resource,omitempty"`
	ContainerResource *containerResourceMetricStatusV1 `json:"containerResource,omitempty"`
	External          *externalMetricStatusV1          `json:"external,omitempty"`
}

type objectMetricStatusV1 struct {
	Target       crossVersionRef `json:"target"`
	MetricName   string          `json:"metricName"`
	CurrentValue qty             `json:"currentValue"`
	Selector     *labelSelector  `json:"selector,omitempty"`
	AverageValue *qty            `json:"averageValue,omitempty"`
}

type podsMetricStatusV1 struct {
	MetricName          string         `json:"metricName"`
	CurrentAverageValue qty            `json:"currentAverageValue"`
	Selector            *labelSelector `json:"selector,omitempty"`
}

type resourceMetricStatusV1 struct {
	Name                      string `json:"name"`
	CurrentAverageUtilization *int32 `json:"currentAverageUtilization,omitempty"`
	CurrentAverageValue       qty    `json:"currentAverageValue"`
}

type containerResourceMetricStatusV1 struct {
	Name                      string `json:"name"`
	CurrentAverageUtilization *int32 `json:"currentAverageUtilization,omitempty"`
	CurrentAverageValue       qty    `json:"currentAverageValue"`
	Container                 string `json:"container"`
}

type externalMetricStatusV1 struct {
	MetricName          string         `json:"metricName"`
	MetricSelector      *labelSelector `json:"metricSelector,omitempty"`
	CurrentValue        qty            `json:"currentValue"`
	CurrentAverageValue *qty           `json:"currentAverageValue,omitempty"`
}

// toV1 is Convert_autoscaling_MetricSpec_To_v1_MetricSpec.
func (m metricSpecV2) toV1() metricSpecV1 {
	out := metricSpecV1{Type: m.Type}
	if s := m.Object; s != nil {
		out.Object = &objectMetricSourceV1{Target: s.DescribedObject, MetricName: s.Metric.Name, TargetValue: val(s.Target.Value),
			Selector: s.Metric.Selector, AverageValue: s.Target.AverageValue}
	}
	if s := m.Pods; s != nil {
		out.Pods = &podsMetricSourceV1{MetricName: s.Metric.Name, TargetAverageValue: val(s.Target.AverageValue), Selector: s.Metric.Selector}
	}
	if s := m.Resource; s != nil {
		out.Resource = &resourceMetricSourceV1{Name: s.Name, TargetAverageUtilization: s.Target.AverageUtilization, TargetAverageValue: s.Target.AverageValue}
	}
	if s := m.ContainerResource; s != nil {
		out.ContainerResource = &containerResourceMetricSourceV1{Name: s.Name, TargetAverageUtilization: s.Target.AverageUtilization,
			TargetAverageValue: s.Target.AverageValue, Container: s.Container}
	}
	if s := m.External; s != nil {
		out.External = &externalMetricSourceV1{MetricName: s.Metric.Name, MetricSelector: s.Metric.Selector,
			TargetValue: s.Target.Value, TargetAverageValue: s.Target.AverageValue}
	}
	return out
}

// toV2 is Convert_v1_MetricSpec_To_autoscaling_MetricSpec.
func (m metricSpecV1) toV2() metricSpecV2 {
	out := metricSpecV2{Type: m.Type}
	if s := m.Object; s != nil {
		t := metricTarget{Type: "Value", Value: s.TargetValue.ptr(), AverageValue: s.AverageValue}
		if s.AverageValue != nil {
			t.Type = "AverageValue"
		}
		out.Object = &objectMetricSourceV2{DescribedObject: s.Target, Target: t, Metric: metricIdentifier{Name: s.MetricName, Selector: s.Selector}}
	}
	if s := m.Pods; s != nil {
		out.Pods = &podsMetricSourceV2{Metric: metricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Target: metricTarget{Type: "AverageValue", AverageValue: s.TargetAverageValue.ptr()}}
	}
	if s := m.Resource; s != nil {
		out.Resource = &resourceMetricSourceV2{Name: s.Name, Target: utilizationOrValue(s.TargetAverageUtilization, s.TargetAverageValue)}
	}
	if s := m.ContainerResource; s != nil {
		out.ContainerResource = &containerResourceMetricSourceV2{Name: s.Name, Container: s.Container,
			Target: utilizationOrValue(s.TargetAverageUtilization, s.TargetAverageValue)}
	}
	if s := m.External; s != nil {
		t := metricTarget{Type: "AverageValue", Value: s.TargetValue, AverageValue: s.TargetAverageValue}
		if s.TargetValue != nil {
			t.Type = "Value"
		}
		out.External = &externalMetricSourceV2{Metric: metricIdentifier{Name: s.MetricName, Selector: s.MetricSelector}, Target: t}
	}
	return out
}

func utilizationOrValue(utilization *int32, average *qty) metricTarget {
	t := metricTarget{Type: "AverageValue", AverageValue: average, AverageUtilization: utilization}
	if utilization != nil {
		t.Type = "Utilization"
	}
	return t
}

// toV1 is Convert_autoscaling_MetricStatus_To_v1_MetricStatus.
func (m metricStatusV2) toV1() metricStatusV1 {
	out := metricStatusV1{Type: m.Type}
	if s := m.Object; s != nil {
		out.Object = &objectMetricStatusV1{Target: s.DescribedObject, MetricName: s.Metric.Name, CurrentValue: val(s.Current.Value),
			Selector: s.Metric.Selector, AverageValue: s.Current.AverageValue}
	}
	if s := m.Pods; s != nil {
		out.Pods = &podsMetricStatusV1{MetricName: s.Metric.Name, CurrentAverageValue: val(s.Current.AverageValue), Selector: s.Metric.Selector}
	}
	if s := m.Resource; s != nil {
		out.Resource = &resourceMetricStatusV1{Name: s.Name, CurrentAverageUtilization: s.Current.AverageUtilization, CurrentAverageValue: val(s.Current.AverageValue)}
	}
	if s := m.ContainerResource; s != nil {
		out.ContainerResource = &containerResourceMetricStatusV1{Name: s.Name, CurrentAverageUtilization: s.Current.AverageUtilization,
			CurrentAverageValue: val(s.Current.AverageValue), Container: s.Container}
	}
	if s := m.External; s != nil {
		out.External = &externalMetricStatusV1{MetricName: s.Metric.Name, MetricSelector: s.Metric.Selector,
			CurrentValue: val(s.Current.Value), CurrentAverageValue: s.Current.AverageValue}
	}
	return out
}

// toV2 is Convert_v1_MetricStatus_To_autoscaling_MetricStatus.
func (m metricStatusV1) toV2() metricStatusV2 {
	out := metricStatusV2{Type: m.Type}
	if s := m.Object; s != nil {
		out.Object = &objectMetricStatusV2{Metric: metricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Current: metricValueStatus{Value: s.CurrentValue.ptr(), AverageValue: s.AverageValue}, DescribedObject: s.Target}
	}
	if s := m.Pods; s != nil {
		out.Pods = &podsMetricStatusV2{Metric: metricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Current: metricValueStatus{AverageValue: s.CurrentAverageValue.ptr()}}
	}
	if s := m.Resource; s != nil {
		out.Resource = &resourceMetricStatusV2{Name: s.Name,
			Current: metricValueStatus{AverageValue: s.CurrentAverageValue.ptr(), AverageUtilization: s.CurrentAverageUtilization}}
	}
	if s := m.ContainerResource; s != nil {
		out.ContainerResource = &containerResourceMetricStatusV2{Name: s.Name, Container: s.Container,
			Current: metricValueStatus{AverageValue: s.CurrentAverageValue.ptr(), AverageUtilization: s.CurrentAverageUtilization}}
	}
	if s := m.External; s != nil {
		out.External = &externalMetricStatusV2{Metric: metricIdentifier{Name: s.MetricName, Selector: s.MetricSelector},
			Current: metricValueStatus{Value: s.CurrentValue.ptr(), AverageValue: s.CurrentAverageValue}}
	}
	return out
}
