package api

import (
	"context"
	"encoding/json"

	"kubeplay/core/field"
)

// CEL is what the server asks of the Common Expression Language, as
// kube-apiserver evaluates it: the check of a CustomResourceDefinition's
// x-kubernetes-validations rules when it is written, and their evaluation
// on its custom resources. A host provides it: core/cel natively and at the
// edge, a module of its own in the browser (cel-go does not fit the core's
// download), so what crosses is plain data (JSON there), one call a request.
type CEL interface {
	// CheckRules checks the rules of a version's schema as kube's
	// validation of a definition does.
	CheckRules(req CheckRules) field.ErrorList
	// ValidateCustom evaluates a custom resource's rules: the errors kube
	// refuses it with, and the warnings it answers (errors an update left
	// unchanged).
	ValidateCustom(ctx context.Context, req ValidateCustom) (field.ErrorList, []string)
}

// CheckRules asks for the check of a version's rules.
type CheckRules struct {
	// Schema is the version's openAPIV3Schema, as the definition holds it.
	Schema map[string]any `json:"schema"`
	// Path is where the definition holds it
	// ("spec.versions[0].schema.openAPIV3Schema").
	Path string `json:"path"`
	// Rules and MessageExpressions are those the stored definition has, in
	// any version (on create, none).
	Rules              []string `json:"rules,omitempty"`
	MessageExpressions []string `json:"messageExpressions,omitempty"`
	// Unchanged: an update left the version's schema as it was.
	Unchanged bool `json:"unchanged,omitempty"`
}

// ValidateCustom asks for the evaluation of a custom resource's rules.
type ValidateCustom struct {
	Rules *CustomRules `json:"rules"`
	// Object is the custom resource; Old the stored one (nil on create).
	Object map[string]any `json:"object"`
	Old    map[string]any `json:"old,omitempty"`
}

// CustomRules are the rules of a custom resource's version.
type CustomRules struct {
	// Key names the schema: its compiled rules are kept under it.
	Key string `json:"key"`
	// Schema is the version's openAPIV3Schema.
	Schema map[string]any `json:"schema"`
}

// Policies is what a host's CEL may do besides: evaluate a
// ValidatingAdmissionPolicy's expressions on a request its constraints and
// binding matched (core/cel natively and at the edge, the CEL module in the
// browser, core/cel/celremote).
type Policies interface {
	EvaluatePolicy(ctx context.Context, req PolicyRequest) []PolicyDecision
	// CheckPolicy compiles a policy's expressions (its spec's) as kube's
	// validation of the policy does.
	CheckPolicy(spec map[string]any) field.ErrorList
	// TypeCheckPolicy is kube's type checking of a policy's validations
	// against the kinds it matches (its status.typeChecking's warnings).
	TypeCheckPolicy(req PolicyTypeCheck) []ExpressionWarning
}

// PolicyTypeCheck asks for the type checking of a policy.
type PolicyTypeCheck struct {
	// Policy is its spec.
	Policy map[string]any `json:"policy"`
	// Kinds are those its constraints match, in kube's order, each with
	// its OpenAPI v3 schema, references resolved.
	Kinds []TypedKind `json:"kinds"`
	// Params is its paramKind's schema; absent, its expressions have no
	// params.
	Params json.RawMessage `json:"params,omitempty"`
}

// TypedKind is a kind as kube prints a GroupVersionKind ("apps/v1,
// Kind=Deployment") and its schema.
type TypedKind struct {
	Kind   string          `json:"kind"`
	Schema json.RawMessage `json:"schema"`
}

// ExpressionWarning is an expression's type errors: where it is
// (spec.validations[0].expression) and, for each kind, its errors.
type ExpressionWarning struct {
	FieldRef string `json:"fieldRef"`
	Warning  string `json:"warning"`
}

// PolicyRequest asks for a policy's verdict on a request.
type PolicyRequest struct {
	// Key names the policy as written (its uid and generation).
	Key string `json:"key"`
	// Policy is its spec.
	Policy map[string]any `json:"policy"`
	// What its expressions see (nil when absent).
	Object    map[string]any `json:"object,omitempty"`
	OldObject map[string]any `json:"oldObject,omitempty"`
	Params    map[string]any `json:"params,omitempty"`
	Namespace map[string]any `json:"namespaceObject,omitempty"`
	Request   map[string]any `json:"request"`
	// Authorize answers the authorizer library's checks of the request's
	// user (User, Groups) or of a service account (in the browser, asked
	// back across the CEL module's protocol).
	Authorize func(c AuthzCheck) (allowed bool, reason string) `json:"-"`
	User      string                                           `json:"user,omitempty"`
	Groups    []string                                         `json:"groups,omitempty"`
}

// AuthzCheck is one check of kube's CEL authorizer library.
type AuthzCheck struct {
	User                                          string
	Groups                                        []string
	ResourceRequest                               bool
	Group, Resource, Subresource, Namespace, Name string
	Path, Verb                                    string
}

// PolicyDecision is one validation's verdict: failed (Deny, with its
// message and reason), or not evaluated (Error, for the failure policy),
// or passed (neither). No decision at all: the match conditions left the
// request out.
type PolicyDecision struct {
	Deny    bool   `json:"deny,omitempty"`
	Error   bool   `json:"error,omitempty"`
	Message string `json:"message"`
	Reason  string `json:"reason,omitempty"`
}
