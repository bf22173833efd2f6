package kinds

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// admissionregistration.k8s.io/v1: the admission webhooks' configurations
// and the ValidatingAdmissionPolicies with their bindings, all
// cluster-scoped, as kube's strategies keep them: a generation from 1,
// bumped by a change of what they configure; an update must name the
// resourceVersion it replaces. What they do to other writes is
// core/admission's.

const admissionGroup = "admissionregistration.k8s.io"

// webhooksColumn is the webhook configurations' own column.
var webhooksColumn = table.Column{Name: "Webhooks", Type: "integer", Description: "Webhooks indicates the number of webhooks registered in this configuration"}

// noEmptyWebhooks leaves out an empty list of webhooks, as encoding/json
// leaves out the empty slice kube decodes it into (omitempty).
func noEmptyWebhooks(c object.Object) {
	if l, ok := c["webhooks"].([]any); ok && len(l) == 0 {
		delete(c, "webhooks")
	}
}

// webhookCells are a webhook configuration's cells: its name, how many
// webhooks it has, its age.
func webhookCells(c object.Object, now time.Time) []any {
	return []any{table.Name(c), int64(len(object.Objects(c, "webhooks"))), table.Age(c, now)}
}

func validatingWebhookConfiguration() *api.Resource {
	return &api.Resource{
		Group: admissionGroup, Version: "v1", Kind: "ValidatingWebhookConfiguration", Plural: "validatingwebhookconfigurations", Singular: "validatingwebhookconfiguration",
		Categories: []string{"api-extensions"}, Verbs: allVerbs, Generation: true, UpdateNeedsVersion: true,
		Hooks: api.Hooks{
			Canonicalize:        noEmptyWebhooks,
			Validate:            validation.ValidatingWebhookConfiguration,
			ValidateUpdate:      anySubresource(validation.ValidatingWebhookConfigurationUpdate),
			LabelChecksOnUpdate: 3,
		},
		Printer: table.NewPrinter([]table.Column{table.NameColumn, webhooksColumn, table.AgeColumn}, webhookCells),
	}
}

func mutatingWebhookConfiguration() *api.Resource {
	return &api.Resource{
		Group: admissionGroup, Version: "v1", Kind: "MutatingWebhookConfiguration", Plural: "mutatingwebhookconfigurations", Singular: "mutatingwebhookconfiguration",
		Categories: []string{"api-extensions"}, Verbs: allVerbs, Generation: true, UpdateNeedsVersion: true,
		Hooks: api.Hooks{
			Canonicalize:        noEmptyWebhooks,
			Validate:            validation.MutatingWebhookConfiguration,
			ValidateUpdate:      anySubresource(validation.MutatingWebhookConfigurationUpdate),
			LabelChecksOnUpdate: 3,
		},
		Printer: table.NewPrinter([]table.Column{table.NameColumn, webhooksColumn, table.AgeColumn}, webhookCells),
	}
}

// validatingAdmissionPolicy: a new policy starts without a status (the
// type checker, kube-controller-manager's controller, core/controllers/
// policystatus, writes it); the status subresource changes nothing else.
func validatingAdmissionPolicy() *api.Resource {
	return &api.Resource{
		Group: admissionGroup, Version: "v1", Kind: "ValidatingAdmissionPolicy", Plural: "validatingadmissionpolicies", Singular: "validatingadmissionpolicy",
		Categories: []string{"api-extensions"}, Verbs: allVerbs, Generation: true, UpdateNeedsVersion: true,
		Subs: []api.Subresource{{Name: "status", Kind: "ValidatingAdmissionPolicy", Group: admissionGroup, Verbs: statusVerbs}},
		Hooks: api.Hooks{
			PrepareForCreate:    func(obj object.Object, _ time.Time) { delete(obj, "status") },
			StatusOnly:          true, // its status strategy resets all the metadata
			Validate:            validation.ValidatingAdmissionPolicy,
			ValidateUpdate:      validation.ValidatingAdmissionPolicyUpdate,
			ValidateCEL:         validatePolicyExpressions,
			LabelChecksOnUpdate: 3,
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Validations", Type: "integer", Description: "Validations indicates the number of validation rules defined in this configuration"},
			{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy"},
			table.AgeColumn,
		}, func(vap object.Object, now time.Time) []any {
			spec, _ := vap["spec"].(map[string]any)
			paramKind := "<unset>"
			if pk, ok := spec["paramKind"].(map[string]any); ok {
				paramKind = object.String(pk["apiVersion"]) + "/" + object.String(pk["kind"])
			}
			return []any{table.Name(vap), int64(len(object.Objects(spec, "validations"))), paramKind, table.Age(vap, now)}
		}),
	}
}

