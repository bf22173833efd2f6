package kubectl

import (
	"fmt"
	"net/url"
	"strings"
)

// This file owns describe's ServiceAccount, Role, ClusterRole,
// RoleBinding, ClusterRoleBinding, StatefulSet, DaemonSet, CronJob,
// ReplicationController and IngressClass.

func init() {
	describers["/ServiceAccount"] = describeServiceAccount
	describers["rbac.authorization.k8s.io/Role"] = describeRole
	describers["rbac.authorization.k8s.io/ClusterRole"] = describeRole
	describers["rbac.authorization.k8s.io/RoleBinding"] = describeRoleBinding
	describers["rbac.authorization.k8s.io/ClusterRoleBinding"] = describeRoleBinding
	describers["apps/StatefulSet"] = describeStatefulSet
	describers["apps/DaemonSet"] = describeDaemonSet
	describers["batch/CronJob"] = describeCronJob
	describers["/ReplicationController"] = describeReplicationController
	describers["networking.k8s.io/IngressClass"] = describeIngressClass
}

func describeServiceAccount(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	sa, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	var tokens []string
	missing := map[string]bool{}
	if secrets, err := c.listAll("/api/v1/namespaces/"+namespace+"/secrets", url.Values{}, acceptTyped, o.chunkSize); err == nil {
		existing := map[string]bool{}
		for _, s := range secrets {
			a := strMap(s, "metadata", "annotations")
			if stringAt(s, "type") == "kubernetes.io/service-account-token" && a["kubernetes.io/service-account.name"] == stringAt(sa, "metadata", "name") &&
				a["kubernetes.io/service-account.uid"] == stringAt(sa, "metadata", "uid") {
				tokens = append(tokens, stringAt(s, "metadata", "name"))
			}
			existing[stringAt(s, "metadata", "name")] = true
		}
		for _, s := range append(list(sa, "secrets"), list(sa, "imagePullSecrets")...) {
			if !existing[stringAt(s, "name")] {
				missing[stringAt(s, "name")] = true
			}
		}
	}
	events := c.objectEvents(o, sa, "ServiceAccount")
	w := newDescribeWriter()
	w.objectMeta(sa)
	names := func(key string) []string {
		var out []string
		for _, s := range list(sa, key) {
			out = append(out, stringAt(s, "name"))
		}
		return out
	}
	for _, part := range []struct {
		header string
		names  []string
	}{{"Image pull secrets:", names("imagePullSecrets")}, {"Mountable secrets: ", names("secrets")}, {"Tokens:            ", tokens}} {
		if len(part.names) == 0 {
			w.write(0, "%s\t<none>\n", part.header)
			continue
		}
		prefix := part.header
		for _, n := range part.names {
			if missing[n] {
				w.write(0, "%s\t%s (not found)\n", prefix, n)
			} else {
				w.write(0, "%s\t%s\n", prefix, n)
			}
			prefix = "                   "
		}
	}
	w.events(events)
	return w.String(), nil
}

func describeRole(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	role, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", stringAt(role, "metadata", "name"))
	w.labels("", "Labels", "\t", strMap(role, "metadata", "labels"))
	w.annotations("Annotations", strMap(role, "metadata", "annotations"))
	w.write(0, "PolicyRule:\n")
	w.write(1, "Resources\tNon-Resource URLs\tResource Names\tVerbs\n")
	w.write(1, "---------\t-----------------\t--------------\t-----\n")
	for _, rule := range compactRules(list(role, "rules")) {
		w.write(1, "%s\t%v\t%v\t%v\n", combineResourceGroup(rule.resources, rule.groups), rule.urls, rule.names, rule.verbs)
	}
	return w.String(), nil
}

func describeRoleBinding(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	b, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", stringAt(b, "metadata", "name"))
	w.labels("", "Labels", "\t", strMap(b, "metadata", "labels"))
	w.annotations("Annotations", strMap(b, "metadata", "annotations"))
	w.write(0, "Role:\n")
	w.write(1, "Kind:\t%s\n", stringAt(b, "roleRef", "kind"))
	w.write(1, "Name:\t%s\n", stringAt(b, "roleRef", "name"))
	w.write(0, "Subjects:\n")
	w.write(1, "Kind\tName\tNamespace\n")
	w.write(1, "----\t----\t---------\n")
	for _, s := range list(b, "subjects") {
		w.write(1, "%s\t%s\t%s\n", stringAt(s, "kind"), stringAt(s, "name"), stringAt(s, "namespace"))
	}
	return w.String(), nil
}

