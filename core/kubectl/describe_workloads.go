package kubectl

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// This file owns describe's workloads: Deployment, ReplicaSet and Job.

func init() {
	describers["apps/Deployment"] = describeDeployment
	describers["apps/ReplicaSet"] = describeReplicaSet
	describers["batch/Job"] = describeJob
}

func describeDeployment(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	d, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, d, "Deployment")
	var oldRSs, newRSs []map[string]any
	selector := selectorString(obj(d, "spec", "selector"))
	q := url.Values{}
	if selector != "" {
		q.Set("labelSelector", selector)
	}
	if rss, err := c.listAll(Resource{Group: "apps", Version: "v1", Resource: "replicasets", Namespaced: true}.Path(namespace, ""), q, acceptTyped, o.chunkSize); err == nil {
		var owned []map[string]any
		for _, rs := range rss {
			if ref := controllerOf(rs); ref != nil && stringAt(ref, "uid") == stringAt(d, "metadata", "uid") {
				owned = append(owned, rs)
			}
		}
		sort.SliceStable(owned, func(i, j int) bool {
			a, _ := parseTime(stringAt(owned[i], "metadata", "creationTimestamp"))
			b, _ := parseTime(stringAt(owned[j], "metadata", "creationTimestamp"))
			if a.Equal(b) {
				return stringAt(owned[i], "metadata", "name") < stringAt(owned[j], "metadata", "name")
			}
			return a.Before(b)
		})
		var newRS map[string]any
		for _, rs := range owned {
			if equalIgnoreHash(obj(rs, "spec", "template"), obj(d, "spec", "template")) {
				newRS = rs
				break
			}
		}
		for _, rs := range owned {
			if newRS != nil && stringAt(rs, "metadata", "uid") == stringAt(newRS, "metadata", "uid") {
				continue
			}
			oldRSs = append(oldRSs, rs)
		}
		if newRS != nil {
			newRSs = append(newRSs, newRS)
		}
	}
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", stringAt(d, "metadata", "name"))
	w.write(0, "Namespace:\t%s\n", stringAt(d, "metadata", "namespace"))
	w.write(0, "CreationTimestamp:\t%s\n", rfc1123(stringAt(d, "metadata", "creationTimestamp")))
	w.labels("", "Labels", "\t", strMap(d, "metadata", "labels"))
	w.annotations("Annotations", strMap(d, "metadata", "annotations"))
	w.write(0, "Selector:\t%s\n", selector)
	st := obj(d, "status")
	w.write(0, "Replicas:\t%d desired | %d updated | %d total | %d available | %d unavailable\n", num(d, "spec", "replicas"),
		num(st, "updatedReplicas"), num(st, "replicas"), num(st, "availableReplicas"), num(st, "unavailableReplicas"))
	w.write(0, "StrategyType:\t%s\n", stringAt(d, "spec", "strategy", "type"))
	w.write(0, "MinReadySeconds:\t%d\n", num(d, "spec", "minReadySeconds"))
	if ru := obj(d, "spec", "strategy", "rollingUpdate"); ru != nil {
		w.write(0, "RollingUpdateStrategy:\t%s max unavailable, %s max surge\n", intOrString(ru, "maxUnavailable"), intOrString(ru, "maxSurge"))
	}
	w.podTemplate(obj(d, "spec", "template"))
	w.conditions(list(st, "conditions"))
	if len(oldRSs) > 0 || len(newRSs) > 0 {
		w.write(0, "OldReplicaSets:\t%s\n", replicaSetsCreated(oldRSs))
		w.write(0, "NewReplicaSet:\t%s\n", replicaSetsCreated(newRSs))
	}
	w.events(events)
	return w.String(), nil
}

// intOrString is an IntOrString field as its String prints it.
func intOrString(m map[string]any, key string) string {
	if !has(m, key) {
		return "<nil>"
	}
	return stringAt(m, key)
}

// conditions prints a workload's Type/Status/Reason conditions.
func (w *describeWriter) conditions(conds []any) {
	if len(conds) == 0 {
		return
	}
	w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
	w.write(1, "----\t------\t------\n")
	for _, c := range conds {
		w.write(1, "%v \t%v\t%v\n", stringAt(c, "type"), stringAt(c, "status"), stringAt(c, "reason"))
	}
}

// replicaSetsCreated is printReplicaSetsByLabels: "name (n/m replicas
// created)", joined, "<none>" when there are none.
func replicaSetsCreated(rss []map[string]any) string {
	var parts []string
	for _, rs := range rss {
		parts = append(parts, fmt.Sprintf("%s (%d/%d replicas created)", stringAt(rs, "metadata", "name"), num(rs, "status", "replicas"), num(rs, "spec", "replicas")))
	}
	if len(parts) == 0 {
		return "<none>"
	}
	return strings.Join(parts, ", ")
}

// equalIgnoreHash says whether two pod templates are the same but for the
// pod-template-hash label, empty and absent fields alike (kubectl's
// Semantic.DeepEqual).
func equalIgnoreHash(a, b map[string]any) bool {
	norm := func(t map[string]any) string {
		data, _ := json.Marshal(t)
		var c map[string]any
		json.Unmarshal(data, &c)
		if labels := obj(c, "metadata", "labels"); labels != nil {
			delete(labels, "pod-template-hash")
		}
		data, _ = json.Marshal(prune(c))
		return string(data)
	}
	return norm(a) == norm(b)
}

// prune drops empty maps and lists from v.
func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e = prune(e); e == nil {
				delete(x, k)
			} else {
				x[k] = e
			}
		}
		if len(x) == 0 {
			return nil
		}
	case []any:
		if len(x) == 0 {
			return nil
		}
		for i := range x {
			x[i] = prune(x[i])
		}
	}
	return v
}

