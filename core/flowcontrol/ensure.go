package flowcontrol

import (
	"context"
	"strconv"

	"kubeplay/core/client"
	"kubeplay/core/flowcontrol/bootstrap"
	"kubeplay/core/object"
)

// fieldManagerProducer is how kube's ensurer of the bootstrap objects names
// itself in managedFields.
const fieldManagerProducer = "api-priority-and-fairness-config-producer-v1"

// ensure creates and maintains the bootstrap objects, as kube's
// priority-and-fairness-config-producer does: suggested objects are created
// when missing and their spec kept while kube-apiserver owns them (the
// apf.kubernetes.io/autoupdate-spec annotation, else metadata.generation 1);
// mandatory ones are always corrected; objects annotated as auto-updated that
// are no longer part of the configuration are deleted.
func (c *Controller) ensure(ctx context.Context, cl *client.Client, fsInf, plInf *client.Informer) {
	kinds := []struct {
		kind string
		path string
		inf  *client.Informer
	}{{bootstrap.PriorityLevelConfiguration, priorityLevelsPath, plInf}, {bootstrap.FlowSchema, flowSchemasPath, fsInf}}
	for _, mandatory := range []bool{false, true} {
		for _, k := range kinds {
			boots := bootstrap.Suggested(k.kind)
			if mandatory {
				boots = bootstrap.Mandatory(k.kind)
			}
			for _, b := range boots {
				ensureOne(ctx, cl, k.path, k.inf, b, mandatory)
			}
		}
	}
	for _, k := range kinds {
		wanted := map[string]bool{}
		for _, b := range append(bootstrap.Mandatory(k.kind), bootstrap.Suggested(k.kind)...) {
			wanted[object.MetaString(b, "name")] = true
		}
		for _, o := range k.inf.List() {
			name := object.MetaString(o, "name")
			v, ok := object.StringMap(object.Meta(o), "annotations")[bootstrap.AutoUpdateAnnotation]
			if auto, err := strconv.ParseBool(v); wanted[name] || !ok || err != nil || !auto {
				continue
			}
			_, _ = cl.Delete(ctx, k.path+"/"+name)
		}
	}
}

// ensureOne creates boot when missing, or revises the existing object's spec
// and annotation when kube-apiserver owns it.
func ensureOne(ctx context.Context, cl *client.Client, path string, inf *client.Informer, boot object.Object, mandatory bool) {
	name := object.MetaString(boot, "name")
	cur, ok := inf.Get(name)
	if !ok {
		if _, err := cl.Create(ctx, path+"?fieldManager="+fieldManagerProducer, boot); err == nil || !client.IsConflict(err) {
			return
		}
		if cur, ok = inf.Get(name); !ok {
			return // created meanwhile; seen on the next round
		}
	}
	annotations := object.StringMap(object.Meta(cur), "annotations")
	auto := mandatory
	if !auto {
		if b, err := strconv.ParseBool(annotations[bootstrap.AutoUpdateAnnotation]); err == nil {
			auto = b
		} else {
			auto = object.Int(object.Meta(cur)["generation"]) == 1
		}
	}
	current, err := strconv.ParseBool(annotations[bootstrap.AutoUpdateAnnotation])
	fixAnnotation := err != nil || current != auto
	fixSpec := auto && !object.Equal(boot["spec"], cur["spec"]) && !(name == bootstrap.Exempt && exemptSpecEqualish(boot, cur))
	if !fixAnnotation && !fixSpec {
		return
	}
	revised := object.DeepCopy(cur)
	if fixSpec {
		revised["spec"] = object.DeepCopy(boot)["spec"]
	}
	if fixAnnotation {
		meta := object.Meta(revised)
		anns, _ := meta["annotations"].(map[string]any)
		if anns == nil {
			anns = map[string]any{}
			meta["annotations"] = anns
		}
		anns[bootstrap.AutoUpdateAnnotation] = strconv.FormatBool(auto)
	}
	_, _ = cl.Update(ctx, path+"/"+name+"?fieldManager="+fieldManagerProducer, revised)
}

// exemptSpecEqualish: the exempt level's spec.exempt is the administrator's to
// set; only the rest must match.
func exemptSpecEqualish(boot, cur object.Object) bool {
	b, _ := object.DeepCopy(boot)["spec"].(map[string]any)
	c, _ := cur["spec"].(map[string]any)
	if c == nil || c["exempt"] == nil {
		return false
	}
	b["exempt"] = c["exempt"]
	return object.Equal(b, c)
}