func describeStatefulSet(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	ss, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	selector := selectorString(obj(ss, "spec", "selector"))
	running, waiting, succeeded, failed, err := c.podStatusForController(o, namespace, selector, stringAt(ss, "metadata", "uid"))
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, ss, "StatefulSet")
	spec := obj(ss, "spec")
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", stringAt(ss, "metadata", "name"))
	w.write(0, "Namespace:\t%s\n", stringAt(ss, "metadata", "namespace"))
	w.write(0, "CreationTimestamp:\t%s\n", rfc1123(stringAt(ss, "metadata", "creationTimestamp")))
	w.write(0, "Selector:\t%s\n", selector)
	w.labels("", "Labels", "\t", strMap(ss, "metadata", "labels"))
	w.annotations("Annotations", strMap(ss, "metadata", "annotations"))
	w.write(0, "Replicas:\t%d desired | %d total\n", num(spec, "replicas"), num(ss, "status", "replicas"))
	w.write(0, "Update Strategy:\t%s\n", stringAt(spec, "updateStrategy", "type"))
	if ru := obj(spec, "updateStrategy", "rollingUpdate"); ru != nil && has(ru, "partition") {
		w.write(1, "Partition:\t%d\n", num(ru, "partition"))
		if has(ru, "maxUnavailable") {
			w.write(1, "MaxUnavailable:\t%s\n", stringAt(ru, "maxUnavailable"))
		}
	}
	w.write(0, "Pods Status:\t%d Running / %d Waiting / %d Succeeded / %d Failed\n", running, waiting, succeeded, failed)
	w.podTemplate(obj(spec, "template"))
	if templates := list(spec, "volumeClaimTemplates"); len(templates) == 0 {
		w.write(0, "Volume Claims:\t<none>\n")
	} else {
		w.write(0, "Volume Claims:\n")
		for _, pvc := range templates {
			w.write(1, "Name:\t%s\n", stringAt(pvc, "metadata", "name"))
			class := stringAt(pvc, "spec", "storageClassName")
			if a, ok := strMap(pvc, "metadata", "annotations")["volume.beta.kubernetes.io/storage-class"]; ok {
				class = a
			}
			w.write(1, "StorageClass:\t%s\n", class)
			w.labels("  ", "Labels", "\t", strMap(pvc, "metadata", "labels"))
			w.labels("  ", "Annotations", "\t", strMap(pvc, "metadata", "annotations"))
			if capacity := stringAt(pvc, "spec", "resources", "requests", "storage"); capacity != "" {
				w.write(1, "Capacity:\t%s\n", quantityString(capacity))
			} else {
				w.write(1, "Capacity:\t%s\n", "<default>")
			}
			w.write(1, "Access Modes:\t%s\n", fmt.Sprint(strs(pvc, "spec", "accessModes")))
		}
	}
	w.events(events)
	return w.String(), nil
}

func describeDaemonSet(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	ds, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	selector := selectorString(obj(ds, "spec", "selector"))
	running, waiting, succeeded, failed, err := c.podStatusForController(o, namespace, selector, stringAt(ds, "metadata", "uid"))
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, ds, "DaemonSet")
	st := obj(ds, "status")
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", stringAt(ds, "metadata", "name"))
	w.write(0, "Selector:\t%s\n", selector)
	w.write(0, "Node-Selector:\t%s\n", formatLabels(obj(ds, "spec", "template", "spec", "nodeSelector")))
	w.labels("", "Labels", "\t", strMap(ds, "metadata", "labels"))
	w.annotations("Annotations", strMap(ds, "metadata", "annotations"))
	w.write(0, "Desired Number of Nodes Scheduled: %d\n", num(st, "desiredNumberScheduled"))
	w.write(0, "Current Number of Nodes Scheduled: %d\n", num(st, "currentNumberScheduled"))
	w.write(0, "Number of Nodes Scheduled with Up-to-date Pods: %d\n", num(st, "updatedNumberScheduled"))
	w.write(0, "Number of Nodes Scheduled with Available Pods: %d\n", num(st, "numberAvailable"))
	w.write(0, "Number of Nodes Misscheduled: %d\n", num(st, "numberMisscheduled"))
	w.write(0, "Pods Status:\t%d Running / %d Waiting / %d Succeeded / %d Failed\n", running, waiting, succeeded, failed)
	w.podTemplate(obj(ds, "spec", "template"))
	w.events(events)
	return w.String(), nil
}

