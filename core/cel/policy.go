package cel

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// PolicyRequest asks for a ValidatingAdmissionPolicy's verdict on a request
// its constraints and binding matched (the JSON of core/api's
// PolicyRequest).
type PolicyRequest struct {
	// Key names the policy as written (its uid and generation): its
	// compiled expressions are kept under it.
	Key    string         `json:"key"`
	Policy map[string]any `json:"policy"` // the policy's spec
	// What the expressions see: object, oldObject, params, namespaceObject
	// (nil when absent) and request.
	Object    map[string]any `json:"object,omitempty"`
	OldObject map[string]any `json:"oldObject,omitempty"`
	Params    map[string]any `json:"params,omitempty"`
	Namespace map[string]any `json:"namespaceObject,omitempty"`
	Request   map[string]any `json:"request"`
	// Authorize answers the authorizer library's checks; User and Groups
	// are who made the request (the authorizer variable's).
	Authorize Authorize `json:"-"`
	User      string    `json:"-"`
	Groups    []string  `json:"-"`
}

// PolicyDecision is one validation's verdict, or the error that made it
// none (kube's PolicyDecision); a policy whose match conditions left the
// request out has none.
type PolicyDecision struct {
	Deny    bool   `json:"deny,omitempty"`  // the validation failed
	Error   bool   `json:"error,omitempty"` // it could not be evaluated: the failure policy decides
	Message string `json:"message"`
	Reason  string `json:"reason,omitempty"`
}

// compiledPolicy is a policy's expressions compiled in kube's admission
// environment.
type compiledPolicy struct {
	variables   []policyExpr
	conditions  []policyExpr
	audits      []policyExpr
	validations []struct {
		check, message    policyExpr
		text, msg, reason string
	}
}

// policyExpr is one compiled expression, or why it did not compile.
type policyExpr struct {
	name, text string
	typ        *cel.Type
	program    cel.Program
	err        string
}

var policies struct {
	sync.Mutex
	byKey map[string]*compiledPolicy
}

// admissionDecls are kube's types of an admission request and of a
// namespace, as its policies' expressions see them (made on first use: the
// browser's CEL module, which evaluates no policy, carries none of them).
func admissionDecls() (request, namespace *declType) {
	admission.Do(func() { admission.request, admission.namespace = makeAdmissionDecls() })
	return admission.request, admission.namespace
}

var admission struct {
	sync.Once
	request, namespace *declType
}

