package validation

import (
	"fmt"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// A Pod's ephemeral containers (kubectl debug's), as kube's validation has
// them: checked as containers, named apart from every other container, aimed
// at a container that exists, without what would make them part of the
// workload (ports, resources, probes, lifecycle, a restart policy, sub
// paths); added only through the ephemeralcontainers subresource, which
// neither removes nor changes one.

// ephemeralForbidden are the fields of EphemeralContainerCommon kube's allow
// list leaves out, in the order of the type's fields.
var ephemeralForbidden = []string{"ports", "resources", "resizePolicy", "restartPolicy", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle"}

// notForEphemeral is kube's word on them.
const notForEphemeral = "cannot be set for an Ephemeral Container"

// ephemeralContainers is validateEphemeralContainers.
func ephemeralContainers(list, regular, init []fields, vols map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	others, all := map[string]bool{}, map[string]bool{}
	for _, c := range append(append([]fields(nil), regular...), init...) {
		others[c.str("name")], all[c.str("name")] = true, true
	}
	for i, c := range list {
		idx := p.Index(i)
		add(&errs, containerCommon(c, vols, idx)...)
		if image := c.str("image"); len(image) != len(strings.TrimSpace(image)) {
			add(&errs, field.Invalid(idx.Child("image"), image, "must not have leading or trailing whitespace"))
		}
		if name := c.str("name"); all[name] {
			add(&errs, field.Duplicate(idx.Child("name"), name))
		} else {
			all[name] = true
		}
		if target := c.str("targetContainerName"); target != "" && !others[target] {
			add(&errs, field.NotFound(idx.Child("targetContainerName"), target))
		}
		for _, f := range ephemeralForbidden {
			if isSet(c, f) {
				add(&errs, field.Forbidden(idx.Child(f), notForEphemeral))
			}
		}
		for j, m := range c.list("volumeMounts") {
			for _, f := range []string{"subPath", "subPathExpr"} {
				if m.str(f) != "" {
					add(&errs, field.Forbidden(idx.Child("volumeMounts").Index(j).Child(f), notForEphemeral))
				}
			}
		}
	}
	return errs
}

// isSet says whether a container's field is not its Go type's zero value:
// present, and for resources, with any of its members present.
func isSet(c fields, name string) bool {
	if name == "resources" {
		res := c.obj("resources")
		return res.has("limits") || res.has("requests") || res.has("claims")
	}
	return c.has(name)
}

// PodEphemeralContainersUpdate checks a write to a Pod's ephemeralcontainers
// subresource (ValidatePodEphemeralContainersUpdate): the Pod is checked
// again, its ephemeral containers included; a static Pod's mirror takes
// none; and those it had are neither removed nor changed. kube's message
// for a change goes on with a diff of its internal types, which is not
// reproduced here.
func PodEphemeralContainersUpdate(pod, old object.Object) field.ErrorList {
	errs := podMetadataAndSpec(pod, fields(pod).obj("spec"))
	if annotation(old, mirrorPodAnnotation) != nil {
		// kube's path is field.NewPath(""), which it writes as "[]".
		return field.ErrorList{field.Forbidden(field.NewPath("").Key(""), "static pods do not support ephemeral containers")}
	}
	p := field.NewPath("spec", "ephemeralContainers")
	now := map[string]fields{}
	for _, c := range fields(pod).obj("spec").list("ephemeralContainers") {
		now[c.str("name")] = c
	}
	for _, o := range fields(old).obj("spec").list("ephemeralContainers") {
		name := o.str("name")
		switch c, ok := now[name]; {
		case !ok:
			add(&errs, field.Forbidden(p, fmt.Sprintf("existing ephemeral containers %q may not be removed\n", name)))
		case !semanticEqual(map[string]any(o), map[string]any(c)):
			add(&errs, field.Forbidden(p, fmt.Sprintf("existing ephemeral containers %q may not be changed", name)))
		}
	}
	return errs
}
