package flowcontrol

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"kubeplay/core/client"
	"kubeplay/core/object"
	"kubeplay/core/web"
)

// The FlowSchemas' status, as kube's configuration consumer writes it: each
// one's Dangling condition says whether the priority level it names exists.

// fieldManagerConsumer is how kube's configuration consumer names itself in
// managedFields.
const fieldManagerConsumer = "api-priority-and-fairness-config-consumer-v1"

// statusUpdate is a FlowSchema whose Dangling condition must change.
type statusUpdate struct {
	obj       object.Object
	condition map[string]any
}

// danglingUpdate is the Dangling condition fs must get, or nil when it has it.
func danglingUpdate(fs object.Object, plName string, dangling bool, now time.Time) *statusUpdate {
	want := map[string]any{"type": "Dangling", "status": "False", "reason": "Found",
		"message": fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", plName)}
	if dangling {
		want["status"], want["reason"] = "True", "NotFound"
		want["message"] = fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", plName)
	}
	conds, _ := object.Path(fs, "status", "conditions").([]any)
	for _, cd := range conds {
		m, _ := cd.(map[string]any)
		if m["type"] == "Dangling" && m["status"] == want["status"] && m["reason"] == want["reason"] && m["message"] == want["message"] {
			return nil
		}
	}
	want["lastTransitionTime"] = now.UTC().Format(time.RFC3339)
	return &statusUpdate{obj: fs, condition: want}
}

// writeStatuses applies the Dangling conditions to the status subresource,
// forcing, as kube's configuration controller does (server-side apply of a
// FlowSchema holding only the condition), and says whether all were written.
func (c *Controller) writeStatuses(ctx context.Context, cl *client.Client, updates []statusUpdate) bool {
	ok := true
	for _, u := range updates {
		name := object.MetaString(u.obj, "name")
		body, err := json.Marshal(map[string]any{
			"kind": "FlowSchema", "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "metadata": map[string]any{"name": name},
			"status": map[string]any{"conditions": []any{u.condition}},
		})
		if err == nil {
			_, err = cl.Do(ctx, web.MethodPatch, flowSchemasPath+"/"+name+"/status?fieldManager="+fieldManagerConsumer+"&force=true",
				"application/apply-patch+yaml", body)
		}
		if err != nil && !client.IsNotFound(err) {
			ok = false
		}
	}
	return ok
}