func makeAdmissionDecls() (request, namespace *declType) {
	gvkDecl := objectDecl("kubernetes.GroupVersionKind", map[string]*declField{
		"group": {name: "group", typ: stringDecl}, "version": {name: "version", typ: stringDecl}, "kind": {name: "kind", typ: stringDecl}})
	gvrDecl := objectDecl("kubernetes.GroupVersionResource", map[string]*declField{
		"group": {name: "group", typ: stringDecl}, "version": {name: "version", typ: stringDecl}, "resource": {name: "resource", typ: stringDecl}})
	stringList := listDecl(stringDecl, -1)
	requestDecl := objectDecl("kubernetes.AdmissionRequest", map[string]*declField{
		"kind": {name: "kind", typ: gvkDecl}, "resource": {name: "resource", typ: gvrDecl}, "subResource": {name: "subResource", typ: stringDecl},
		"requestKind": {name: "requestKind", typ: gvkDecl}, "requestResource": {name: "requestResource", typ: gvrDecl},
		"requestSubResource": {name: "requestSubResource", typ: stringDecl}, "name": {name: "name", typ: stringDecl},
		"namespace": {name: "namespace", typ: stringDecl}, "operation": {name: "operation", typ: stringDecl},
		"userInfo": {name: "userInfo", typ: objectDecl("kubernetes.UserInfo", map[string]*declField{
			"username": {name: "username", typ: stringDecl}, "uid": {name: "uid", typ: stringDecl}, "groups": {name: "groups", typ: stringList},
			"extra": {name: "extra", typ: mapDecl(stringDecl, stringList, -1)}})},
		"dryRun": {name: "dryRun", typ: boolDecl}, "options": {name: "options", typ: &declType{name: "dyn", cel: cel.DynType}}})
	timestampDecl := simple("timestamp", cel.TimestampType, jsonDateSize)
	namespaceDecl := objectDecl("kubernetes.Namespace", map[string]*declField{
		"metadata": {name: "metadata", typ: objectDecl("kubernetes.NamespaceMetadata", map[string]*declField{
			"name": {name: "name", typ: stringDecl}, "generateName": {name: "generateName", typ: stringDecl}, "namespace": {name: "namespace", typ: stringDecl},
			"labels": {name: "labels", typ: mapDecl(stringDecl, stringDecl, -1)}, "annotations": {name: "annotations", typ: mapDecl(stringDecl, stringDecl, -1)},
			"UID": {name: "UID", typ: stringDecl}, "creationTimestamp": {name: "creationTimestamp", typ: timestampDecl},
			"deletionGracePeriodSeconds": {name: "deletionGracePeriodSeconds", typ: intDecl}, "deletionTimestamp": {name: "deletionTimestamp", typ: timestampDecl},
			"generation": {name: "generation", typ: intDecl}, "resourceVersion": {name: "resourceVersion", typ: stringDecl},
			"finalizers": {name: "finalizers", typ: stringList}})},
		"spec": {name: "spec", typ: objectDecl("kubernetes.NamespaceSpec", map[string]*declField{"finalizers": {name: "finalizers", typ: stringList}})},
		"status": {name: "status", typ: objectDecl("kubernetes.NamespaceStatus", map[string]*declField{
			"conditions": {name: "conditions", typ: listDecl(objectDecl("kubernetes.NamespaceCondition", map[string]*declField{
				"status": {name: "status", typ: stringDecl}, "type": {name: "type", typ: stringDecl}, "lastTransitionTime": {name: "lastTransitionTime", typ: timestampDecl},
				"message": {name: "message", typ: stringDecl}, "reason": {name: "reason", typ: stringDecl}}), -1)},
			"phase": {name: "phase", typ: stringDecl}})}})
	return requestDecl, namespaceDecl
}

// policyEnv is kube's environment of a policy's expressions: object,
// oldObject, request, namespaceObject, params (with a paramKind),
// authorizer (but in messages and audit annotations) and the variables
// declared before, each of its expression's type. object and oldObject are
// of type typed.object, params of typed.params, when known (the type
// checker's), else dyn.
func policyEnv(params, authorizer bool, variables map[string]*declField, typed ...*declType) (*cel.Env, error) {
	base, err := baseEnv(storedEnv)
	if err != nil {
		return nil, err
	}
	requestDecl, namespaceDecl := admissionDecls()
	vars := objectDecl("kubernetes.variables", variables)
	objects := vars.objects(requestDecl.objects(namespaceDecl.objects(map[string]*declType{})))
	objectType, paramsType := cel.DynType, cel.DynType
	if len(typed) == 2 {
		objectType, objects = typed[0].cel, typed[0].objects(objects)
		if typed[1] != nil {
			paramsType, objects = typed[1].cel, typed[1].objects(objects)
		}
	}
	opts := []cel.EnvOption{lib(authzLibrary()), cel.CustomTypeProvider(&provider{Provider: base.CELTypeProvider(), objects: objects}),
		cel.Variable("object", objectType), cel.Variable("oldObject", objectType), cel.Variable("request", requestDecl.cel),
		cel.Variable("namespaceObject", namespaceDecl.cel), cel.Variable("variables", vars.cel)}
	if params {
		opts = append(opts, cel.Variable("params", paramsType))
	}
	if authorizer {
		at := authzTypesOf()
		opts = append(opts, cel.Variable("authorizer", at.authorizer), cel.Variable("authorizer.requestResource", at.resourceCheck))
	}
	return base.Extend(opts...)
}

