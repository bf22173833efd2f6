package apiserver

import (
	"sort"

	"kubeplay/core/schema"
	"kubeplay/core/validation"
)

// validateName returns the messages for a name that breaks rule.
func validateName(rule schema.NameRule, name string) []string {
	if name == "" {
		return nil
	}
	switch rule {
	case schema.DNSLabel:
		return validation.DNS1123Label(name)
	case schema.DNS1035Label:
		return validation.DNS1035Label(name)
	default:
		return validation.DNS1123Subdomain(name)
	}
}

// validateLabels checks label keys and values as ValidateLabels does.
func validateLabels(labels map[string]string, field string) []fieldError {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []fieldError
	for _, k := range keys {
		for _, msg := range validation.QualifiedName(k) {
			errs = append(errs, invalidValue(field, k, msg))
		}
		for _, msg := range validation.LabelValue(labels[k]) {
			errs = append(errs, invalidValue(field, labels[k], msg))
		}
	}
	return errs
}
