package kinds

import (
	"strconv"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/defaults"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// replicationController is v1 ReplicationController, ReplicaSet's elder:
// its selector is a plain label map, which defaults to its template's
// labels.
func replicationController() *api.Resource {
	return &api.Resource{
		Version: "v1", Kind: "ReplicationController", Plural: "replicationcontrollers", Singular: "replicationcontroller",
		Namespaced: true, ShortNames: []string{"rc"}, Categories: []string{"all"}, Verbs: allVerbs,
		Generation: true,
		Subs: []api.Subresource{
			{Name: "scale", Kind: "Scale", Group: "autoscaling", Verbs: statusVerbs},
			{Name: "status", Kind: "ReplicationController", Verbs: statusVerbs},
		},
		// labels.SelectorFromSet(spec.selector).String(): key=value pairs
		// sorted by key, "" for none.
		ScaleSelector: func(obj object.Object) string {
			s := table.Labels(rcSelector(obj))
			if s == "<none>" {
				return ""
			}
			return s
		},
		Fields: map[string]func(object.Object) string{
			"status.replicas": func(obj object.Object) string {
				return strconv.FormatInt(object.Int(object.Path(obj, "status", "replicas")), 10)
			},
		},
		Defaults: defaultReplicationController,
		Hooks: api.Hooks{
			LabelChecksOnUpdate: 4,
			Canonicalize:        convertTemplate,
			PrepareForCreate:    func(obj object.Object, _ time.Time) { obj["status"] = map[string]any{"replicas": 0} },
			Validate:            validateReplicationController,
			// kube's strategy checks the new spec twice, as a new object and
			// as an update (the selector may change), so each error is
			// listed twice among the causes; a write to the status or the
			// scale checks no spec.
			ValidateUpdate: specUpdate(func(obj, _ object.Object) field.ErrorList {
				return append(validateReplicationController(obj), validateReplicationController(obj)...)
			}),
			WarningsOnCreate: podNameWarning,
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Desired", Type: "integer", Description: "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"},
			{Name: "Current", Type: "integer", Description: "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller"},
			{Name: "Ready", Type: "integer", Description: "The number of ready replicas for this replication controller."},
			table.AgeColumn,
			table.ContainersColumn,
			table.ImagesColumn,
			{Name: "Selector", Type: "string", Priority: 1, Description: "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"},
		}, func(rc object.Object, now time.Time) []any {
			names, images := table.Containers(object.Path(rc, "spec", "template"))
			return []any{
				table.Name(rc), table.Int(rc, "spec", "replicas"), table.Int(rc, "status", "replicas"), table.Int(rc, "status", "readyReplicas"),
				table.Age(rc, now), names, images, table.Labels(rcSelector(rc)),
			}
		}),
	}
}

// defaultReplicationController is SetDefaults_ReplicationController: the
// template's labels (the very map, as in kube) are the selector of a
// controller without one, and its labels when it has none; one replica.
func defaultReplicationController(m map[string]any) {
	spec := object.Child(m, "spec")
	if labels, ok := object.Path(spec, "template", "metadata", "labels").(map[string]any); ok {
		if len(object.StringMap(spec, "selector")) == 0 {
			spec["selector"] = labels
		}
		if meta := object.Child(m, "metadata"); len(object.StringMap(meta, "labels")) == 0 {
			meta["labels"] = labels
		}
	}
	defaults.SetUnset(spec, "replicas", defaults.Number("1"))
}

// validateReplicationController is kube's ValidateReplicationControllerSpec:
// counts not negative, a selector, a template whose labels it matches, a
// valid pod template that restarts Always and sets no deadline.
func validateReplicationController(rc object.Object) field.ErrorList {
	spec, _ := rc["spec"].(map[string]any)
	p := field.NewPath("spec")
	errs := nonNegative(spec, "minReadySeconds", p, mustBeNonNegative)
	selector := object.StringMap(spec, "selector")
	if len(selector) == 0 {
		errs = append(errs, field.Required(p.Child("selector"), ""))
	}
	errs = append(errs, nonNegative(spec, "replicas", p, mustBeNonNegative)...)
	tp := p.Child("template")
	template, ok := spec["template"].(map[string]any)
	if !ok {
		return append(errs, field.Required(tp, ""))
	}
	meta, _ := template["metadata"].(map[string]any)
	labels := object.StringMap(meta, "labels")
	if len(selector) > 0 && !matchesLabels(selector, labels) {
		errs = append(errs, field.Invalid(tp.Child("metadata").Child("labels"), labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, validation.PodTemplate(template, tp)...)
	tspec, _ := template["spec"].(map[string]any)
	if policy, _ := tspec["restartPolicy"].(string); policy != "Always" {
		errs = append(errs, field.NotSupported(tp.Child("spec").Child("restartPolicy"), policy, []string{"Always"}))
	}
	if tspec["activeDeadlineSeconds"] != nil {
		errs = append(errs, field.Forbidden(tp.Child("spec").Child("activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicationController is not Supported"))
	}
	return errs
}

// rcSelector is a ReplicationController's spec.selector.
func rcSelector(rc object.Object) map[string]string {
	spec, _ := rc["spec"].(map[string]any)
	return object.StringMap(spec, "selector")
}

// matchesLabels says whether labels hold every pair of selector.
func matchesLabels(selector, labels map[string]string) bool {
	for k, v := range selector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
