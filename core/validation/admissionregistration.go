package validation

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// The rules of admissionregistration.k8s.io/v1's kinds
// (ValidatingWebhookConfiguration, MutatingWebhookConfiguration,
// ValidatingAdmissionPolicy and its binding), as k8s.io/kubernetes's
// pkg/apis/admissionregistration/validation judges them (the metadata
// aside, which every kind's is), with kube's field paths and messages in
// kube's order. A policy's and a webhook's CEL expressions are gathered in
// one list and judged in one place, Expressions.

// ExpressionKind is what an expression is for: each kind compiles in its
// own environment and is checked for its own form.
type ExpressionKind int

// The kinds of expressions.
const (
	MatchConditionExpression  ExpressionKind = iota // a webhook's or a policy's matchConditions[].expression
	VariableExpression                              // a policy's variables[].expression
	ValidationExpression                            // a policy's validations[].expression
	MessageExpression                               // a policy's validations[].messageExpression
	AuditAnnotationExpression                       // a policy's auditAnnotations[].valueExpression
)

// Expression is one CEL expression of an object, where it is and what for.
type Expression struct {
	Kind ExpressionKind
	Path *field.Path
	Text string
	// Variable is the name a VariableExpression's value goes by.
	Variable string
	// HasParams: the expression may read params (its policy has a
	// paramKind; for match conditions, a policy's, never a webhook's).
	HasParams bool
	// Stored: the object replaced had the same expression, in the same
	// place (kube then compiles it in the stored expressions' environment).
	Stored bool
}

// maxAuditAnnotationValueExpressionLength is the longest valueExpression
// an audit annotation may have (trimmed), 5 KiB.
const maxAuditAnnotationValueExpressionLength = 5 * 1024

// Expressions judges an object's expressions, in the order given (a
// policy's variables before what may use them), and returns each one's
// errors, to be reported where kube reports them: today kube's checks of
// their form (an expression is required, a message expression may not be
// blank, a value expression is at most 5 KiB). Compiling each expression in
// its environment belongs here.
func Expressions(list []Expression) []field.ErrorList {
	out := make([]field.ErrorList, len(list))
	for i, e := range list {
		trimmed := strings.TrimSpace(e.Text)
		switch e.Kind {
		case MatchConditionExpression:
			if trimmed == "" {
				out[i] = field.ErrorList{field.Required(e.Path, "")}
			}
		case VariableExpression, ValidationExpression:
			if trimmed == "" {
				out[i] = field.ErrorList{field.Required(e.Path, "expression is not specified")}
			}
		case MessageExpression:
			if e.Text != "" && trimmed == "" {
				out[i] = field.ErrorList{field.Invalid(e.Path, e.Text, "must be non-empty if specified")}
			}
		case AuditAnnotationExpression:
			switch {
			case trimmed == "":
				out[i] = field.ErrorList{field.Required(e.Path, "valueExpression is not specified")}
			case len(trimmed) > maxAuditAnnotationValueExpressionLength:
				out[i] = field.ErrorList{field.Required(e.Path, fmt.Sprintf("must not exceed %d bytes in length", maxAuditAnnotationValueExpressionLength))}
			}
		}
	}
	return out
}

// webhookOptions are what kube's validation relaxes on an update for what
// the configuration replaced already had.
type webhookOptions struct {
	ignoreMatchConditions, requireNoSideEffects, requireRecognizedVersion, requireUniqueNames bool
	// stored are the match condition expressions the replaced
	// configuration had.
	stored map[string]bool
}

var newWebhookOptions = webhookOptions{requireNoSideEffects: true, requireRecognizedVersion: true, requireUniqueNames: true}

// ValidatingWebhookConfiguration is ValidateValidatingWebhookConfiguration.
func ValidatingWebhookConfiguration(c object.Object) field.ErrorList {
	return webhookConfiguration(c, false, newWebhookOptions)
}

