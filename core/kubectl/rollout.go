package kubectl

// This file owns kubectl rollout status (Deployments, DaemonSets and
// StatefulSets: the object fetched, then listed and watched by name, each
// version's status line printed as kubectl's status viewers word it until
// the rollout is done), rollout history (a Deployment's ReplicaSets by
// revision, with their change causes) and rollout undo (a Deployment's pod
// template and annotations put back from a revision's ReplicaSet, as a
// JSON patch).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"
)

func init() {
	register("rollout status", func(fs *pflag.FlagSet) runFunc {
		var sel selection
		sel.files.add(fs, "Filename, directory, or URL to files identifying the resource to get from a server.")
		fs.StringVarP(&sel.selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
		watch := fs.BoolP("watch", "w", true, "Watch the status of the rollout until it's done.")
		timeout := fs.Duration("timeout", 0, "The length of time to wait before ending watch, zero means never. Any other values should contain a corresponding time unit (e.g. 1s, 2m, 3h).")
		return func(c *Cmd, args []string) error {
			if len(args) == 0 && len(sel.files.Filenames) == 0 {
				return errors.New("required resource not specified")
			}
			targets, errs, err := c.selectTargets(sel, args)
			if err != nil {
				return err
			}
			if len(errs) > 0 {
				return errs.reduce()
			}
			for _, t := range targets {
				if _, err := c.latest(t, acceptTypedAny); err != nil {
					return err
				}
				if err := c.rolloutStatus(t, *watch, *timeout); err != nil {
					return err
				}
			}
			if len(targets) == 0 {
				fmt.Fprintf(c.Stderr, "No resources found in %s namespace.\n", c.NamespaceOrDefault())
			}
			return nil
		}
	})
	register("rollout undo", func(fs *pflag.FlagSet) runFunc {
		var sel selection
		sel.files.add(fs, "Filename, directory, or URL to files identifying the resource to get from a server.")
		fs.StringVarP(&sel.selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
		toRevision := fs.Int64("to-revision", 0, "The revision to rollback to. Default to 0 (last revision).")
		output := addPrintFlags(fs, false)
		dry := addDryRun(fs)
		return func(c *Cmd, args []string) error {
			d, err := dry()
			if err != nil {
				return err
			}
			if d == dryRunClient {
				return errors.New("--dry-run=client is not supported by this kubectl's rollout undo")
			}
			if len(args) == 0 && len(sel.files.Filenames) == 0 {
				return errors.New("required resource not specified")
			}
			found, errs, err := c.fetchTargets(sel, args)
			if err != nil {
				return err
			}
			for _, t := range found {
				result, err := c.undoDeployment(t, *toRevision, d)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if err := c.printResult(output, t.Resource, t.Object, t.Name, result, d); err != nil {
					errs = append(errs, err)
				}
			}
			return errs.reduce()
		}
	})
	register("rollout history", func(fs *pflag.FlagSet) runFunc {
		var sel selection
		sel.files.add(fs, "Filename, directory, or URL to files identifying the resource to get from a server.")
		fs.StringVarP(&sel.selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
		revision := fs.Int64("revision", 0, "See the details, including podTemplate of the revision specified")
		return func(c *Cmd, args []string) error {
			if len(args) == 0 && len(sel.files.Filenames) == 0 {
				return errors.New("required resource not specified")
			}
			if *revision < 0 {
				return fmt.Errorf("revision must be a positive integer: %v", *revision)
			}
			found, errs, err := c.fetchTargets(sel, args)
			if err != nil {
				return err
			}
			for _, t := range found {
				history, err := c.deploymentHistory(t, *revision)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				with := ""
				if *revision > 0 {
					with = fmt.Sprintf("with revision #%d", *revision)
				}
				fmt.Fprintf(c.Stdout, "%s/%s %s\n%s\n", t.Resource.kindName(), t.Name, with, history)
			}
			return errs.reduce()
		}
	})
}

// rolloutStatus lists and watches one object by name and prints its
// status at each version until it is done (or once, without --watch).
func (c *Cmd) rolloutStatus(t *target, watch bool, timeout time.Duration) error {
	if timeout > 0 {
		parent := c.Ctx
		ctx, cancel := context.WithTimeout(parent, timeout)
		defer func() { cancel(); c.Ctx = parent }()
		c.Ctx = ctx
	}
	viewer, err := statusViewer(t.Resource)
	if err != nil {
		return err
	}
	accept := [][2]string{{"Accept", "application/json"}}
	field := "metadata.name=" + t.Name
	data, err := c.Do(&Request{Method: "GET", Path: t.Resource.Path(t.Namespace, ""), Header: accept,
		Query: url.Values{"fieldSelector": {field}, "limit": {"500"}, "resourceVersion": {"0"}}})
	if err != nil {
		return err
	}
	list, err := decodeObject(data)
	if err != nil {
		return err
	}
	meta, _ := list["metadata"].(map[string]any)
	rv, _ := meta["resourceVersion"].(string)
	// The reflector watches from the list as it hands the list's objects
	// to the condition.
	resp, err := c.Stream(&Request{Method: "GET", Path: t.Resource.Path(t.Namespace, ""), Header: accept,
		Query: url.Values{"allowWatchBookmarks": {"true"}, "fieldSelector": {field}, "resourceVersion": {rv},
			"timeoutSeconds": {strconv.Itoa(300 + rand.Intn(300))}, "watch": {"true"}}})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	show := func(obj map[string]any) (bool, error) {
		status, done, err := viewer(obj)
		if err != nil {
			return true, err
		}
		fmt.Fprint(c.Stdout, status)
		return done || !watch, nil
	}
	items, _ := list["items"].([]any)
	for _, it := range items {
		if obj, ok := it.(map[string]any); ok {
			if stop, err := show(obj); stop || err != nil {
				return err
			}
		}
	}
	d := json.NewDecoder(bufio.NewReader(resp.Body))
	for {
		var ev struct {
			Type   string         `json:"type"`
			Object map[string]any `json:"object"`
		}
		if err := d.Decode(&ev); err != nil {
			if errors.Is(c.Ctx.Err(), context.Canceled) {
				return c.Ctx.Err()
			}
			return errors.New("timed out waiting for the condition")
		}
		switch ev.Type {
		case "ADDED", "MODIFIED":
			data, _ := json.Marshal(ev.Object)
			obj, _ := decodeObject(data)
			if stop, err := show(obj); stop || err != nil {
				return err
			}
		case "DELETED":
			return errors.New("object has been deleted")
		}
	}
}

// statusViewer is kubectl's status viewer of a kind: the line to print for
// an object, and whether its rollout is done.
func statusViewer(r Resource) (func(obj map[string]any) (string, bool, error), error) {
	switch {
	case r.Group == "apps" && r.Kind == "Deployment":
		return deploymentStatus, nil
	case r.Group == "apps" && r.Kind == "DaemonSet":
		return daemonSetStatus, nil
	case r.Group == "apps" && r.Kind == "StatefulSet":
		return statefulSetStatus, nil
	}
	return nil, fmt.Errorf("no status viewer has been implemented for %s", strings.TrimSuffix(r.Kind+"."+r.Group, "."))
}

func deploymentStatus(d map[string]any) (string, bool, error) {
	name := str(d, "metadata", "name")
	if num(d, "metadata", "generation") > num(d, "status", "observedGeneration") {
		return "Waiting for deployment spec update to be observed...\n", false, nil
	}
	conds, _ := d["status"].(map[string]any)["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Progressing" && m["reason"] == "ProgressDeadlineExceeded" {
			return "", false, fmt.Errorf("deployment %q exceeded its progress deadline", name)
		}
	}
	replicas, updated := num(d, "spec", "replicas"), num(d, "status", "updatedReplicas")
	switch {
	case has(d, "spec", "replicas") && updated < replicas:
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d out of %d new replicas have been updated...\n", name, updated, replicas), false, nil
	case num(d, "status", "replicas") > updated:
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d old replicas are pending termination...\n", name, num(d, "status", "replicas")-updated), false, nil
	case num(d, "status", "availableReplicas") < updated:
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d of %d updated replicas are available...\n", name, num(d, "status", "availableReplicas"), updated), false, nil
	}
	return fmt.Sprintf("deployment %q successfully rolled out\n", name), true, nil
}

func daemonSetStatus(d map[string]any) (string, bool, error) {
	name := str(d, "metadata", "name")
	if str(d, "spec", "updateStrategy", "type") != "RollingUpdate" {
		return "", true, errors.New("rollout status is only available for RollingUpdate strategy type")
	}
	if num(d, "metadata", "generation") > num(d, "status", "observedGeneration") {
		return "Waiting for daemon set spec update to be observed...\n", false, nil
	}
	desired := num(d, "status", "desiredNumberScheduled")
	if updated := num(d, "status", "updatedNumberScheduled"); updated < desired {
		return fmt.Sprintf("Waiting for daemon set %q rollout to finish: %d out of %d new pods have been updated...\n", name, updated, desired), false, nil
	}
	if available := num(d, "status", "numberAvailable"); available < desired {
		return fmt.Sprintf("Waiting for daemon set %q rollout to finish: %d of %d updated pods are available...\n", name, available, desired), false, nil
	}
	return fmt.Sprintf("daemon set %q successfully rolled out\n", name), true, nil
}

func statefulSetStatus(s map[string]any) (string, bool, error) {
	if str(s, "spec", "updateStrategy", "type") != "RollingUpdate" {
		return "", true, errors.New("rollout status is only available for RollingUpdate strategy type")
	}
	observed := num(s, "status", "observedGeneration")
	if observed == 0 || num(s, "metadata", "generation") > observed {
		return "Waiting for statefulset spec update to be observed...\n", false, nil
	}
	replicas := num(s, "spec", "replicas")
	if ready := num(s, "status", "readyReplicas"); has(s, "spec", "replicas") && ready < replicas {
		return fmt.Sprintf("Waiting for %d pods to be ready...\n", replicas-ready), false, nil
	}
	updated := num(s, "status", "updatedReplicas")
	if has(s, "spec", "updateStrategy", "rollingUpdate") {
		if has(s, "spec", "replicas") && has(s, "spec", "updateStrategy", "rollingUpdate", "partition") {
			want := replicas - num(s, "spec", "updateStrategy", "rollingUpdate", "partition")
			if updated < want {
				return fmt.Sprintf("Waiting for partitioned roll out to finish: %d out of %d new pods have been updated...\n", updated, want), false, nil
			}
		}
		return fmt.Sprintf("partitioned roll out complete: %d new pods have been updated...\n", updated), true, nil
	}
	if update, current := str(s, "status", "updateRevision"), str(s, "status", "currentRevision"); update != current {
		return fmt.Sprintf("waiting for statefulset rolling update to complete %d pods at revision %s...\n", updated, update), false, nil
	}
	return fmt.Sprintf("statefulset rolling update complete %d pods at revision %s...\n", num(s, "status", "currentReplicas"), str(s, "status", "currentRevision")), true, nil
}

// deploymentHistory is a Deployment's revisions and their change causes,
// from the ReplicaSets it controls, as kubectl's history viewer tabulates
// them; with a revision, that revision's pod template as describe prints
// one.
func (c *Cmd) deploymentHistory(t *target, revision int64) (string, error) {
	if t.Resource.Group != "apps" || t.Resource.Kind != "Deployment" {
		return "", fmt.Errorf("error retrieving history for %q, no visitor method exists for {%s %s}", t.Resource.Kind, t.Resource.Group, t.Resource.Kind)
	}
	_, sets, err := c.deploymentReplicaSets(t)
	if err != nil {
		return "", err
	}
	causes := map[int64]string{}
	templates := map[int64]map[string]any{}
	for _, rs := range sets {
		annotations, _ := rs["metadata"].(map[string]any)["annotations"].(map[string]any)
		cause, _ := annotations["kubernetes.io/change-cause"].(string)
		causes[revisionOf(rs)] = cause
		tpl := obj(rs, "spec", "template")
		if cause != "" {
			if meta := obj(tpl, "metadata"); meta != nil {
				a, _ := meta["annotations"].(map[string]any)
				if a == nil {
					a = map[string]any{}
					meta["annotations"] = a
				}
				a["kubernetes.io/change-cause"] = cause
			}
		}
		templates[revisionOf(rs)] = tpl
	}
	if len(causes) == 0 {
		return "No rollout history found.", nil
	}
	if revision > 0 {
		tpl, ok := templates[revision]
		if !ok {
			return "", errors.New("unable to find the specified revision")
		}
		w := &describeWriter{}
		w.podTemplate(tpl)
		return w.String(), nil
	}
	revs := make([]int64, 0, len(causes))
	for r := range causes {
		revs = append(revs, r)
	}
	sort.Slice(revs, func(i, j int) bool { return revs[i] < revs[j] })
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
	fmt.Fprintf(w, "REVISION\tCHANGE-CAUSE\n")
	for _, r := range revs {
		cause := causes[r]
		if cause == "" {
			cause = "<none>"
		}
		fmt.Fprintf(w, "%d\t%s\n", r, cause)
	}
	w.Flush()
	return b.String(), nil
}

// revisionOf is a ReplicaSet's deployment revision (0 without the
// annotation); -1 when the annotation is not a number.
func revisionOf(rs map[string]any) int64 {
	annotations, _ := rs["metadata"].(map[string]any)["annotations"].(map[string]any)
	v, ok := annotations["deployment.kubernetes.io/revision"]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// deploymentReplicaSets is a Deployment as its typed client reads it and
// the ReplicaSets it controls whose revision reads, in the list's order
// (kubectl's GetAllReplicaSets).
func (c *Cmd) deploymentReplicaSets(t *target) (map[string]any, []map[string]any, error) {
	accept := [][2]string{{"Accept", "application/json"}}
	data, err := c.Do(&Request{Method: "GET", Path: t.Resource.Path(t.Namespace, t.Name), Header: accept})
	if err != nil {
		return nil, nil, fmt.Errorf("failed to retrieve deployment %s: %v", t.Name, err)
	}
	deploy, err := decodeObject(data)
	if err != nil {
		return nil, nil, err
	}
	rs := Resource{Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespaced: true}
	data, err = c.Do(&Request{Method: "GET", Path: rs.Path(t.Namespace, ""), Header: accept,
		Query: url.Values{"labelSelector": {selectorString(obj(deploy, "spec", "selector"))}}})
	if err != nil {
		return nil, nil, fmt.Errorf("failed to retrieve replica sets from deployment %s: %v", t.Name, err)
	}
	list, err := decodeObject(data)
	if err != nil {
		return nil, nil, err
	}
	uid := str(deploy, "metadata", "uid")
	var sets []map[string]any
	items, _ := list["items"].([]any)
	for _, it := range items {
		item, _ := it.(map[string]any)
		owners, _ := item["metadata"].(map[string]any)["ownerReferences"].([]any)
		for _, o := range owners {
			if om, _ := o.(map[string]any); om["controller"] == true && om["uid"] == uid && revisionOf(item) >= 0 {
				sets = append(sets, item)
				break
			}
		}
	}
	return deploy, sets, nil
}

// rollbackKeep are the annotations a rollback keeps from the Deployment
// rather than taking from the ReplicaSet.
var rollbackKeep = map[string]bool{
	lastApplied:                                 true,
	"deployment.kubernetes.io/revision":         true,
	"deployment.kubernetes.io/revision-history": true,
	"deployment.kubernetes.io/desired-replicas": true,
	"deployment.kubernetes.io/max-replicas":     true,
	"deprecated.deployment.rollback.to":         true,
}

// undoDeployment rolls a Deployment back to a revision (0: the one before
// the latest) and says what kubectl prints.
func (c *Cmd) undoDeployment(t *target, toRevision int64, d dryRun) (string, error) {
	if t.Resource.Group != "apps" || t.Resource.Kind != "Deployment" {
		return "", fmt.Errorf("error retrieving rollbacker for %q, no visitor method exists for {%s %s}", t.Resource.Kind, t.Resource.Group, t.Resource.Kind)
	}
	if toRevision < 0 {
		return "", fmt.Errorf("unable to find specified revision %v in history", toRevision)
	}
	deploy, sets, err := c.deploymentReplicaSets(t)
	if err != nil {
		return "", err
	}
	var latestRS map[string]any
	latest, previous := int64(-1), int64(-1)
	var previousRS map[string]any
	for _, rs := range sets {
		v := revisionOf(rs)
		switch {
		case toRevision == 0 && latest < v:
			previous, previousRS = latest, latestRS
			latest, latestRS = v, rs
		case toRevision == 0 && previous < v:
			previous, previousRS = v, rs
		case toRevision != 0 && toRevision == v:
			previousRS = rs
		}
	}
	switch {
	case toRevision > 0 && previousRS == nil:
		return "", fmt.Errorf("unable to find specified revision %v in history", toRevision)
	case previousRS == nil:
		return "", fmt.Errorf("no rollout history found for deployment %q", t.Name)
	}
	spec, _ := deploy["spec"].(map[string]any)
	if spec["paused"] == true {
		return "", errors.New("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again")
	}
	template, _ := previousRS["spec"].(map[string]any)["template"].(map[string]any)
	if meta, ok := template["metadata"].(map[string]any); ok {
		if labels, ok := meta["labels"].(map[string]any); ok {
			delete(labels, "pod-template-hash")
		}
	}
	if reflect.DeepEqual(template, spec["template"]) {
		return fmt.Sprintf("skipped rollback (current template already matches revision %d)", toRevision), nil
	}
	annotations := map[string]any{}
	deployAnnotations, _ := deploy["metadata"].(map[string]any)["annotations"].(map[string]any)
	for k := range rollbackKeep {
		if v, ok := deployAnnotations[k]; ok {
			annotations[k] = v
		}
	}
	rsAnnotations, _ := previousRS["metadata"].(map[string]any)["annotations"].(map[string]any)
	for k, v := range rsAnnotations {
		if !rollbackKeep[k] {
			annotations[k] = v
		}
	}
	patch, err := json.Marshal([]any{
		map[string]any{"op": "replace", "path": "/spec/template", "value": template},
		map[string]any{"op": "replace", "path": "/metadata/annotations", "value": annotations},
	})
	if err != nil {
		return "", err
	}
	q := url.Values{}
	if d == dryRunServer {
		q.Set("dryRun", "All")
	}
	if _, err := c.Do(&Request{Method: "PATCH", Path: t.Resource.Path(t.Namespace, t.Name), Query: q,
		Header: [][2]string{{"Accept", "application/json"}, {"Content-Type", "application/json-patch+json"}}, Body: patch}); err != nil {
		return "", fmt.Errorf("failed restoring revision %d: %v", toRevision, err)
	}
	return "rolled back", nil
}
