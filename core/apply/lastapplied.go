package apply

import (
	"bytes"
	"encoding/json"

	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v4/merge"

	"kubeplay/core/api"
	"kubeplay/core/object"
)

// The upgrade from client-side apply (kubectl apply, which records what it
// applied in an annotation) to server-side apply, as kube's last-applied
// manager and updater do it: only for kubectl's own field manager.

// kubectlManager is the field manager `kubectl apply --server-side` uses unless
// told otherwise.
const kubectlManager = "kubectl"

// lastAppliedAnnotation is where client-side apply records its configuration.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// maxAnnotationsBytes is kube's limit on the total size of an object's
// annotations (keys and values).
const maxAnnotationsBytes = 256 << 10

// lastAppliedFields are the fields of live that its last-applied annotation
// sets to the values they still have: those client-side apply owns, which
// kubectl may take. ok is false when there is no usable annotation.
func lastAppliedFields(res *api.Resource, live object.Object) (_ *fieldpath.Set, ok bool) {
	annotations, _ := object.Meta(live)["annotations"].(map[string]any)
	doc, _ := annotations[lastAppliedAnnotation].(string)
	if doc == "" {
		return nil, false
	}
	liveTV, err := toTyped(res, live)
	if err != nil {
		return nil, false
	}
	last, err := object.Decode([]byte(doc))
	if err != nil || last["apiVersion"] != res.APIVersion() || last["kind"] != res.Kind {
		return nil, false
	}
	lastTV, err := toTyped(res, last)
	if err != nil {
		return nil, false
	}
	set, err := lastTV.ToFieldSet()
	if err != nil {
		return nil, false
	}
	cmp, err := lastTV.Compare(liveTV)
	if err != nil {
		return nil, false
	}
	return set.Difference(cmp.Modified).Difference(cmp.Added).Difference(cmp.Removed), true
}

// conflictsOutside are the conflicts on fields outside allowed.
func conflictsOutside(conflicts merge.Conflicts, allowed *fieldpath.Set) merge.Conflicts {
	var left merge.Conflicts
	for _, c := range conflicts {
		if !allowed.Has(c.Path) {
			left = append(left, c)
		}
	}
	return left
}

// updateLastApplied keeps obj's last-applied annotation, if it has one, in step
// with what kubectl applied: config without the annotation, as JSON. An
// annotation that would take the object's annotations past kube's limit is
// dropped.
func updateLastApplied(obj, config object.Object) {
	annotations, _ := object.Meta(obj)["annotations"].(map[string]any)
	if s, _ := annotations[lastAppliedAnnotation].(string); s == "" {
		return
	}
	last := object.DeepCopy(config)
	if meta, ok := last["metadata"].(map[string]any); ok {
		if a, ok := meta["annotations"].(map[string]any); ok {
			delete(a, lastAppliedAnnotation)
		}
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(last); err != nil {
		return
	}
	annotations[lastAppliedAnnotation] = buf.String()
	size := 0
	for k, v := range annotations {
		s, _ := v.(string)
		size += len(k) + len(s)
	}
	if size > maxAnnotationsBytes {
		delete(annotations, lastAppliedAnnotation)
	}
}