func describeCronJob(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	cj, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, cj, "CronJob")
	spec := obj(cj, "spec")
	w := newDescribeWriter()
	w.objectMeta(cj)
	w.write(0, "Schedule:\t%s\n", stringAt(spec, "schedule"))
	w.write(0, "Concurrency Policy:\t%s\n", stringAt(spec, "concurrencyPolicy"))
	suspend := "<unset>"
	if has(spec, "suspend") {
		suspend = "False"
		if boolean(spec, "suspend") {
			suspend = "True"
		}
	}
	w.write(0, "Suspend:\t%s\n", suspend)
	for _, f := range []struct{ key, title, unit string }{{"successfulJobsHistoryLimit", "Successful Job History Limit", ""},
		{"failedJobsHistoryLimit", "Failed Job History Limit", ""}, {"startingDeadlineSeconds", "Starting Deadline Seconds", "s"}} {
		if has(spec, f.key) {
			w.write(0, "%s:\t%d%s\n", f.title, num(spec, f.key), f.unit)
		} else {
			w.write(0, "%s:\t<unset>\n", f.title)
		}
	}
	jt := obj(spec, "jobTemplate", "spec")
	if sel := obj(jt, "selector"); sel != nil {
		w.write(0, "Selector:\t%s\n", selectorString(sel))
	} else {
		w.write(0, "Selector:\t<unset>\n")
	}
	for _, f := range []string{"parallelism", "completions"} {
		if has(jt, f) {
			w.write(0, "%s:\t%d\n", strings.ToUpper(f[:1])+f[1:], num(jt, f))
		} else {
			w.write(0, "%s:\t<unset>\n", strings.ToUpper(f[:1])+f[1:])
		}
	}
	if has(jt, "activeDeadlineSeconds") {
		w.write(0, "Active Deadline Seconds:\t%ds\n", num(jt, "activeDeadlineSeconds"))
	}
	w.podTemplate(obj(jt, "template"))
	if has(cj, "status", "lastScheduleTime") {
		w.write(0, "Last Schedule Time:\t%s\n", rfc1123(stringAt(cj, "status", "lastScheduleTime")))
	} else {
		w.write(0, "Last Schedule Time:\t<unset>\n")
	}
	w.write(0, "Active Jobs:\t")
	active := list(cj, "status", "active")
	if len(active) == 0 {
		w.line("<none>")
	} else {
		var names []string
		for _, j := range active {
			names = append(names, stringAt(j, "name"))
		}
		w.write(0, "%s", strings.Join(names, ", "))
		w.line("")
	}
	w.events(events)
	return w.String(), nil
}

func describeReplicationController(c *Cmd, o *describeOptions, r Resource, namespace, name string) (string, error) {
	rc, err := c.getTyped(r.Path(namespace, name))
	if err != nil {
		return "", err
	}
	selector := obj(rc, "spec", "selector")
	running, waiting, succeeded, failed, err := c.podStatusForController(o, namespace, selectorString(map[string]any{"matchLabels": selector}), stringAt(rc, "metadata", "uid"))
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, rc, "ReplicationController")
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", name)
	w.write(0, "Namespace:\t%s\n", namespace)
	w.write(0, "Selector:\t%s\n", formatLabels(selector))
	w.labels("", "Labels", "\t", strMap(rc, "metadata", "labels"))
	w.annotations("Annotations", strMap(rc, "metadata", "annotations"))
	w.write(0, "Replicas:\t%d current / %d desired\n", num(rc, "status", "replicas"), num(rc, "spec", "replicas"))
	w.write(0, "Pods Status:\t%d Running / %d Waiting / %d Succeeded / %d Failed\n", running, waiting, succeeded, failed)
	w.podTemplate(obj(rc, "spec", "template"))
	w.conditions(list(rc, "status", "conditions"))
	w.events(events)
	return w.String(), nil
}

func describeIngressClass(c *Cmd, o *describeOptions, r Resource, _, name string) (string, error) {
	ic, err := c.getTyped("/apis/networking.k8s.io/v1/ingressclasses/" + name)
	if err != nil {
		return "", err
	}
	events := c.objectEvents(o, ic, "IngressClass")
	w := newDescribeWriter()
	w.write(0, "Name:\t%s\n", name)
	w.labels("", "Labels", "\t", strMap(ic, "metadata", "labels"))
	w.annotations("Annotations", strMap(ic, "metadata", "annotations"))
	w.write(0, "Controller:\t%v\n", stringAt(ic, "spec", "controller"))
	if p := obj(ic, "spec", "parameters"); p != nil {
		w.write(0, "Parameters:\n")
		if has(p, "apiGroup") {
			w.write(1, "APIGroup:\t%v\n", stringAt(p, "apiGroup"))
		}
		w.write(1, "Kind:\t%v\n", stringAt(p, "kind"))
		w.write(1, "Name:\t%v\n", stringAt(p, "name"))
	}
	w.events(events)
	return w.String(), nil
}
