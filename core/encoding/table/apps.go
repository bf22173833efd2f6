package table

import (
	"sort"
	"strings"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/selector"
)

// Deployment prints Deployments as kube-apiserver does.
var Deployment = &Printer{
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
		names, images := containerCells(object.Path(d, "spec", "template"))
		selector, ok := labelSelector(object.Path(d, "spec", "selector"))
		if !ok {
			selector = "<invalid>"
		}
		return []any{
			name(d),
			ratio(intAt(d, "status", "readyReplicas"), replicas(d)),
			intAt(d, "status", "updatedReplicas"), intAt(d, "status", "availableReplicas"),
			created(d, now), names, images, selector,
		}
	},
}

// ReplicaSet prints ReplicaSets as kube-apiserver does.
var ReplicaSet = &Printer{
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
		return append([]any{name(rs), replicas(rs), intAt(rs, "status", "replicas"), intAt(rs, "status", "readyReplicas"), created(rs, now)},
			templateCells(object.Path(rs, "spec", "template"), object.Path(rs, "spec", "selector"))...)
	},
}

// replicas is spec.replicas, which SetDefaults_Deployment,
// SetDefaults_ReplicaSet and SetDefaults_StatefulSet set to 1 when absent.
func replicas(obj object.Object) int64 {
	if object.Path(obj, "spec", "replicas") == nil {
		return 1
	}
	return intAt(obj, "spec", "replicas")
}

// containerCells joins the container names and images of a pod template (a
// PodTemplateSpec).
func containerCells(template any) (names, images string) {
	cs := listAt(template, "spec", "containers")
	n, i := make([]string, len(cs)), make([]string, len(cs))
	for k, c := range cs {
		n[k], i[k] = strAt(c, "name"), strAt(c, "image")
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

// labelSelector prints a metav1.LabelSelector as kube does (see
// selector.FormatLabelSelector).
func labelSelector(v any) (string, bool) {
	sel, _ := v.(map[string]any)
	return selector.FormatLabelSelector(sel)
}

// formatLabels is labels.FormatLabels: key=value pairs sorted as strings, or <none>.
func formatLabels(m map[string]string) string {
	pairs := make([]string, 0, len(m))
	for k, v := range m {
		pairs = append(pairs, k+"="+v)
	}
	sort.Strings(pairs)
	return orNone(strings.Join(pairs, ","))
}