// compileExpr compiles text in env, its result of one of the types want
// (none: any), with kube's words for a wrong one.
func compileExpr(env *cel.Env, name, text string, want ...*cel.Type) policyExpr {
	e := policyExpr{name: name, text: text}
	ast, issues := env.Compile(text)
	if issues != nil {
		e.err = "compilation failed: " + issues.String()
		return e
	}
	e.typ = ast.OutputType()
	if len(want) > 0 && !slices.ContainsFunc(want, func(t *cel.Type) bool { return e.typ.IsExactType(t) }) {
		if len(want) == 1 {
			e.err = fmt.Sprintf("must evaluate to %v but got %v", want[0], e.typ)
		} else {
			e.err = fmt.Sprintf("must evaluate to one of %v but got %v", want, e.typ)
		}
		return e
	}
	p, err := env.Program(ast, programOptions(&costs{})...)
	if err != nil {
		e.err = "program instantiation failed: " + err.Error()
		return e
	}
	e.program = p
	return e
}

func compilePolicy(spec map[string]any) (*compiledPolicy, error) {
	c := &compiledPolicy{}
	params := spec["paramKind"] != nil
	declared := map[string]*declField{}
	for _, v := range objects(spec["variables"]) {
		env, err := policyEnv(params, true, declared)
		if err != nil {
			return nil, err
		}
		e := compileExpr(env, str(v["name"]), str(v["expression"]))
		t := &declType{name: "dyn", cel: cel.DynType}
		if e.typ != nil {
			t = &declType{name: e.typ.String(), cel: e.typ}
		}
		declared[e.name] = &declField{name: e.name, typ: t}
		c.variables = append(c.variables, e)
	}
	env, err := policyEnv(params, true, declared)
	if err != nil {
		return nil, err
	}
	plain, err := policyEnv(params, false, declared)
	if err != nil {
		return nil, err
	}
	for _, m := range objects(spec["matchConditions"]) {
		c.conditions = append(c.conditions, compileExpr(env, str(m["name"]), str(m["expression"]), cel.BoolType))
	}
	for _, a := range objects(spec["auditAnnotations"]) {
		c.audits = append(c.audits, compileExpr(plain, str(a["key"]), str(a["valueExpression"]), cel.StringType, cel.NullType))
	}
	for _, v := range objects(spec["validations"]) {
		var out struct {
			check, message    policyExpr
			text, msg, reason string
		}
		out.text, out.msg, out.reason = str(v["expression"]), str(v["message"]), str(v["reason"])
		out.check = compileExpr(env, "", out.text, cel.BoolType)
		if m := str(v["messageExpression"]); m != "" {
			out.message = compileExpr(plain, "", m, cel.StringType)
		}
		c.validations = append(c.validations, out)
	}
	return c, nil
}

