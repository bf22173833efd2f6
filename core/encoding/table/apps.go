package table

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/validation"
)

var deploymentPrinter = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Ready", Type: "string", Description: descDeploymentReady},
		{Name: "Up-to-date", Type: "string", Description: descDeploymentUpToDate},
		{Name: "Available", Type: "string", Description: descDeploymentAvailable},
		ageColumn,
		{Name: "Containers", Type: "string", Priority: 1, Description: descContainers},
		{Name: "Images", Type: "string", Priority: 1, Description: descImages},
		{Name: "Selector", Type: "string", Priority: 1, Description: descDeploymentSelector},
	},
	cells: func(d object.Object, now time.Time) []any {
		names, images := containerCells(d)
		selector, ok := labelSelector(object.Path(d, "spec", "selector"))
		if !ok {
			selector = "<invalid>"
		}
		return []any{
			name(d),
			strconv.FormatInt(intAt(d, "status", "readyReplicas"), 10) + "/" + strconv.FormatInt(replicas(d), 10),
			intAt(d, "status", "updatedReplicas"), intAt(d, "status", "availableReplicas"),
			created(d, now), names, images, selector,
		}
	},
}

var replicaSetPrinter = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Desired", Type: "integer", Description: descRSDesired},
		{Name: "Current", Type: "integer", Description: descRSCurrent},
		{Name: "Ready", Type: "integer", Description: descRSReady},
		ageColumn,
		{Name: "Containers", Type: "string", Priority: 1, Description: descContainers},
		{Name: "Images", Type: "string", Priority: 1, Description: descImages},
		{Name: "Selector", Type: "string", Priority: 1, Description: descRSSelector},
	},
	cells: func(rs object.Object, now time.Time) []any {
		names, images := containerCells(rs)
		// metav1.FormatLabelSelector
		selector, ok := labelSelector(object.Path(rs, "spec", "selector"))
		switch {
		case !ok:
			selector = "<error>"
		case selector == "":
			selector = "<none>"
		}
		return []any{
			name(rs), replicas(rs), intAt(rs, "status", "replicas"), intAt(rs, "status", "readyReplicas"),
			created(rs, now), names, images, selector,
		}
	},
}

// replicas is spec.replicas, which SetDefaults_Deployment and
// SetDefaults_ReplicaSet set to 1 when absent.
func replicas(obj object.Object) int64 {
	if object.Path(obj, "spec", "replicas") == nil {
		return 1
	}
	return intAt(obj, "spec", "replicas")
}

// containerCells joins the pod template's container names and images.
func containerCells(obj object.Object) (names, images string) {
	cs := listAt(obj, "spec", "template", "spec", "containers")
	n, i := make([]string, len(cs)), make([]string, len(cs))
	for k, c := range cs {
		n[k], i[k] = strAt(c, "name"), strAt(c, "image")
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

// labelSelector prints a metav1.LabelSelector as
// LabelSelectorAsSelector(sel).String() does: requirements sorted by key
// (matchLabels before expressions on the same key), values of in/notin sorted.
// A missing or empty selector prints as "". ok is false where kube's conversion
// fails: an unknown operator, a bad key or value, values where none belong.
func labelSelector(v any) (s string, ok bool) {
	sel, _ := v.(map[string]any)
	type req struct{ key, text string }
	var reqs []req
	for k, x := range mapAt(sel, "matchLabels") {
		val, _ := x.(string)
		if !validLabelKey(k) || len(validation.LabelValue(val)) > 0 {
			return "", false
		}
		reqs = append(reqs, req{k, k + "=" + val})
	}
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].key < reqs[j].key })
	for _, e := range listAt(sel, "matchExpressions") {
		key, op, values := strAt(e, "key"), strAt(e, "operator"), stringList(object.Path(e, "values"))
		if !validLabelKey(key) {
			return "", false
		}
		for _, val := range values {
			if len(validation.LabelValue(val)) > 0 {
				return "", false
			}
		}
		var text string
		switch op {
		case "In", "NotIn":
			if len(values) == 0 {
				return "", false
			}
			sorted := append([]string(nil), values...)
			sort.Strings(sorted)
			text = key + " " + strings.ToLower(op) + " (" + strings.Join(sorted, ",") + ")"
		case "Exists", "DoesNotExist":
			if len(values) != 0 {
				return "", false
			}
			text = key
			if op == "DoesNotExist" {
				text = "!" + key
			}
		default:
			return "", false
		}
		reqs = append(reqs, req{key, text})
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].key < reqs[j].key })
	parts := make([]string, len(reqs))
	for i, r := range reqs {
		parts[i] = r.text
	}
	return strings.Join(parts, ","), true
}

func validLabelKey(k string) bool { return len(validation.QualifiedName(k)) == 0 }

// formatLabels is labels.FormatLabels: key=value pairs sorted as strings, or <none>.
func formatLabels(m map[string]string) string {
	pairs := make([]string, 0, len(m))
	for k, v := range m {
		pairs = append(pairs, k+"="+v)
	}
	sort.Strings(pairs)
	return orNone(strings.Join(pairs, ","))
}