// MutatingWebhookConfiguration is ValidateMutatingWebhookConfiguration.
func MutatingWebhookConfiguration(c object.Object) field.ErrorList {
	return webhookConfiguration(c, true, newWebhookOptions)
}

// ValidatingWebhookConfigurationUpdate is
// ValidateValidatingWebhookConfigurationUpdate.
func ValidatingWebhookConfigurationUpdate(c, old object.Object) field.ErrorList {
	return webhookConfiguration(c, false, updateWebhookOptions(c, old))
}

// MutatingWebhookConfigurationUpdate is
// ValidateMutatingWebhookConfigurationUpdate.
func MutatingWebhookConfigurationUpdate(c, old object.Object) field.ErrorList {
	return webhookConfiguration(c, true, updateWebhookOptions(c, old))
}

// updateWebhookOptions: an update need not meet what the old webhooks did
// not (side effects None or NoneOnDryRun, a recognized review version,
// unique names), and match conditions unchanged are not judged again.
func updateWebhookOptions(c, old object.Object) webhookOptions {
	hooks, oldHooks := fields(c).list("webhooks"), fields(old).list("webhooks")
	o := webhookOptions{ignoreMatchConditions: len(hooks) == len(oldHooks), requireNoSideEffects: true, requireRecognizedVersion: true, requireUniqueNames: true, stored: map[string]bool{}}
	names := map[string]bool{}
	for i, h := range oldHooks {
		if o.ignoreMatchConditions && !object.Equal(hooks[i]["matchConditions"], h["matchConditions"]) {
			o.ignoreMatchConditions = false
		}
		if se := h.str("sideEffects"); se != "None" && se != "NoneOnDryRun" {
			o.requireNoSideEffects = false
		}
		if versions := h.strs("admissionReviewVersions"); len(versions) > 0 && !slices.ContainsFunc(versions, acceptedReviewVersion) {
			o.requireRecognizedVersion = false
		}
		if names[h.str("name")] {
			o.requireUniqueNames = false
		}
		names[h.str("name")] = true
		for _, mc := range h.list("matchConditions") {
			o.stored[mc.str("expression")] = true
		}
	}
	return o
}

// acceptedReviewVersions are the AdmissionReview versions kube's previous
// release understands.
var acceptedReviewVersions = []string{"v1", "v1beta1"}

func acceptedReviewVersion(v string) bool { return slices.Contains(acceptedReviewVersions, v) }

func webhookConfiguration(c object.Object, mutating bool, o webhookOptions) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, hook := range fields(c).list("webhooks") {
		p := field.NewPath("webhooks").Index(i)
		add(&errs, webhookRules(hook, mutating, o, p)...)
		add(&errs, admissionReviewVersions(hook.strs("admissionReviewVersions"), o.requireRecognizedVersion, p.Child("admissionReviewVersions"))...)
		if name := hook.str("name"); o.requireUniqueNames && name != "" {
			if names[name] {
				add(&errs, field.Duplicate(p.Child("name"), name))
			}
			names[name] = true
		}
	}
	return errs
}