func describeReplicaSet(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	rs, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	running, waiting, succeeded, failed, podErr := c.podStatusForController(o, namespace, selectorString(obj(rs, "spec", "selector")), stringAt(rs, "metadata", "uid"))
	events := c.objectEvents(o, rs, "ReplicaSet")
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", stringAt(rs, "metadata", "name"))
	w.write(0, "Namespace:\t%s\n", stringAt(rs, "metadata", "namespace"))
	w.write(0, "Selector:\t%s\n", formatLabelSelector(obj(rs, "spec", "selector")))
	w.labels("", "Labels", "\t", strMap(rs, "metadata", "labels"))
	w.annotations("Annotations", strMap(rs, "metadata", "annotations"))
	if ref := controllerOf(rs); ref != nil {
		w.write(0, "Controlled By:\t%s/%s\n", stringAt(ref, "kind"), stringAt(ref, "name"))
	}
	w.write(0, "Replicas:\t%d current / %d desired\n", num(rs, "status", "replicas"), num(rs, "spec", "replicas"))
	w.write(0, "Pods Status:\t")
	if podErr != nil {
		w.write(0, "error in fetching pods: %s\n", podErr)
	} else {
		w.write(0, "%d Running / %d Waiting / %d Succeeded / %d Failed\n", running, waiting, succeeded, failed)
	}
	w.podTemplate(obj(rs, "spec", "template"))
	w.conditions(list(rs, "status", "conditions"))
	w.events(events)
	return w.String(), nil
}

// podStatusForController counts by phase the pods a controller (uid) owns
// among those its selector matches.
func (c *Cmd) podStatusForController(o *describeOptions, namespace, selector, uid string) (running, waiting, succeeded, failed int, err error) {
	q := url.Values{}
	if selector != "" {
		q.Set("labelSelector", selector)
	}
	pods, err := c.listAll("/api/v1/namespaces/"+namespace+"/pods", q, acceptTyped, o.chunkSize)
	if err != nil {
		return
	}
	for _, p := range pods {
		if ref := controllerOf(p); ref == nil || stringAt(ref, "uid") != uid {
			continue
		}
		switch stringAt(p, "status", "phase") {
		case "Running":
			running++
		case "Pending":
			waiting++
		case "Succeeded":
			succeeded++
		case "Failed":
			failed++
		}
	}
	return
}

func describeJob(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	job, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, job, "Job")
	spec, st := obj(job, "spec"), obj(job, "status")
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", stringAt(job, "metadata", "name"))
	w.write(0, "Namespace:\t%s\n", stringAt(job, "metadata", "namespace"))
	w.write(0, "Selector:\t%s\n", selectorString(obj(spec, "selector")))
	w.labels("", "Labels", "\t", strMap(job, "metadata", "labels"))
	w.annotations("Annotations", strMap(job, "metadata", "annotations"))
	if ref := controllerOf(job); ref != nil {
		w.write(0, "Controlled By:\t%s/%s\n", stringAt(ref, "kind"), stringAt(ref, "name"))
	}
	if has(spec, "parallelism") {
		w.write(0, "Parallelism:\t%d\n", num(spec, "parallelism"))
	}
	if has(spec, "completions") {
		w.write(0, "Completions:\t%d\n", num(spec, "completions"))
	} else {
		w.write(0, "Completions:\t<unset>\n")
	}
	for _, f := range []struct{ key, title string }{{"completionMode", "Completion Mode"}, {"suspend", "Suspend"}, {"backoffLimit", "Backoff Limit"},
		{"ttlSecondsAfterFinished", "TTL Seconds After Finished"}} {
		if has(spec, f.key) {
			w.write(0, "%s:\t%v\n", f.title, stringAt(spec, f.key))
		}
	}
	if has(st, "startTime") {
		w.write(0, "Start Time:\t%s\n", rfc1123(stringAt(st, "startTime")))
	}
	if has(st, "completionTime") {
		w.write(0, "Completed At:\t%s\n", rfc1123(stringAt(st, "completionTime")))
	}
	start, ok1 := parseTime(stringAt(st, "startTime"))
	end, ok2 := parseTime(stringAt(st, "completionTime"))
	if ok1 && ok2 {
		w.write(0, "Duration:\t%s\n", humanDuration(end.Sub(start)))
	}
	if has(spec, "activeDeadlineSeconds") {
		w.write(0, "Active Deadline Seconds:\t%ds\n", num(spec, "activeDeadlineSeconds"))
	}
	if !has(st, "ready") {
		w.write(0, "Pods Statuses:\t%d Active / %d Succeeded / %d Failed\n", num(st, "active"), num(st, "succeeded"), num(st, "failed"))
	} else {
		w.write(0, "Pods Statuses:\t%d Active (%d Ready) / %d Succeeded / %d Failed\n", num(st, "active"), num(st, "ready"), num(st, "succeeded"), num(st, "failed"))
	}
	if stringAt(spec, "completionMode") == "Indexed" {
		w.write(0, "Completed Indexes:\t%s\n", capIndexes(stringAt(st, "completedIndexes"), 50))
	}
	w.podTemplate(obj(spec, "template"))
	w.events(events)
	return w.String(), nil
}

// capIndexes is a Job's completed indexes cut after softLimit characters at
// the next comma, "<none>" when empty.
func capIndexes(indexes string, softLimit int) string {
	if indexes == "" {
		return "<none>"
	}
	ix := softLimit
	for ; ix < len(indexes); ix++ {
		if indexes[ix] == ',' {
			break
		}
	}
	if ix >= len(indexes) {
		return indexes
	}
	return indexes[:ix+1] + "..."
}
