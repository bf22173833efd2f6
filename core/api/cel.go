package api

import (
	"context"

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