// webhookRules is validateValidatingWebhook and validateMutatingWebhook.
func webhookRules(hook fields, mutating bool, o webhookOptions, p *field.Path) field.ErrorList {
	errs := fullyQualifiedName(hook.str("name"), p.Child("name"))
	for i, rule := range hook.list("rules") {
		add(&errs, ruleWithOperations(rule, p.Child("rules").Index(i))...)
	}
	if hook.has("failurePolicy") {
		add(&errs, supported(hook.str("failurePolicy"), p.Child("failurePolicy"), "Fail", "Ignore")...)
	}
	if hook.has("matchPolicy") {
		add(&errs, supported(hook.str("matchPolicy"), p.Child("matchPolicy"), "Equivalent", "Exact")...)
	}
	allowed := []string{"None", "NoneOnDryRun", "Some", "Unknown"}
	if o.requireNoSideEffects {
		allowed = []string{"None", "NoneOnDryRun"}
	}
	if !hook.has("sideEffects") {
		add(&errs, field.Required(p.Child("sideEffects"), "must specify one of "+strings.Join(allowed, ", ")))
	} else {
		add(&errs, supported(hook.str("sideEffects"), p.Child("sideEffects"), allowed...)...)
	}
	if t := hook.num("timeoutSeconds"); hook.has("timeoutSeconds") && (t > 30 || t < 1) {
		add(&errs, field.Invalid(p.Child("timeoutSeconds"), t, "the timeout value must be between 1 and 30 seconds"))
	}
	if hook.has("namespaceSelector") {
		add(&errs, selectorErrors(hook.obj("namespaceSelector"), p.Child("namespaceSelector"))...)
	}
	if hook.has("objectSelector") {
		add(&errs, selectorErrors(hook.obj("objectSelector"), p.Child("objectSelector"))...)
	}
	if mutating && hook.has("reinvocationPolicy") {
		add(&errs, supported(hook.str("reinvocationPolicy"), p.Child("reinvocationPolicy"), "IfNeeded", "Never")...)
	}
	cc, cp := hook.obj("clientConfig"), p.Child("clientConfig")
	switch {
	case cc.has("url") == cc.has("service"):
		add(&errs, field.Required(cp, "exactly one of url or service is required"))
	case cc.has("url"):
		add(&errs, WebhookURL(cc.str("url"), cp.Child("url"))...)
	default:
		add(&errs, webhookService(cc.obj("service"), cp.Child("service"))...)
	}
	if !o.ignoreMatchConditions {
		add(&errs, matchConditions(hook.list("matchConditions"), false, o.stored, p.Child("matchConditions"))...)
	}
	return errs
}

// fullyQualifiedName is IsFullyQualifiedName: a DNS subdomain of at least
// three segments.
func fullyQualifiedName(name string, p *field.Path) field.ErrorList {
	switch {
	case name == "":
		return field.ErrorList{field.Required(p, "")}
	case len(DNS1123Subdomain(name)) > 0:
		return field.ErrorList{field.Invalid(p, name, strings.Join(DNS1123Subdomain(name), ","))}
	case strings.Count(name, ".") < 2:
		return field.ErrorList{field.Invalid(p, name, "should be a domain with at least three segments separated by dots")}
	}
	return nil
}