func objects(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func str(v any) string { s, _ := v.(string); return s }

// policyActivation is what a policy's expressions see; its variables are
// evaluated on first use, once.
type policyActivation struct {
	vars map[string]any
}

func (a *policyActivation) ResolveName(name string) (any, bool) {
	v, ok := a.vars[name]
	return v, ok
}

func (a *policyActivation) Parent() interpreter.Activation { return nil }

// lazyVariables is the variables object: each variable evaluated when an
// expression first reads it.
type lazyVariables struct {
	ref.Val
	ctx    context.Context
	act    *policyActivation
	exprs  []policyExpr
	values map[string]ref.Val
}

func (l *lazyVariables) Get(key ref.Val) ref.Val {
	v, found := l.Find(key)
	if !found {
		return types.NewErr("no such key: %v", key)
	}
	return v
}

func (l *lazyVariables) Find(key ref.Val) (ref.Val, bool) {
	name, ok := key.Value().(string)
	if !ok {
		return nil, false
	}
	if v, ok := l.values[name]; ok {
		return v, true
	}
	for _, e := range l.exprs {
		if e.name != name {
			continue
		}
		var v ref.Val
		if e.program == nil {
			v = types.NewErr("%s", e.err)
		} else if res, _, err := e.program.ContextEval(l.ctx, l.act); err != nil {
			v = types.NewErr("%s", err.Error())
		} else {
			v = res
		}
		l.values[name] = v
		return v, true
	}
	return nil, false
}

func (l *lazyVariables) Contains(key ref.Val) ref.Val {
	_, found := l.Find(key)
	return types.Bool(found)
}

func (l *lazyVariables) Size() ref.Val { return types.Int(len(l.exprs)) }

func (l *lazyVariables) Iterator() traits.Iterator {
	names := make([]ref.Val, len(l.exprs))
	for i, e := range l.exprs {
		names[i] = types.String(e.name)
	}
	return types.NewRefValList(types.DefaultTypeAdapter, names).Iterator()
}

// EvaluatePolicy is a policy's verdict on a request, as kube's validating
// admission policy plugin makes it: nil when its match conditions leave the
// request out, else a decision per validation (a failed one's message: its
// messageExpression's, its message, or "failed expression: ..."). An
// expression that does not compile or fails to evaluate is an error, for
// the failure policy.
func (e *Evaluator) EvaluatePolicy(ctx context.Context, req PolicyRequest) []PolicyDecision {
	policies.Lock()
	c, ok := policies.byKey[req.Key]
	policies.Unlock()
	if !ok {
		var err error
		if c, err = compilePolicy(req.Policy); err != nil {
			return []PolicyDecision{{Error: true, Message: err.Error()}}
		}
		policies.Lock()
		if policies.byKey == nil || len(policies.byKey) >= maxCompiled {
			policies.byKey = map[string]*compiledPolicy{}
		}
		policies.byKey[req.Key] = c
		policies.Unlock()
	}
	act := &policyActivation{vars: map[string]any{"request": jsonVal(req.Request), "object": nullable(req.Object), "oldObject": nullable(req.OldObject),
		"params": nullable(req.Params), "namespaceObject": namespaceValue(req.Namespace)}}
	if req.Authorize != nil {
		authz := newAuthorizer(req.Authorize, req.User, req.Groups)
		act.vars["authorizer"] = authz
		rr := authz
		rr.typ = authzTypesOf().resourceCheck
		kind, _ := req.Request["resource"].(map[string]any)
		rr.check.ResourceRequest, rr.check.Group, rr.check.Resource = true, str(kind["group"]), str(kind["resource"])
		rr.check.Subresource, rr.check.Namespace, rr.check.Name = str(req.Request["subResource"]), str(req.Request["namespace"]), str(req.Request["name"])
		act.vars["authorizer.requestResource"] = rr
	}
	act.vars["variables"] = &lazyVariables{Val: types.NullValue, ctx: ctx, act: act, exprs: c.variables, values: map[string]ref.Val{}}
	eval := func(p policyExpr) (ref.Val, string) {
		if p.program == nil {
			return nil, p.err
		}
		v, _, err := p.program.ContextEval(ctx, act)
		if err != nil {
			return nil, fmt.Sprintf("expression '%v' resulted in error: %v", p.text, err)
		}
		return v, ""
	}
	var conditionErr string
	for _, m := range c.conditions {
		v, errText := eval(m)
		switch {
		case errText != "":
			if conditionErr == "" {
				conditionErr = errText
			}
		case v == types.False:
			return nil
		}
	}
	if conditionErr != "" {
		return []PolicyDecision{{Error: true, Message: conditionErr}}
	}
	out := make([]PolicyDecision, len(c.validations))
	for i, v := range c.validations {
		res, errText := eval(v.check)
		switch {
		case errText != "":
			out[i] = PolicyDecision{Error: true, Message: errText}
		case res != types.True:
			d := PolicyDecision{Deny: true, Reason: v.reason}
			if d.Reason == "" {
				d.Reason = "Invalid"
			}
			if v.message.program != nil {
				if m, errText := eval(v.message); errText == "" {
					if s, ok := m.Value().(string); ok {
						s = strings.TrimSpace(s)
						if len(s) <= maxMessageExpressionSize && !strings.Contains(s, "\n") {
							d.Message = s
						}
					}
				}
			}
			if d.Message == "" {
				d.Message = strings.TrimSpace(v.msg)
			}
			if d.Message == "" {
				d.Message = "failed expression: " + strings.TrimSpace(v.text)
			}
			out[i] = d
		}
	}
	return out
}

func nullable(m map[string]any) ref.Val {
	if m == nil {
		return types.NullValue
	}
	return jsonVal(m)
}

// jsonVal is a JSON value (numbers as json.Number) as CEL sees a value with
// no schema: objects as maps, integers as int, others as double.
func jsonVal(v any) ref.Val {
	return types.DefaultTypeAdapter.NativeToValue(plain(v))
}

// plain is v with its numbers as Go's: integers int64, others float64, as
// kube's unstructured objects hold them.
func plain(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = plain(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plain(e)
		}
		return out
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

// CheckPolicy compiles a policy's expressions as kube's validation of a
// ValidatingAdmissionPolicy does: for each that does not compile, or is of
// the wrong type, where it is (spec.validations[0].expression), what it
// says and why.
func CheckPolicy(spec map[string]any) []PolicyIssue {
	c, err := compilePolicy(spec)
	if err != nil {
		return []PolicyIssue{{Path: "spec", Detail: err.Error()}}
	}
	var out []PolicyIssue
	add := func(path string, e policyExpr) {
		if e.err != "" && strings.TrimSpace(e.text) != "" {
			out = append(out, PolicyIssue{Path: path, Expression: e.text, Detail: e.err})
		}
	}
	for i, e := range c.conditions {
		add(fmt.Sprintf("spec.matchConditions[%d].expression", i), e)
	}
	for i, v := range c.validations {
		add(fmt.Sprintf("spec.validations[%d].expression", i), v.check)
		add(fmt.Sprintf("spec.validations[%d].messageExpression", i), v.message)
	}
	for i, e := range c.audits {
		add(fmt.Sprintf("spec.auditAnnotations[%d].valueExpression", i), e)
	}
	for i, e := range c.variables {
		add(fmt.Sprintf("spec.variables[%d].expression", i), e)
	}
	return out
}

// PolicyIssue is an expression of a policy that does not compile.
type PolicyIssue struct {
	Path       string `json:"path"`
	Expression string `json:"expression"`
	Detail     string `json:"detail"`
}

// namespaceValue is a namespace as kube's policies see it (its
// CreateNamespaceObject): metadata's uid as UID, times as timestamps.
func namespaceValue(ns map[string]any) ref.Val {
	if ns == nil {
		return types.NullValue
	}
	meta, _ := ns["metadata"].(map[string]any)
	m := map[string]any{}
	for _, k := range []string{"name", "generateName", "namespace", "labels", "annotations", "deletionGracePeriodSeconds", "generation", "resourceVersion", "finalizers"} {
		if v, ok := meta[k]; ok {
			m[k] = v
		}
	}
	if v, ok := meta["uid"]; ok {
		m["UID"] = v
	}
	for _, k := range []string{"creationTimestamp", "deletionTimestamp"} {
		if t, err := parseDateTime(str(meta[k])); err == nil && meta[k] != nil {
			m[k] = t
		}
	}
	out := map[string]any{"metadata": m}
	for _, k := range []string{"spec", "status"} {
		if v, ok := ns[k]; ok {
			out[k] = v
		}
	}
	return jsonVal(out)
}
