package validation

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// The rules of Deployments, ReplicaSets and StatefulSets (pkg/apis/apps/validation): counts
// not negative, a selector that is valid, not empty and matches the pod
// template's labels, a template that is a valid pod spec restarting Always, a
// rolling update's surge and unavailability, and on update a selector that
// does not change.

// Deployment checks a Deployment's spec (ValidateDeploymentSpec).
func Deployment(d object.Object) field.ErrorList {
	spec, p := fields(d).obj("spec"), field.NewPath("spec")
	errs := nonNegative(spec.num("replicas"), p.Child("replicas"))
	add(&errs, selectorAndTemplate(spec, p)...)
	add(&errs, deploymentStrategy(spec.obj("strategy"), p.Child("strategy"))...)
	add(&errs, nonNegative(spec.num("minReadySeconds"), p.Child("minReadySeconds"))...)
	if spec.has("revisionHistoryLimit") {
		add(&errs, nonNegative(spec.num("revisionHistoryLimit"), p.Child("revisionHistoryLimit"))...)
	}
	if spec.has("progressDeadlineSeconds") {
		deadline := spec.num("progressDeadlineSeconds")
		add(&errs, nonNegative(deadline, p.Child("progressDeadlineSeconds"))...)
		if deadline <= spec.num("minReadySeconds") {
			add(&errs, field.Invalid(p.Child("progressDeadlineSeconds"), deadline, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// DeploymentUpdate checks an update of a Deployment: its spec again, and a
// selector that does not change.
func DeploymentUpdate(d, old object.Object) field.ErrorList {
	return append(Deployment(d), immutableSelector(d, old)...)
}

// ReplicaSet checks a ReplicaSet's spec (ValidateReplicaSetSpec).
func ReplicaSet(rs object.Object) field.ErrorList {
	spec, p := fields(rs).obj("spec"), field.NewPath("spec")
	errs := nonNegative(spec.num("replicas"), p.Child("replicas"))
	add(&errs, nonNegative(spec.num("minReadySeconds"), p.Child("minReadySeconds"))...)
	return append(errs, selectorAndTemplate(spec, p)...)
}

// ReplicaSetUpdate checks an update of a ReplicaSet: kube's strategy checks
// the new spec twice, as a new object and as an update, so each error is
// listed twice; then the selector may not change.
func ReplicaSetUpdate(rs, old object.Object) field.ErrorList {
	return append(append(ReplicaSet(rs), ReplicaSet(rs)...), immutableSelector(rs, old)...)
}

// immutableSelector: the selector may not change once set.
func immutableSelector(obj, old object.Object) field.ErrorList {
	sel, oldSel := fields(obj).obj("spec").obj("selector"), fields(old).obj("spec").obj("selector")
	if semanticEqual(map[string]any(sel), map[string]any(oldSel)) && (sel == nil) == (oldSel == nil) {
		return nil
	}
	var v any = labelSelector(sel)
	if sel == nil {
		v = nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("spec", "selector"), v, fieldImmutable)}
}

// selectorAndTemplate checks a workload's selector and its pod template
// (ValidatePodTemplateSpecForReplicaSet), which must match it.
func selectorAndTemplate(spec fields, p *field.Path) field.ErrorList {
	sp := p.Child("selector")
	sel := spec.obj("selector")
	errs, ok := workloadSelector(sel, sp, "deployment")
	if !ok {
		return append(errs, field.Invalid(sp, labelSelector(sel), "invalid label selector"))
	}
	tp := p.Child("template")
	template := spec.obj("template")
	labels := template.obj("metadata").strMap("labels")
	if !selectorEmpty(sel) && !selectorMatches(sel, labels) {
		add(&errs, field.Invalid(tp.Child("metadata").Child("labels"), labels, "`selector` does not match template `labels`"))
	}
	add(&errs, podTemplate(template, tp)...)
	tspec := template.obj("spec")
	if policy := tspec.str("restartPolicy"); policy != "Always" {
		add(&errs, field.NotSupported(tp.Child("spec").Child("restartPolicy"), policy, []string{"Always"}))
	}
	if tspec.has("activeDeadlineSeconds") {
		add(&errs, field.Forbidden(tp.Child("spec").Child("activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicaSet is not Supported"))
	}
	return errs
}

// workloadSelector checks a workload's selector: there, valid
// (ValidateLabelSelector) and not empty ("empty selector is invalid for
// kind"); false when kube could not make a labels.Selector of it
// (LabelSelectorAsSelector), and so checks no template against it.
func workloadSelector(sel fields, sp *field.Path, kind string) (field.ErrorList, bool) {
	if sel == nil {
		return field.ErrorList{field.Required(sp, "")}, true
	}
	errs := selectorErrors(sel, sp)
	ok := len(errs) == 0
	if len(sel.strMap("matchLabels"))+len(sel.list("matchExpressions")) == 0 {
		add(&errs, field.Invalid(sp, labelSelector(sel), "empty selector is invalid for "+kind))
	}
	return errs, ok
}

// StatefulSet checks a StatefulSet's spec (ValidateStatefulSetSpec): its
// pod template only for matching the selector and its labels, as kube does.
func StatefulSet(s object.Object) field.ErrorList {
	spec, p := fields(s).obj("spec"), field.NewPath("spec")
	var errs field.ErrorList
	switch policy := spec.str("podManagementPolicy"); policy {
	case "":
		add(&errs, field.Required(p.Child("podManagementPolicy"), ""))
	case "OrderedReady", "Parallel":
	default:
		add(&errs, field.Invalid(p.Child("podManagementPolicy"), policy, "must be 'OrderedReady' or 'Parallel'"))
	}
	switch strategy := spec.obj("updateStrategy"); strategy.str("type") {
	case "":
		add(&errs, field.Required(p.Child("updateStrategy"), ""))
	case "RollingUpdate":
		if rolling := strategy.obj("rollingUpdate"); rolling != nil {
			add(&errs, nonNegative(rolling.num("partition"), p.Child("updateStrategy").Child("rollingUpdate").Child("partition"))...)
		}
	}
	if policy := spec.obj("persistentVolumeClaimRetentionPolicy"); policy != nil {
		for _, f := range []string{"whenDeleted", "whenScaled"} {
			if v := policy.str(f); v != "Retain" && v != "Delete" {
				add(&errs, field.NotSupported(p.Child("persistentVolumeClaimRetentionPolicy").Child(f), v, []string{"Retain", "Delete"}))
			}
		}
	}
	add(&errs, nonNegative(spec.num("replicas"), p.Child("replicas"))...)
	add(&errs, nonNegative(spec.num("minReadySeconds"), p.Child("minReadySeconds"))...)
	if ordinals := spec.obj("ordinals"); ordinals != nil {
		add(&errs, nonNegative(ordinals.num("start"), p.Child("ordinals.start"))...)
	}
	sp, tp := p.Child("selector"), p.Child("template")
	sel := spec.obj("selector")
	selErrs, ok := workloadSelector(sel, sp, "statefulset")
	add(&errs, selErrs...)
	labels := spec.obj("template").obj("metadata").strMap("labels")
	if !ok {
		add(&errs, field.Invalid(sp, labelSelector(sel), ""))
	} else {
		if !selectorEmpty(sel) && !selectorMatches(sel, labels) {
			add(&errs, field.Invalid(tp.Child("metadata").Child("labels"), labels, "`selector` does not match template `labels`"))
		}
		add(&errs, Labels(labels, tp.Child("labels"))...)
	}
	tspec := spec.obj("template").obj("spec")
	if policy := tspec.str("restartPolicy"); policy != "Always" {
		add(&errs, field.NotSupported(tp.Child("spec").Child("restartPolicy"), policy, []string{"Always"}))
	}
	if tspec.has("activeDeadlineSeconds") {
		add(&errs, field.Forbidden(tp.Child("spec").Child("activeDeadlineSeconds"), "activeDeadlineSeconds in StatefulSet is not Supported"))
	}
	return errs
}

// StatefulSetUpdate checks an update of a StatefulSet: its spec again, and
// no change but to the fields kube lets change.
func StatefulSetUpdate(s, old object.Object) field.ErrorList {
	errs := StatefulSet(s)
	spec, oldSpec := maps.Clone(fields(s).obj("spec")), maps.Clone(fields(old).obj("spec"))
	for _, f := range []string{"replicas", "template", "updateStrategy", "minReadySeconds", "ordinals", "persistentVolumeClaimRetentionPolicy"} {
		delete(spec, f)
		delete(oldSpec, f)
	}
	if !object.Equal(map[string]any(spec), map[string]any(oldSpec)) {
		add(&errs, field.Forbidden(field.NewPath("spec"), "updates to statefulset spec for fields other than 'replicas', 'ordinals', "+
			"'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"))
	}
	return errs
}

// selectorErrors is ValidateLabelSelector.
func selectorErrors(sel fields, p *field.Path) field.ErrorList {
	errs := Labels(sel.strMap("matchLabels"), p.Child("matchLabels"))
	for i, expr := range sel.list("matchExpressions") {
		ep := p.Child("matchExpressions").Index(i)
		switch op := expr.str("operator"); op {
		case "In", "NotIn":
			if len(expr.strs("values")) == 0 {
				add(&errs, field.Required(ep.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case "Exists", "DoesNotExist":
			if len(expr.strs("values")) > 0 {
				add(&errs, field.Forbidden(ep.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			add(&errs, field.Invalid(ep.Child("operator"), op, "not a valid selector operator"))
		}
		addInvalid(&errs, ep.Child("key"), expr.str("key"), QualifiedName(expr.str("key")))
		for j, v := range expr.strs("values") {
			addInvalid(&errs, ep.Child("values").Index(j), v, LabelValue(v))
		}
	}
	return errs
}

// selectorEmpty: the selector selects everything (an empty one; no selector
// at all selects nothing).
func selectorEmpty(sel fields) bool {
	return sel != nil && len(sel.strMap("matchLabels"))+len(sel.list("matchExpressions")) == 0
}

// selectorMatches says whether labels match sel; no selector matches nothing.
func selectorMatches(sel fields, labels map[string]string) bool {
	if sel == nil {
		return false
	}
	for k, v := range sel.strMap("matchLabels") {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, expr := range sel.list("matchExpressions") {
		v, has := labels[expr.str("key")]
		in := has && slices.Contains(expr.strs("values"), v)
		switch expr.str("operator") {
		case "In":
			if !in {
				return false
			}
		case "NotIn":
			if in {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		}
	}
	return true
}

// deploymentStrategy is ValidateDeploymentStrategy.
func deploymentStrategy(strategy fields, p *field.Path) field.ErrorList {
	switch strategy.str("type") {
	case "Recreate":
		if strategy.has("rollingUpdate") {
			return field.ErrorList{field.Forbidden(p.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case "RollingUpdate":
		rolling := strategy.obj("rollingUpdate")
		if rolling == nil {
			return field.ErrorList{field.Required(p.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		return rollingUpdate(rolling, p.Child("rollingUpdate"))
	default:
		return field.ErrorList{field.NotSupported(p, strategyValue(strategy), []string{"Recreate", "RollingUpdate"})}
	}
	return nil
}

// rollingUpdate is ValidateRollingUpdateDeployment.
func rollingUpdate(rolling fields, p *field.Path) field.ErrorList {
	unavailable, surge := intOrString(rolling["maxUnavailable"]), intOrString(rolling["maxSurge"])
	errs := unavailable.check(p.Child("maxUnavailable"))
	add(&errs, surge.check(p.Child("maxSurge"))...)
	if unavailable.value() == 0 && surge.value() == 0 {
		add(&errs, field.Invalid(p.Child("maxUnavailable"), unavailable, "may not be 0 when `maxSurge` is 0"))
	}
	if percent, ok := unavailable.percent(); ok && percent > 100 {
		add(&errs, field.Invalid(p.Child("maxUnavailable"), unavailable, "must not be greater than 100%"))
	}
	return errs
}

// intOrStr is an int-or-string value, shown as kube shows an
// intstr.IntOrString.
type intOrStr struct {
	isStr bool
	i     int64
	s     string
}

func intOrString(v any) intOrStr {
	if s, ok := v.(string); ok {
		return intOrStr{isStr: true, s: s}
	}
	i, _ := toInt(v)
	return intOrStr{i: i}
}

func (v intOrStr) String() string {
	typ := 0
	if v.isStr {
		typ = 1
	}
	return fmt.Sprintf("intstr.IntOrString{Type:%d, IntVal:%d, StrVal:%q}", typ, v.i, v.s)
}

// check is ValidatePositiveIntOrPercent.
func (v intOrStr) check(p *field.Path) field.ErrorList {
	if !v.isStr {
		return nonNegative(v.i, p)
	}
	var errs field.ErrorList
	addInvalid(&errs, p, v, percent(v.s))
	return errs
}

// percent is the number of a valid percentage.
func (v intOrStr) percent() (int64, bool) {
	if !v.isStr || len(percent(v.s)) > 0 {
		return 0, false
	}
	n, _ := strconv.ParseInt(strings.TrimSuffix(v.s, "%"), 10, 64)
	return n, true
}

// value is getIntOrPercentValue: a string that is no percentage counts as
// its number, or zero.
func (v intOrStr) value() int64 {
	if n, ok := v.percent(); ok {
		return n
	}
	if v.isStr {
		n, _ := strconv.Atoi(v.s)
		return int64(n)
	}
	return v.i
}

// labelSelector is a selector shown as kube shows a *metav1.LabelSelector.
type labelSelector fields

func (sel labelSelector) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "v1.LabelSelector{MatchLabels:%#v, MatchExpressions:", fields(sel).strMap("matchLabels"))
	if !fields(sel).has("matchExpressions") {
		b.WriteString("[]v1.LabelSelectorRequirement(nil)}")
		return b.String()
	}
	b.WriteString("[]v1.LabelSelectorRequirement{")
	for i, expr := range fields(sel).list("matchExpressions") {
		if i > 0 {
			b.WriteString(", ")
		}
		values := "[]string(nil)"
		if vs := expr.strs("values"); vs != nil {
			values = fmt.Sprintf("%#v", vs)
		}
		fmt.Fprintf(&b, "v1.LabelSelectorRequirement{Key:%q, Operator:%q, Values:%s}", expr.str("key"), expr.str("operator"), values)
	}
	b.WriteString("}}")
	return b.String()
}

// strategyValue is a strategy shown as kube shows an apps.DeploymentStrategy
// (where kube prints the address of a rolling update it has, this shows a
// made-up one).
type strategyValue fields

func (strategy strategyValue) String() string {
	rolling := "(*apps.RollingUpdateDeployment)(nil)"
	if fields(strategy).has("rollingUpdate") {
		rolling = "(*apps.RollingUpdateDeployment)(0xc000010000)"
	}
	return fmt.Sprintf("apps.DeploymentStrategy{Type:%q, RollingUpdate:%s}", fields(strategy).str("type"), rolling)
}