// admissionReviewVersions is validateAdmissionReviewVersions.
func admissionReviewVersions(versions []string, requireRecognized bool, p *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, "must specify one of "+strings.Join(acceptedReviewVersions, ", "))}
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, v := range versions {
		if seen[v] {
			add(&errs, field.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		addInvalid(&errs, p.Index(i), v, DNS1035Label(v))
	}
	if requireRecognized && !slices.ContainsFunc(versions, acceptedReviewVersion) {
		add(&errs, field.Invalid(p, versions, "must include at least one of "+strings.Join(acceptedReviewVersions, ", ")))
	}
	return errs
}

// ruleWithOperations is validateRuleWithOperations.
func ruleWithOperations(rule fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	ops := rule.strs("operations")
	if len(ops) == 0 {
		add(&errs, field.Required(p.Child("operations"), ""))
	}
	if len(ops) > 1 && slices.Contains(ops, "*") {
		add(&errs, field.Invalid(p.Child("operations"), namedStrings("[]admissionregistration.OperationType", ops), "if '*' is present, must not specify other operations"))
	}
	for i, op := range ops {
		add(&errs, supported(op, p.Child("operations").Index(i), "*", "CONNECT", "CREATE", "DELETE", "UPDATE")...)
	}
	groups, versions := rule.strs("apiGroups"), rule.strs("apiVersions")
	if len(groups) == 0 {
		add(&errs, field.Required(p.Child("apiGroups"), ""))
	}
	if len(groups) > 1 && slices.Contains(groups, "*") {
		add(&errs, field.Invalid(p.Child("apiGroups"), groups, "if '*' is present, must not specify other API groups"))
	}
	if len(versions) == 0 {
		add(&errs, field.Required(p.Child("apiVersions"), ""))
	}
	if len(versions) > 1 && slices.Contains(versions, "*") {
		add(&errs, field.Invalid(p.Child("apiVersions"), versions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range versions {
		if v == "" {
			add(&errs, field.Required(p.Child("apiVersions").Index(i), ""))
		}
	}
	add(&errs, ruleResources(rule.strs("resources"), p.Child("resources"))...)
	if rule.has("scope") {
		add(&errs, supported(rule.str("scope"), p.Child("scope"), "*", "Cluster", "Namespaced")...)
	}
	return errs
}

// ruleResources is validateResources: resources and subresources, with
// wildcards that may not overlap.
func ruleResources(resources []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		add(&errs, field.Required(p, ""))
	}
	anySub := map[string]bool{} // x/*
	anyRes := map[string]bool{} // */x
	double, single, plain := false, false, false
	for i, r := range resources {
		if r == "" {
			add(&errs, field.Required(p.Index(i), ""))
			continue
		}
		double = double || r == "*/*"
		single = single || r == "*"
		res, sub, ok := strings.Cut(r, "/")
		if !ok {
			plain = r != "*"
			continue
		}
		if anySub[res] {
			add(&errs, field.Invalid(p.Index(i), r, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, r)))
		}
		if anyRes[sub] {
			add(&errs, field.Invalid(p.Index(i), r, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, r)))
		}
		if sub == "*" {
			anySub[res] = true
		}
		if res == "*" {
			anyRes[sub] = true
		}
	}
	if len(resources) > 1 && double {
		add(&errs, field.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if single && plain {
		add(&errs, field.Invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// namedStrings is a list of a named string type as kube's messages print
// it (%#v).
func namedStrings(typ string, list []string) field.GoSyntax {
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = strconv.Quote(s)
	}
	return field.GoSyntax(typ + "{" + strings.Join(quoted, ", ") + "}")
}

// WebhookURL is k8s.io/apiserver's ValidateWebhookURL with https required:
// a URL with a host, no user, fragment nor query.
func WebhookURL(raw string, p *field.Path) field.ErrorList {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Required(p, "url must be a valid URL: "+err.Error()+form)}
	}
	var errs field.ErrorList
	if u.Scheme != "https" {
		add(&errs, field.Invalid(p, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		add(&errs, field.Invalid(p, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		add(&errs, field.Invalid(p, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		add(&errs, field.Invalid(p, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		add(&errs, field.Invalid(p, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// webhookService is ValidateWebhookService as kube's webhooks call it:
// with the service's name and namespace swapped (kube's own slip), so a
// missing name is reported as a missing namespace and the other way round.
func webhookService(svc fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if svc.str("namespace") == "" {
		add(&errs, field.Required(p.Child("name"), "service name is required"))
	}
	if svc.str("name") == "" {
		add(&errs, field.Required(p.Child("namespace"), "service namespace is required"))
	}
	if port := svc.num("port"); port < 1 || port > 65535 {
		add(&errs, field.Invalid(p.Child("port"), port, "port is not valid: "+strings.Join(PortNumber(port), ", ")))
	}
	if !svc.has("path") {
		return errs
	}
	path := svc.str("path")
	switch {
	case path == "/" || path == "":
		return errs
	case path == "//":
		return append(errs, field.Invalid(p.Child("path"), path, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(path, "/") {
		add(&errs, field.Invalid(p.Child("path"), path, "must start with a '/'"))
	}
	check := strings.TrimSuffix(path[1:], "/")
	for i, step := range strings.Split(check, "/") {
		if step == "" {
			add(&errs, field.Invalid(p.Child("path"), path, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range DNS1123Subdomain(step) {
			add(&errs, field.Invalid(p.Child("path"), path, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return errs
}

// matchConditions is validateMatchConditions: at most 64, each named (a
// qualified name, once) with an expression.
func matchConditions(list []fields, hasParams bool, stored map[string]bool, p *field.Path) field.ErrorList {
	var exprs []Expression
	for i, mc := range list {
		text := strings.TrimSpace(mc.str("expression"))
		exprs = append(exprs, Expression{Kind: MatchConditionExpression, Path: p.Index(i).Child("expression"), Text: text, HasParams: hasParams, Stored: stored[mc.str("expression")]})
	}
	exprErrs := Expressions(exprs)
	var errs field.ErrorList
	if len(list) > 64 {
		add(&errs, field.TooMany(p, len(list), 64))
	}
	names := map[string]bool{}
	for i, mc := range list {
		add(&errs, exprErrs[i]...)
		name, np := mc.str("name"), p.Index(i).Child("name")
		if name == "" {
			add(&errs, field.Required(np, ""))
		} else {
			addInvalid(&errs, np, name, QualifiedName(name))
		}
		if name != "" {
			if names[name] {
				add(&errs, field.Duplicate(np, name))
			}
			names[name] = true
		}
	}
	return errs
}

// ValidatingAdmissionPolicy is ValidateValidatingAdmissionPolicy.
func ValidatingAdmissionPolicy(vap object.Object) field.ErrorList {
	return admissionPolicy(vap, nil)
}

// ValidatingAdmissionPolicyUpdate is ValidateValidatingAdmissionPolicyUpdate
// for a write of the policy, ValidateValidatingAdmissionPolicyStatusUpdate
// for one of its status.
func ValidatingAdmissionPolicyUpdate(vap, old object.Object, sub string) field.ErrorList {
	if sub == "status" {
		return admissionPolicyStatus(fields(vap).obj("status"), field.NewPath("status"))
	}
	return admissionPolicy(vap, old)
}

// admissionPolicy judges a policy's spec; old, on an update, is the policy
// replaced: its expressions are stored ones, and its match conditions,
// with the same paramKind, are not judged again.
func admissionPolicy(vap, old object.Object) field.ErrorList {
	spec, p := fields(vap).obj("spec"), field.NewPath("spec")
	oldSpec := fields(old).obj("spec")
	stored := func(kind ExpressionKind, text string) bool {
		return old != nil && oldSpec != nil && policyHas(oldSpec, kind, text)
	}
	hasParams := spec.has("paramKind")

	// The expressions, variables first, as kube compiles them.
	var exprs []Expression
	for i, v := range spec.list("variables") {
		exprs = append(exprs, Expression{Kind: VariableExpression, Path: p.Child("variables").Index(i).Child("expression"), Text: v.str("expression"), Variable: v.str("name"), HasParams: hasParams, Stored: stored(ValidationExpression, v.str("expression"))})
	}
	for i, v := range spec.list("validations") {
		vp := p.Child("validations").Index(i)
		exprs = append(exprs, Expression{Kind: ValidationExpression, Path: vp.Child("expression"), Text: v.str("expression"), HasParams: hasParams, Stored: stored(ValidationExpression, v.str("expression"))})
		exprs = append(exprs, Expression{Kind: MessageExpression, Path: vp.Child("messageExpression"), Text: v.str("messageExpression"), HasParams: hasParams, Stored: stored(MessageExpression, v.str("messageExpression"))})
	}
	for i, a := range spec.list("auditAnnotations") {
		exprs = append(exprs, Expression{Kind: AuditAnnotationExpression, Path: p.Child("auditAnnotations").Index(i).Child("valueExpression"), Text: a.str("valueExpression"), HasParams: hasParams, Stored: stored(AuditAnnotationExpression, a.str("valueExpression"))})
	}
	exprErrs := Expressions(exprs)
	next := func() field.ErrorList { e := exprErrs[0]; exprErrs = exprErrs[1:]; return e }

	var errs field.ErrorList
	if !spec.has("failurePolicy") {
		add(&errs, field.Required(p.Child("failurePolicy"), ""))
	} else {
		add(&errs, supported(spec.str("failurePolicy"), p.Child("failurePolicy"), "Fail", "Ignore")...)
	}
	if spec.has("paramKind") {
		add(&errs, paramKind(spec.obj("paramKind"), p.Child("paramKind"))...)
	}
	if !spec.has("matchConstraints") {
		add(&errs, field.Required(p.Child("matchConstraints"), ""))
	} else {
		mc := spec.obj("matchConstraints")
		add(&errs, matchResources(mc, p.Child("matchConstraints"))...)
		if len(mc.list("resourceRules")) == 0 {
			add(&errs, field.Required(p.Child("matchConstraints").Child("resourceRules"), ""))
		}
	}
	ignoreConditions := old != nil && object.Equal(spec["paramKind"], oldSpec["paramKind"]) && object.Equal(spec["matchConditions"], oldSpec["matchConditions"])
	if !ignoreConditions {
		oldConditions := map[string]bool{}
		for _, mc := range oldSpec.list("matchConditions") {
			oldConditions[mc.str("expression")] = true
		}
		add(&errs, matchConditions(spec.list("matchConditions"), hasParams, oldConditions, p.Child("matchConditions"))...)
	}
	for i, v := range spec.list("variables") {
		vp := p.Child("variables").Index(i)
		switch name := v.str("name"); {
		case strings.TrimSpace(name) == "":
			add(&errs, field.Required(vp.Child("name"), "name is not specified"))
		case !celIdentifier(name):
			add(&errs, field.Invalid(vp.Child("name"), name, "name is not a valid CEL identifier"))
		}
		add(&errs, next()...)
	}
	validations, annotations := spec.list("validations"), spec.list("auditAnnotations")
	if len(validations) == 0 && len(annotations) == 0 {
		add(&errs, field.Required(p.Child("validations"), "validations or auditAnnotations must contain at least one item"),
			field.Required(p.Child("auditAnnotations"), "validations or auditAnnotations must contain at least one item"))
		return errs
	}
	for i, v := range validations {
		vp := p.Child("validations").Index(i)
		add(&errs, next()...)
		add(&errs, next()...)
		msg := v.str("message")
		trimmed := strings.TrimSpace(msg)
		switch {
		case msg != "" && trimmed == "":
			add(&errs, field.Invalid(vp.Child("message"), msg, "message must be non-empty if specified"))
		case strings.ContainsAny(trimmed, "\n\r"):
			add(&errs, field.Invalid(vp.Child("message"), msg, "message must not contain line breaks"))
		}
		if v.has("reason") {
			add(&errs, supported(v.str("reason"), vp.Child("reason"), "Forbidden", "Invalid", "RequestEntityTooLarge")...)
		}
	}
	if len(annotations) > 20 {
		add(&errs, field.Invalid(p.Child("auditAnnotations"), auditAnnotationsGoSyntax(annotations), "must not have more than 20 auditAnnotations"))
	}
	keys := map[string]bool{}
	name := fields(vap).obj("metadata").str("name")
	for i, a := range annotations {
		ap := p.Child("auditAnnotations").Index(i)
		key := a.str("key")
		if name != "" {
			addInvalid(&errs, ap.Child("key"), name+"/"+key, QualifiedName(name+"/"+key))
		} else {
			add(&errs, field.Invalid(ap.Child("key"), key, "requires metadata.name be non-empty"))
		}
		add(&errs, next()...)
		if keys[key] {
			add(&errs, field.Duplicate(ap.Child("key"), key))
		}
		keys[key] = true
	}
	return errs
}

// policyHas says whether a policy's spec has text as an expression of kind
// (a variable's expression counts as a validation's, as in kube).
func policyHas(spec fields, kind ExpressionKind, text string) bool {
	switch kind {
	case ValidationExpression:
		for _, v := range spec.list("validations") {
			if v.str("expression") == text {
				return true
			}
		}
	case MessageExpression:
		for _, v := range spec.list("validations") {
			if m := v.str("messageExpression"); m != "" && m == text {
				return true
			}
		}
	case AuditAnnotationExpression:
		for _, a := range spec.list("auditAnnotations") {
			if a.str("valueExpression") == text {
				return true
			}
		}
	}
	return false
}

// auditAnnotationsGoSyntax is a policy's audit annotations as kube's message
// prints them (%#v of its internal type).
func auditAnnotationsGoSyntax(list []fields) field.GoSyntax {
	items := make([]string, len(list))
	for i, a := range list {
		items[i] = fmt.Sprintf("admissionregistration.AuditAnnotation{Key:%q, ValueExpression:%q}", a.str("key"), a.str("valueExpression"))
	}
	return field.GoSyntax("[]admissionregistration.AuditAnnotation{" + strings.Join(items, ", ") + "}")
}

// celIdentifier is isCELIdentifier: CEL's IDENT, no reserved word.
func celIdentifier(name string) bool {
	return celIdent.MatchString(name) && !slices.Contains(celReserved, name)
}

var (
	celIdent    = regexp.MustCompile("^[_a-zA-Z][_a-zA-Z0-9]*$")
	celReserved = []string{"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
		"import", "let", "loop", "package", "namespace", "return", "var", "void", "while"}
)

// paramKind is validateParamKind: an API version and a kind.
func paramKind(pk fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	av, ap := pk.str("apiVersion"), p.Child("apiVersion")
	switch {
	case av == "":
		add(&errs, field.Required(ap, ""))
	case strings.Count(av, "/") > 1:
		add(&errs, field.Invalid(ap, av, "unexpected GroupVersion string: "+av))
	default:
		group, version, ok := strings.Cut(av, "/")
		if !ok {
			group, version = "", av
		}
		if av == "/" {
			group, version = "", ""
		}
		if group != "" {
			if msgs := DNS1123Subdomain(group); len(msgs) > 0 {
				add(&errs, field.Invalid(ap, group, strings.Join(msgs, ",")))
			}
		}
		if version == "" {
			add(&errs, field.Invalid(ap, av, "version must be specified"))
		} else if msgs := DNS1035Label(version); len(msgs) > 0 {
			add(&errs, field.Invalid(ap, version, strings.Join(msgs, ",")))
		}
	}
	kind, kp := pk.str("kind"), p.Child("kind")
	if kind == "" {
		add(&errs, field.Required(kp, ""))
	} else if msgs := DNS1035Label(strings.ToLower(kind)); len(msgs) > 0 {
		add(&errs, field.Invalid(kp, kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// matchResources is validateMatchResources: a match policy, both selectors
// (strictly), and the rules.
func matchResources(mc fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if mc == nil {
		return nil
	}
	if !mc.has("matchPolicy") {
		add(&errs, field.Required(p.Child("matchPolicy"), ""))
	} else {
		add(&errs, supported(mc.str("matchPolicy"), p.Child("matchPolicy"), "Equivalent", "Exact")...)
	}
	for _, sel := range []string{"namespaceSelector", "objectSelector"} {
		if !mc.has(sel) {
			add(&errs, field.Required(p.Child(sel), ""))
		} else {
			add(&errs, selectorErrors(mc.obj(sel), p.Child(sel))...)
		}
	}
	for _, list := range []string{"resourceRules", "excludeResourceRules"} {
		for i, rule := range mc.list(list) {
			add(&errs, namedRule(rule, p.Child(list).Index(i))...)
		}
	}
	return errs
}

// namedRule is validateNamedRuleWithOperations: resource names that are
// path segments, once each, then the rule.
func namedRule(rule fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, name := range rule.strs("resourceNames") {
		np := p.Child("resourceNames").Index(i)
		addInvalid(&errs, np, name, PathSegmentName(name))
		if seen[name] {
			add(&errs, field.Duplicate(np, name))
		}
		seen[name] = true
	}
	return append(errs, ruleWithOperations(rule, p)...)
}

// admissionPolicyStatus is validateValidatingAdmissionPolicyStatus: the
// type checking's warnings (each with a warning and a field), and
// conditions.
func admissionPolicyStatus(status fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	wp := p.Child("typeChecking").Child("expressionWarnings")
	for i, w := range status.obj("typeChecking").list("expressionWarnings") {
		if w.str("warning") == "" {
			add(&errs, field.Required(wp.Index(i).Child("warning"), ""))
		}
		if strings.TrimSpace(w.str("fieldRef")) == "" {
			add(&errs, field.Required(wp.Index(i).Child("fieldRef"), ""))
		}
	}
	return append(errs, conditions(status.list("conditions"), p.Child("conditions"))...)
}

// ValidatingAdmissionPolicyBinding is ValidateValidatingAdmissionPolicyBinding
// (its updates are judged alike).
func ValidatingAdmissionPolicyBinding(b object.Object) field.ErrorList {
	spec, p := fields(b).obj("spec"), field.NewPath("spec")
	var errs field.ErrorList
	if name := spec.str("policyName"); name == "" {
		add(&errs, field.Required(p.Child("policyName"), ""))
	} else {
		addInvalid(&errs, p.Child("policyName"), name, DNS1123Subdomain(name))
	}
	if spec.has("paramRef") {
		add(&errs, paramRef(spec.obj("paramRef"), p.Child("paramRef"))...)
	}
	add(&errs, matchResources(spec.obj("matchResources"), p.Child("matchResources"))...)
	actions, ap := spec.strs("validationActions"), p.Child("validationActions")
	seen := map[string]bool{}
	for i, a := range actions {
		add(&errs, supported(a, ap.Index(i), "Audit", "Deny", "Warn")...)
		if seen[a] {
			add(&errs, field.Duplicate(ap.Index(i), a))
		}
		seen[a] = true
	}
	if seen["Deny"] && seen["Warn"] {
		add(&errs, field.Invalid(ap, namedStrings("[]admissionregistration.ValidationAction", actions), "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		add(&errs, field.Required(ap, "at least one validation action is required"))
	}
	return errs
}

// paramRef is validateParamRef: a name or a selector, and what to do when
// no parameter is found.
func paramRef(pr fields, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	name := pr.str("name")
	if name != "" {
		addInvalid(&errs, p.Child("name"), name, PathSegmentName(name))
		if pr.has("selector") {
			add(&errs, field.Forbidden(p.Child("name"), "name and selector are mutually exclusive"))
		}
	}
	if pr.has("selector") {
		add(&errs, selectorErrors(pr.obj("selector"), p.Child("selector"))...)
		if name != "" {
			add(&errs, field.Forbidden(p.Child("selector"), "name and selector are mutually exclusive"))
		}
	}
	if name == "" && !pr.has("selector") {
		add(&errs, field.Required(p, "one of name or selector must be specified"))
	}
	if action := pr.str("parameterNotFoundAction"); action == "" {
		add(&errs, field.Required(p.Child("parameterNotFoundAction"), ""))
	} else if action != "Deny" && action != "Allow" {
		add(&errs, field.NotSupported(p.Child("parameterNotFoundAction"), action, []string{"Deny", "Allow"}))
	}
	return errs
}

// supported is kube's check of an enumerated value that is set: one of
// valid (the empty string is as unsupported as any other).
func supported(v string, p *field.Path, valid ...string) field.ErrorList {
	if !slices.Contains(valid, v) {
		return field.ErrorList{field.NotSupported(p, v, valid)}
	}
	return nil
}
