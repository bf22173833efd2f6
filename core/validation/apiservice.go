package validation

import (
	"encoding/base64"
	"fmt"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// APIService is kube-aggregator's ValidateAPIService (the metadata aside,
// but for its name, which must be the version and the group).
func APIService(a object.Object) field.ErrorList {
	var errs field.ErrorList
	spec := fields(a).obj("spec")
	group, version := spec.str("group"), spec.str("version")
	name := object.MetaString(a, "name")
	if want := version + "." + group; len(PathSegmentName(name)) == 0 && name != want {
		add(&errs, field.Invalid(field.NewPath("metadata", "name"), name, fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", want)))
	}
	p := field.NewPath("spec")
	if group == "" && version != "v1" {
		add(&errs, field.Required(p.Child("group"), "only v1 may have an empty group and it better be legacy kube"))
	}
	if group != "" {
		addInvalid(&errs, p.Child("group"), group, DNS1123Subdomain(group))
	}
	addInvalid(&errs, p.Child("version"), version, DNS1035Label(version))
	if n := spec.num("groupPriorityMinimum"); n <= 0 || n > 20000 {
		add(&errs, field.Invalid(p.Child("groupPriorityMinimum"), n, "must be positive and less than 20000"))
	}
	if n := spec.num("versionPriority"); n <= 0 || n > 1000 {
		add(&errs, field.Invalid(p.Child("versionPriority"), n, "must be positive and less than 1000"))
	}
	svc := spec.obj("service")
	if svc == nil {
		if ca := spec.str("caBundle"); ca != "" {
			n, _ := base64.StdEncoding.DecodeString(ca)
			add(&errs, field.Invalid(p.Child("caBundle"), fmt.Sprintf("%d bytes", len(n)), "local APIServices may not have a caBundle"))
		}
		if spec["insecureSkipTLSVerify"] == true {
			add(&errs, field.Invalid(p.Child("insecureSkipTLSVerify"), true, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return errs
	}
	sp := p.Child("service")
	if svc.str("namespace") == "" {
		add(&errs, field.Required(sp.Child("namespace"), ""))
	}
	if svc.str("name") == "" {
		add(&errs, field.Required(sp.Child("name"), ""))
	}
	if port, ok := toInt(svc["port"]); ok && (port < 1 || port > 65535) {
		add(&errs, field.Invalid(sp.Child("port"), port, "port is not valid: must be between 1 and 65535, inclusive"))
	}
	if spec["insecureSkipTLSVerify"] == true && spec.str("caBundle") != "" {
		add(&errs, field.Invalid(p.Child("insecureSkipTLSVerify"), true, "may not be true if caBundle is present"))
	}
	return errs
}
