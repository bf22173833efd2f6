// Package cel owns the Common Expression Language as kube-apiserver 1.32
// evaluates it (on github.com/google/cel-go, the version kube 1.32 links):
// kube's environment (its language options and libraries at 1.32: lists,
// regex, urls, quantity, ip, cidr, format, the strings extension at version 2,
// sets, two-variable comprehensions), its cost model (the libraries' call
// costs, sizes estimated from an OpenAPI schema's maxLength, maxItems and
// maxProperties or from the largest request, the per-call and per-request
// limits), the mapping of a structural schema to CEL types and of JSON values
// to CEL values, and what kube does with a CustomResourceDefinition's
// x-kubernetes-validations rules: compiling them when the definition is
// written (CheckRules) and evaluating them on custom resources (Rules); and a
// ValidatingAdmissionPolicy's expressions on a request it matched
// (EvaluatePolicy: variables, match conditions, validations and their
// messages).
//
// The browser's core does not link this package (cel-go would not fit its
// download budget): the core names what it asks of CEL in core/api (api.CEL),
// with JSON across the boundary, and a host gives it this package directly
// (natively, at the edge) or through a module of its own (the browser).
package cel
