package cel

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// AuthzCheck is what one check of kube's authorizer library asks: may the
// user do verb to a resource (ResourceRequest) or a path.
type AuthzCheck struct {
	User                                          string
	Groups                                        []string
	ResourceRequest                               bool
	Group, Resource, Subresource, Namespace, Name string
	Path, Verb                                    string
}

// Authorize decides a check: allowed, and the authorizer's reason.
type Authorize func(AuthzCheck) (allowed bool, reason string)

// authzTypes are the authorizer library's types, made on first use (the
// browser's CEL module, which evaluates no policy, makes none).
type authzTypes struct{ authorizer, pathCheck, groupCheck, resourceCheck, decision *cel.Type }

var authz struct {
	sync.Once
	types authzTypes
}

func authzTypesOf() authzTypes {
	authz.Do(func() {
		t := func(name string) *cel.Type { return cel.ObjectType("kubernetes.authorization." + name) }
		authz.types = authzTypes{t("Authorizer"), t("PathCheck"), t("GroupCheck"), t("ResourceCheck"), t("Decision")}
	})
	return authz.types
}

// authzVal is a value of one of the library's types: an authorizer (a user
// and how to ask), a check being built, or a decision.
type authzVal struct {
	typ       *cel.Type
	authorize Authorize
	check     AuthzCheck
	allowed   bool
	reason    string
}

func (a authzVal) ConvertToNative(t reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from '%s' to '%v'", a.typ, t)
}

func (a authzVal) ConvertToType(t ref.Type) ref.Val {
	switch {
	case t.TypeName() == a.typ.TypeName():
		return a
	case t == types.TypeType:
		return types.NewTypeValue(a.typ.String())
	}
	return types.NewErr("type conversion error from '%s' to '%s'", a.typ, t)
}

func (a authzVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(authzVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(a.typ == o.typ && reflect.DeepEqual(a.check, o.check) && a.allowed == o.allowed && a.reason == o.reason)
}

func (a authzVal) Type() ref.Type { return types.NewTypeValue(a.typ.String()) }
func (a authzVal) Value() any     { return types.NoSuchOverloadErr() }

// newAuthorizer is the authorizer variable: checks for user.
func newAuthorizer(authorize Authorize, user string, groups []string) authzVal {
	return authzVal{typ: authzTypesOf().authorizer, authorize: authorize, check: AuthzCheck{User: user, Groups: groups}}
}

// step is a function of the library that turns its receiver into a check
// of typ, setting one of its fields.
func step(id string, from, to *cel.Type, set func(*AuthzCheck, string)) cel.FunctionOpt {
	return cel.MemberOverload(id, []*cel.Type{from, cel.StringType}, to, binary(func(v, s ref.Val) ref.Val {
		a, ok := v.(authzVal)
		str, isStr := s.Value().(string)
		if !ok || !isStr {
			return types.MaybeNoSuchOverloadErr(v)
		}
		a.typ = to
		set(&a.check, str)
		return a
	}))
}

func decide(v, verb ref.Val) ref.Val {
	a, ok := v.(authzVal)
	str, isStr := verb.Value().(string)
	if !ok || !isStr || a.authorize == nil {
		return types.MaybeNoSuchOverloadErr(v)
	}
	a.check.Verb = str
	allowed, reason := a.authorize(a.check)
	return authzVal{typ: authzTypesOf().decision, check: a.check, allowed: allowed, reason: reason}
}

func onDecision(f func(authzVal) ref.Val) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		d, ok := v.(authzVal)
		if !ok {
			return types.MaybeNoSuchOverloadErr(v)
		}
		return f(d)
	}
}

// authzLibrary is kube's authorizer library (without 1.31's selectors).
func authzLibrary() *library {
	at := authzTypesOf()
	authorizerType, pathCheckType, groupCheckType, resourceCheckType, decisionType := at.authorizer, at.pathCheck, at.groupCheck, at.resourceCheck, at.decision
	return &library{name: "kubernetes.authz", functions: []cel.EnvOption{
		cel.Function("path", step("authorizer_path", authorizerType, pathCheckType, func(c *AuthzCheck, s string) { c.Path = s })),
		cel.Function("group", step("authorizer_group", authorizerType, groupCheckType, func(c *AuthzCheck, s string) { c.Group, c.ResourceRequest = s, true })),
		cel.Function("serviceAccount", cel.MemberOverload("authorizer_serviceaccount", []*cel.Type{authorizerType, cel.StringType, cel.StringType}, authorizerType,
			cel.FunctionBinding(func(args ...ref.Val) ref.Val {
				a, ok := args[0].(authzVal)
				ns, ok1 := args[1].Value().(string)
				name, ok2 := args[2].Value().(string)
				if !ok || !ok1 || !ok2 {
					return types.MaybeNoSuchOverloadErr(args[0])
				}
				return newAuthorizer(a.authorize, "system:serviceaccount:"+ns+":"+name, []string{"system:serviceaccounts", "system:serviceaccounts:" + ns})
			}))),
		cel.Function("resource", step("groupcheck_resource", groupCheckType, resourceCheckType, func(c *AuthzCheck, s string) { c.Resource = s })),
		cel.Function("subresource", step("resourcecheck_subresource", resourceCheckType, resourceCheckType, func(c *AuthzCheck, s string) { c.Subresource = s })),
		cel.Function("namespace", step("resourcecheck_namespace", resourceCheckType, resourceCheckType, func(c *AuthzCheck, s string) { c.Namespace = s })),
		cel.Function("name", step("resourcecheck_name", resourceCheckType, resourceCheckType, func(c *AuthzCheck, s string) { c.Name = s })),
		cel.Function("check",
			cel.MemberOverload("pathcheck_check", []*cel.Type{pathCheckType, cel.StringType}, decisionType, binary(decide)),
			cel.MemberOverload("resourcecheck_check", []*cel.Type{resourceCheckType, cel.StringType}, decisionType, binary(decide))),
		cel.Function("errored", cel.MemberOverload("decision_errored", []*cel.Type{decisionType}, cel.BoolType, unary(onDecision(func(authzVal) ref.Val { return types.False })))),
		cel.Function("error", cel.MemberOverload("decision_error", []*cel.Type{decisionType}, cel.StringType, unary(onDecision(func(authzVal) ref.Val { return types.String("") })))),
		cel.Function("allowed", cel.MemberOverload("decision_allowed", []*cel.Type{decisionType}, cel.BoolType, unary(onDecision(func(d authzVal) ref.Val { return types.Bool(d.allowed) })))),
		cel.Function("reason", cel.MemberOverload("decision_reason", []*cel.Type{decisionType}, cel.StringType, unary(onDecision(func(d authzVal) ref.Val { return types.String(d.reason) })))),
	}}
}
