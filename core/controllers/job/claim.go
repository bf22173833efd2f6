package job

import (
	"context"
	"fmt"
	"slices"

	"kubeplay/core/client"
	"kubeplay/core/controllers"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// claim does what kube's ControllerRefManager does for a Job's Pods: it
// adopts the orphans of its namespace the Job's selector selects (once the
// API confirms the Job is still there and not being deleted), and releases
// the Pods it controls that its selector no longer selects. It says whether
// it changed any.
func (jc *Controller) claim(ctx context.Context, key string, j *job) (bool, error) {
	if j.Metadata.DeletionTimestamp != "" {
		return false, nil
	}
	changed, confirmed := false, false
	for _, p := range jc.pods.List() {
		if p.Metadata.Namespace != j.Metadata.Namespace {
			continue
		}
		selected := j.Spec.Selector.Selects(p.Metadata.Labels)
		var patch string
		switch owner := p.Metadata.Controller(); {
		case owner == j.Metadata.UID && !selected:
			patch = fmt.Sprintf(`{"metadata":{"ownerReferences":[{"$patch":"delete","uid":%q}],"uid":%q}}`, j.Metadata.UID, p.Metadata.UID)
		case owner == "" && selected && p.Metadata.DeletionTimestamp == "":
			if !confirmed {
				fresh, err := jc.C.Get(ctx, "/apis/batch/v1/namespaces/"+j.Metadata.Namespace+"/jobs/"+j.Metadata.Name)
				if client.IsNotFound(err) {
					return false, nil
				}
				if err != nil {
					return false, err
				}
				if object.MetaString(fresh, "uid") != j.Metadata.UID || object.MetaString(fresh, "deletionTimestamp") != "" {
					return false, nil
				}
				confirmed = true
			}
			ref := controllers.OwnerRef(&j.Metadata, "batch/v1", "Job")
			patch = fmt.Sprintf(`{"metadata":{"ownerReferences":[%s],"uid":%q}}`, controllers.MustJSON(ref), p.Metadata.UID)
		default:
			continue
		}
		data, err := jc.C.Do(ctx, web.MethodPatch, "/api/v1/namespaces/"+p.Metadata.Namespace+"/pods/"+p.Metadata.Name,
			"application/strategic-merge-patch+json", []byte(patch))
		if client.IsNotFound(err) {
			continue
		}
		if err != nil {
			return changed, err
		}
		jc.Expect.Written(key, jc.pods, controllers.Version(data))
		changed = true
	}
	return changed, nil
}

// matchPolicy judges a failed Pod by the Job's pod failure policy, as kube's
// matchPodFailurePolicy does: the first rule whose exit codes (of a
// terminated container) or Pod conditions match gives its action, and
// whether the failure counts towards the backoff limit; a FailJob rule says
// why it fails the Job.
func matchPolicy(policy *controllers.PodFailurePolicy, p *pod) (action, msg string, count bool) {
	if policy == nil {
		return "", "", true
	}
	for i, rule := range policy.Rules {
		var why string
		if r := rule.OnExitCodes; r != nil {
			for _, cs := range append(slices.Clone(p.Status.ContainerStatuses), p.Status.InitContainerStatuses...) {
				t := cs.State.Terminated
				if t == nil || t.ExitCode == 0 || r.ContainerName != nil && *r.ContainerName != cs.Name {
					continue
				}
				if slices.Contains(r.Values, t.ExitCode) == (r.Operator == "In") {
					why = fmt.Sprintf("Container %s for pod %s/%s failed with exit code %d matching %s rule at index %d",
						cs.Name, p.Metadata.Namespace, p.Metadata.Name, t.ExitCode, rule.Action, i)
					break
				}
			}
		} else {
			for _, c := range p.Status.Conditions {
				if slices.Contains(rule.OnPodConditions, controllers.PodConditionPattern{Type: c.Type, Status: c.Status}) {
					why = fmt.Sprintf("Pod %s/%s has condition %s matching %s rule at index %d", p.Metadata.Namespace, p.Metadata.Name, c.Type, rule.Action, i)
					break
				}
			}
		}
		if why == "" {
			continue
		}
		switch rule.Action {
		case "Ignore":
			return rule.Action, "", false
		case "FailJob":
			return rule.Action, why, true
		case "Count", "FailIndex":
			return rule.Action, "", true
		}
	}
	return "", "", true
}
