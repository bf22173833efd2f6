package validation

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"kubeplay/core/field"
	"kubeplay/core/object"
)

// fields is one object of a built-in kind in JSON form (decoded into its Go
// type and defaulted), as the kinds' rules read it: a missing or null field
// reads as its zero value. Its accessors, as add and addInvalid, stay out of
// line (go:noinline): the checks call them at hundreds of places.
type fields map[string]any

// str is the string at key.
//
//go:noinline
func (f fields) str(key string) string {
	s, _ := f[key].(string)
	return s
}

// has says whether the field is set (a pointer that is not nil).
//
//go:noinline
func (f fields) has(key string) bool { return f[key] != nil }

// obj is the object at key; nil when there is none.
//
//go:noinline
func (f fields) obj(key string) fields {
	m, _ := f[key].(map[string]any)
	return m
}

// list is the objects in the list at key.
//
//go:noinline
func (f fields) list(key string) []fields {
	l, _ := f[key].([]any)
	out := make([]fields, 0, len(l))
	for _, e := range l {
		m, _ := e.(map[string]any)
		out = append(out, m)
	}
	return out
}

// strs is the list of strings at key; nil when there is none.
//
//go:noinline
func (f fields) strs(key string) []string {
	l, ok := f[key].([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

// strMap is the map of strings at key; nil when there is none.
//
//go:noinline
func (f fields) strMap(key string) map[string]string {
	m, ok := f[key].(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k], _ = v.(string)
	}
	return out
}

// num is the integer at key (0 when there is none).
//
//go:noinline
func (f fields) num(key string) int64 {
	n, _ := toInt(f[key])
	return n
}

// toInt reads an integer as decoded objects hold it.
func toInt(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case int:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), n == math.Trunc(n)
	}
	return 0, false
}

// add appends errors to a list. It stays out of line (as addInvalid and the
// field constructors do): inlined at each of the checks' many call sites,
// it would cost the wasm binary dearly.
//
//go:noinline
func add(list *field.ErrorList, errs ...*field.Error) { *list = append(*list, errs...) }

// addInvalid adds an Invalid error for value per message.
//
//go:noinline
func addInvalid(list *field.ErrorList, p *field.Path, value any, msgs []string) {
	for _, msg := range msgs {
		*list = append(*list, field.Invalid(p, value, msg))
	}
}

// sortedKeys are a map's keys in order: kube ranges over Go maps, in random
// order; kubeplay reports a map's errors in the order of its keys.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// The messages of apimachinery's validation helpers.
const (
	isNegativeErrorMsg = "must be greater than or equal to 0"
	fieldImmutable     = "field is immutable"
)

// nonNegative is ValidateNonnegativeField.
//
//go:noinline
func nonNegative(v int64, p *field.Path) field.ErrorList {
	if v < 0 {
		return field.ErrorList{field.Invalid(p, v, isNegativeErrorMsg)}
	}
	return nil
}

func inclusiveRange(lo, hi int) string {
	return "must be between " + strconv.Itoa(lo) + " and " + strconv.Itoa(hi) + ", inclusive"
}

// PortNumber checks a port number (1–65535).
func PortNumber(port int64) []string {
	if port >= 1 && port <= 65535 {
		return nil
	}
	return []string{inclusiveRange(1, 65535)}
}