func validatingAdmissionPolicyBinding() *api.Resource {
	return &api.Resource{
		Group: admissionGroup, Version: "v1", Kind: "ValidatingAdmissionPolicyBinding", Plural: "validatingadmissionpolicybindings", Singular: "validatingadmissionpolicybinding",
		Categories: []string{"api-extensions"}, Verbs: allVerbs, Generation: true, UpdateNeedsVersion: true,
		Hooks: api.Hooks{
			Validate:            validation.ValidatingAdmissionPolicyBinding,
			ValidateUpdate:      anySubresource(func(b, _ object.Object) field.ErrorList { return validation.ValidatingAdmissionPolicyBinding(b) }),
			LabelChecksOnUpdate: 3,
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "PolicyName", Type: "string", Description: "PolicyName indicates the policy definition which the policy binding binded to"},
			{Name: "ParamRef", Type: "string", Description: "ParamRef indicates the param resource which sets the configration param"},
			table.AgeColumn,
		}, func(b object.Object, now time.Time) []any {
			spec, _ := b["spec"].(map[string]any)
			return []any{table.Name(b), object.String(spec["policyName"]), paramRefCell(spec), table.Age(b, now)}
		}),
	}
}

// paramRefCell is how kube's printer shows a binding's paramRef: its
// namespace and name (* for no namespace), or its selector as the Go value
// prints itself; <unset> without one.
func paramRefCell(spec map[string]any) string {
	pr, ok := spec["paramRef"].(map[string]any)
	if !ok {
		return "<unset>"
	}
	if name := object.String(pr["name"]); name != "" {
		ns := object.String(pr["namespace"])
		if ns == "" {
			ns = "*"
		}
		return ns + "/" + name
	}
	sel, ok := pr["selector"].(map[string]any)
	if !ok {
		return "<unset>"
	}
	return labelSelectorString(sel)
}

// labelSelectorString is a metav1.LabelSelector's String(), gogo-protobuf's
// form of it.
func labelSelectorString(sel map[string]any) string {
	labels := object.StringMap(sel, "matchLabels")
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("&LabelSelector{MatchLabels:map[string]string{")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s,", k, labels[k])
	}
	b.WriteString("},MatchExpressions:[]LabelSelectorRequirement{")
	for _, e := range object.Objects(sel, "matchExpressions") {
		fmt.Fprintf(&b, "LabelSelectorRequirement{Key:%s,Operator:%s,Values:[%s],},", object.String(e["key"]), object.String(e["operator"]), strings.Join(object.Strings(e, "values"), " "))
	}
	b.WriteString("},}")
	return b.String()
}

// validatePolicyExpressions compiles a policy's expressions with the host's
// CEL, as kube's validation of a ValidatingAdmissionPolicy does; a host
// whose CEL does not evaluate policies checks none.
func validatePolicyExpressions(c api.CEL, obj, _ object.Object) (field.ErrorList, []string) {
	p, ok := c.(api.Policies)
	spec, _ := obj["spec"].(map[string]any)
	if !ok || spec == nil {
		return nil, nil
	}
	return p.CheckPolicy(spec), nil
}
