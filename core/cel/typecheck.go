package cel

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
)

// TypeCheckPolicy is kube-controller-manager's type checking of a
// ValidatingAdmissionPolicy (kube's TypeChecker.Check), for the policy's
// status: its validations (spec's) compiled with object and oldObject of
// the type of each of the kinds its constraints match (named as kube
// prints a GroupVersionKind, "apps/v1, Kind=Deployment", in kube's order,
// each with its OpenAPI v3 schema, references resolved), params of its
// paramKind's schema (none: no params). For each validation's expression
// and messageExpression that does not compile against some of the kinds,
// an issue (Path, Detail) naming each such kind and its errors.
func TypeCheckPolicy(spec map[string]any, kindNames []string, schemas [][]byte, paramsSchema []byte) []PolicyIssue {
	type kind struct {
		name   string
		object *declType
	}
	var kinds []kind
	for i, name := range kindNames {
		_, typeName, _ := strings.Cut(name, "Kind=")
		if t := typeOfSchema(schemas[i], typeName); t != nil {
			kinds = append(kinds, kind{name, t})
		}
	}
	params := typeOfSchema(paramsSchema, "params")
	envs := make([]*cel.Env, len(kinds))
	for i, k := range kinds {
		declared := map[string]*declField{}
		for _, v := range objects(spec["variables"]) {
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
	var out []PolicyIssue
	check := func(path, text string) {
		var found []string
		for i, env := range envs {
			if _, issues := env.Compile(text); issues != nil {
				found = append(found, kinds[i].name+": "+issues.String()+"\n")
			}
		}
		if found != nil {
			out = append(out, PolicyIssue{Path: path, Expression: text, Detail: strings.Join(found, "\n")})
		}
	}
	for i, v := range objects(spec["validations"]) {
		check(fmt.Sprintf("spec.validations[%d].expression", i), str(v["expression"]))
		if m := str(v["messageExpression"]); m != "" {
			check(fmt.Sprintf("spec.validations[%d].messageExpression", i), m)
		}
	}
	return out
}

// typeOfSchema is the CEL type of a kind's schema, its object types named
// after name; nil for none.
func typeOfSchema(schema []byte, name string) *declType {
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