// PortName checks a port's name: an IANA service name (IsValidPortName).
func PortName(port string) []string {
	var errs []string
	if len(port) > 15 {
		errs = append(errs, maxLen(15))
	}
	letter, charset := false, port != ""
	for i := 0; i < len(port); i++ {
		c := port[i]
		letter = letter || c >= 'a' && c <= 'z'
		charset = charset && (c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-')
	}
	if !charset {
		errs = append(errs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !letter {
		errs = append(errs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(port, "--") {
		errs = append(errs, "must not contain consecutive hyphens")
	}
	if port != "" && (port[0] == '-' || port[len(port)-1] == '-') {
		errs = append(errs, "must not begin or end with a hyphen")
	}
	return errs
}

// portNumOrName is ValidatePortNumOrName, for an int-or-string port.
func portNumOrName(v any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s, ok := v.(string); ok {
		addInvalid(&errs, p, s, PortName(s))
		return errs
	}
	n, _ := toInt(v)
	addInvalid(&errs, p, n, PortNumber(n))
	return errs
}

// configKey checks a ConfigMap's or Secret's key (IsConfigMapKey).
func configKey(key string) []string {
	var errs []string
	if len(key) > DNS1123SubdomainMaxLength {
		errs = append(errs, maxLen(DNS1123SubdomainMaxLength))
	}
	ok := key != ""
	for i := 0; i < len(key); i++ {
		c := key[i]
		ok = ok && (c == '-' || c == '.' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
	}
	if !ok {
		errs = append(errs, regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", "[-._a-zA-Z0-9]+", "key.name", "KEY_NAME", "key-name"))
	}
	switch {
	case key == ".":
		errs = append(errs, "must not be '.'")
	case key == "..":
		errs = append(errs, "must not be '..'")
	case strings.HasPrefix(key, ".."):
		errs = append(errs, "must not start with '..'")
	}
	return errs
}

// envVarName checks an environment variable's name as kube 1.32 does
// (RelaxedEnvironmentVariableValidation is on): printable ASCII but '='.
func envVarName(name string) []string {
	for _, r := range name {
		if r > 0x7e || r < 0x20 || r == '=' {
			return []string{"a valid environment variable name must consist only of printable ASCII characters other than '='"}
		}
	}
	return nil
}

// percent checks a percentage ("25%").
func percent(s string) []string {
	digits := strings.TrimSuffix(s, "%")
	ok := len(digits) > 0 && len(digits) == len(s)-1
	for i := 0; ok && i < len(digits); i++ {
		ok = digits[i] >= '0' && digits[i] <= '9'
	}
	if !ok {
		return []string{regexError("a valid percent string must be a numeric string followed by an ending '%'", "[0-9]+%", "1%", "93%")}
	}
	return nil
}

// Labels checks a map of labels as ValidateLabels does, keys in order.
func Labels(labels map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(labels) {
		addInvalid(&errs, p, k, QualifiedName(k))
		addInvalid(&errs, p, labels[k], LabelValue(labels[k]))
	}
	return errs
}

// oneOf is the usual check of an enumerated string: required, then one of
// valid.
//
//go:noinline
func oneOf(v string, p *field.Path, valid ...string) field.ErrorList {
	switch {
	case v == "":
		return field.ErrorList{field.Required(p, "")}
	case !slices.Contains(valid, v):
		return field.ErrorList{field.NotSupported(p, v, valid)}
	}
	return nil
}

// totalAnnotationSizeLimit is kube's limit on an object's annotations, keys
// and values together.
const totalAnnotationSizeLimit = 256 << 10

// Annotations checks metadata.annotations as ValidateAnnotations does: keys are
// qualified names (in any case), and all of them hold at most 256 KiB.
func Annotations(annotations map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	size := 0
	for _, k := range sortedKeys(annotations) {
		addInvalid(&errs, p, k, QualifiedName(strings.ToLower(k)))
		size += len(k) + len(annotations[k])
	}
	if size > totalAnnotationSizeLimit {
		errs = append(errs, field.TooLong(p, totalAnnotationSizeLimit))
	}
	return errs
}

// OwnerReferences checks metadata.ownerReferences as ValidateOwnerReferences
// does: each names its owner's apiVersion (with a version), kind, name and
// uid, no Event owns anything, and one at most is the controller. refs are
// the references as decoded from JSON.
func OwnerReferences(refs []map[string]any, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	firstController := ""
	for _, ref := range refs {
		r := fields(ref)
		apiVersion, kind := r.str("apiVersion"), r.str("kind")
		group, version := "", apiVersion
		if strings.Count(apiVersion, "/") > 1 {
			version = ""
		} else if g, v, ok := strings.Cut(apiVersion, "/"); ok {
			group, version = g, v
		}
		if version == "" {
			errs = append(errs, field.Invalid(p.Child("apiVersion"), apiVersion, "version must not be empty"))
		}
		if kind == "" {
			errs = append(errs, field.Invalid(p.Child("kind"), kind, "kind must not be empty"))
		}
		if r.str("name") == "" {
			errs = append(errs, field.Invalid(p.Child("name"), r.str("name"), "name must not be empty"))
		}
		if r.str("uid") == "" {
			errs = append(errs, field.Invalid(p.Child("uid"), r.str("uid"), "uid must not be empty"))
		}
		if group == "" && version == "v1" && kind == "Event" {
			errs = append(errs, field.Invalid(p, field.GoSyntax(ownerReferenceGoSyntax(r)), "/v1, Kind=Event is disallowed from being an owner"))
		}
		if ref["controller"] == true {
			if name := kind + "/" + r.str("name"); firstController == "" {
				firstController = name
			} else {
				all := make([]string, len(refs))
				for i, o := range refs {
					all[i] = ownerReferenceGoSyntax(o)
				}
				errs = append(errs, field.Invalid(p, field.GoSyntax("[]v1.OwnerReference{"+strings.Join(all, ", ")+"}"),
					fmt.Sprintf("Only one reference can have Controller set to true. Found \"true\" in references for %s and %s", firstController, name)))
			}
		}
	}
	return errs
}

// ownerReferenceGoSyntax is a reference as kube's messages print it (%#v of
// its Go type; kube prints the addresses of the booleans it points to,
// kubeplay prints their values).
func ownerReferenceGoSyntax(ref fields) string {
	boolPtr := func(key string) string {
		if b, ok := ref[key].(bool); ok {
			return fmt.Sprintf("(*bool)(%v)", b)
		}
		return "(*bool)(nil)"
	}
	return fmt.Sprintf("v1.OwnerReference{APIVersion:%q, Kind:%q, Name:%q, UID:%q, Controller:%s, BlockOwnerDeletion:%s}",
		ref.str("apiVersion"), ref.str("kind"), ref.str("name"), ref.str("uid"), boolPtr("controller"), boolPtr("blockOwnerDeletion"))
}

// Finalizers checks metadata.finalizers as ValidateFinalizers does:
// qualified names, and not both of the garbage collector's.
func Finalizers(finalizers []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range finalizers {
		addInvalid(&errs, p, f, QualifiedName(f))
	}
	if slices.Contains(finalizers, "orphan") && slices.Contains(finalizers, "foregroundDeletion") {
		errs = append(errs, field.Invalid(p, finalizers, "finalizer orphan and foregroundDeletion cannot be both set"))
	}
	return errs
}

// standardFinalizers are the finalizer names of kube's own that need no
// domain.
var standardFinalizers = []string{"kubernetes", "orphan", "foregroundDeletion"}

// KubeFinalizerNames checks the finalizers of a built-in kind's object as
// kube's core validation does beyond Finalizers: a name without a "/" must be
// one of kube's own.
func KubeFinalizerNames(finalizers []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, f := range finalizers {
		if !strings.Contains(f, "/") && !slices.Contains(standardFinalizers, f) {
			errs = append(errs, field.Invalid(p.Index(i), f, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}

// NoNewFinalizers checks that an update of an object being deleted adds no
// finalizer (ValidateNoNewFinalizers).
func NoNewFinalizers(finalizers, old []string, p *field.Path) field.ErrorList {
	var extra []string
	for _, f := range finalizers {
		if !slices.Contains(old, f) && !slices.Contains(extra, f) {
			extra = append(extra, f)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	slices.Sort(extra)
	return field.ErrorList{field.Forbidden(p, fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", extra))}
}

// MetadataContents checks what metadata holds for others to read: labels,
// annotations and owner references (what kube's ValidateObjectMeta and
// ValidateObjectMetaUpdate both check).
func MetadataContents(meta map[string]any) field.ErrorList {
	errs := Labels(object.StringMap(meta, "labels"), field.NewPath("metadata", "labels"))
	errs = append(errs, Annotations(object.StringMap(meta, "annotations"), field.NewPath("metadata", "annotations"))...)
	return append(errs, OwnerReferences(object.Objects(meta, "ownerReferences"), field.NewPath("metadata", "ownerReferences"))...)
}

// ObjectMeta checks a new object's metadata as kube's ValidateObjectMeta
// does: generateName by prefix (its trailing dash masked, as kube's name
// rules check a prefix) or by its own prefix rule when given, a name or
// generateName present, the name by validName, labels, annotations, owner
// references, finalizers (kube's own names only for built-in kinds).
func ObjectMeta(meta map[string]any, name string, validName, validPrefix func(string) []string, builtin bool) field.ErrorList {
	var errs field.ErrorList
	gen, _ := meta["generateName"].(string)
	if gen != "" {
		var msgs []string
		if validPrefix != nil {
			msgs = validPrefix(gen)
		} else {
			prefix := gen
			if len(prefix) > 1 && prefix[len(prefix)-1] == '-' {
				prefix = prefix[:len(prefix)-2] + "a"
			}
			msgs = validName(prefix)
		}
		for _, msg := range msgs {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "generateName"), gen, msg))
		}
	}
	if name == "" && gen == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
	}
	if name != "" {
		for _, msg := range validName(name) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, msg))
		}
	}
	errs = append(errs, MetadataContents(meta)...)
	finalizers := object.Strings(meta, "finalizers")
	errs = append(errs, Finalizers(finalizers, field.NewPath("metadata", "finalizers"))...)
	if !builtin {
		return errs // kube's core validation is for its own kinds
	}
	return append(errs, KubeFinalizerNames(finalizers, field.NewPath("metadata", "finalizers"))...)
}
