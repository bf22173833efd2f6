package cel

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
)

// PolicyTypeCheck asks for the type checking of a ValidatingAdmissionPolicy
// (the JSON of core/api's PolicyTypeCheck), as kube-controller-manager's
// policy status controller does it: its validations compiled with object
// and oldObject of the type of each kind its constraints match, params of
// its paramKind's.
type PolicyTypeCheck struct {
	Policy map[string]any `json:"policy"` // the policy's spec
	// Kinds are the kinds to check against, in kube's order, each with its
	// OpenAPI v3 schema (references resolved).
	Kinds []TypedKind `json:"kinds"`
	// Params is the paramKind's schema; absent, the expressions have no
	// params.
	Params json.RawMessage `json:"params,omitempty"`
}

// TypedKind is a kind ("apps/v1, Kind=Deployment", as kube prints a
// GroupVersionKind) and its schema.
type TypedKind struct {
	Kind   string          `json:"kind"`
	Schema json.RawMessage `json:"schema"`
}

// ExpressionWarning is one expression's type errors, for the policy's
// status.typeChecking.
type ExpressionWarning struct {
	FieldRef string `json:"fieldRef"`
	Warning  string `json:"warning"`
}

// TypeCheckPolicy is kube's TypeChecker.Check: for each validation's
// expression and messageExpression that does not compile against some of
// the kinds, a warning naming each such kind and its errors.
func TypeCheckPolicy(req PolicyTypeCheck) []ExpressionWarning {
	type kind struct {
		name   string
		object *declType
	}
	var kinds []kind
	for _, k := range req.Kinds {
		_, typeName, _ := strings.Cut(k.Kind, "Kind=")
		if t := typeOfSchema(k.Schema, typeName); t != nil {
			kinds = append(kinds, kind{k.Kind, t})
		}
	}
	params := typeOfSchema(req.Params, "params")
	envs := make([]*cel.Env, len(kinds))
	for i, k := range kinds {
		declared := map[string]*declField{}
		for _, v := range objects(req.Policy["variables"]) {
			env, err := policyEnv(params != nil, true, declared, k.object, params)
			if err != nil {
				return nil
			}
			t := &declType{name: "dyn", cel: cel.DynType}
			if ast, issues := env.Compile(str(v["expression"])); issues == nil {
				t = &declType{name: ast.OutputType().String(), cel: ast.OutputType()}
			}
			declared[str(v["name"])] = &declField{name: str(v["name"]), typ: t}
		}
		env, err := policyEnv(params != nil, true, declared, k.object, params)
		if err != nil {
			return nil
		}
		envs[i] = env
	}
	var out []ExpressionWarning
	check := func(path, text string) {
		var found []string
		for i, env := range envs {
			if _, issues := env.Compile(text); issues != nil {
				found = append(found, kinds[i].name+": "+issues.String()+"\n")
			}
		}
		if found != nil {
			out = append(out, ExpressionWarning{FieldRef: path, Warning: strings.Join(found, "\n")})
		}
	}
	for i, v := range objects(req.Policy["validations"]) {
		check(fmt.Sprintf("spec.validations[%d].expression", i), str(v["expression"]))
		if m := str(v["messageExpression"]); m != "" {
			check(fmt.Sprintf("spec.validations[%d].messageExpression", i), m)
		}
	}
	return out
}

// typeOfSchema is the CEL type of a kind's schema, its object types named
// after name; nil for none.
func typeOfSchema(schema json.RawMessage, name string) *declType {
	if len(schema) == 0 {
		return nil
	}
	s, err := ParseSchema(schema)
	if err != nil {
		return nil
	}
	t := schemaDecl(s, true)
	if t == nil {
		return nil
	}
	return t.named(name)
}
