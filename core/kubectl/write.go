package kubectl

// This file owns what kubectl's commands that change objects share: a
// manifest mapped to its resource and namespace, the --dry-run and -o flags,
// the line each object's outcome prints ("deployment.apps/web created"),
// errors named by their file ("error when creating \"f.yaml\": ..."), and
// the errors of many objects printed together, as kubectl's CheckErr prints
// an aggregate and an Invalid Status.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// mapped is a manifest mapped to its resource.
type mapped struct {
	manifest
	Resource  Resource
	Namespace string // "" for a cluster-scoped resource
	Name      string
}

// mapManifest validates a manifest as kubectl does before sending it (the
// OpenAPI document of its group version read, unless --validate=ignore), maps its kind to a resource,
// and sets its namespace: the object's own, else -n's or the context's; an
// object's namespace other than an explicit -n is an error.
func (c *Cmd) mapManifest(m manifest, v validation) (mapped, error) {
	apiVersion, _ := m.Object["apiVersion"].(string)
	kind, _ := m.Object["kind"].(string)
	validate := func() error { return c.validateKind(apiVersion, kind) }
	switch {
	case v == validateIgnore:
		validate = func() error { return nil }
	case m.InList:
		validate = c.readOpenAPIV2
	}
	if err := validate(); err != nil {
		return mapped{}, err
	}
	return c.mapObject(m)
}

// mapObject maps a manifest without validating it (delete's).
func (c *Cmd) mapObject(m manifest) (mapped, error) {
	apiVersion, _ := m.Object["apiVersion"].(string)
	kind, _ := m.Object["kind"].(string)
	meta, _ := m.Object["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	ns, _ := meta["namespace"].(string)
	r, err := c.ResourceFor(apiVersion, kind)
	if err != nil {
		var nk *NoKindMatchError
		var te *TransportError
		if errors.As(err, &te) {
			// The builder's mapping error, its cause's text only (kubectl
			// prints no refusal line for it).
			return mapped{}, fmt.Errorf("unable to recognize %q: %s", m.Source, te)
		}
		if errors.As(err, &nk) {
			return mapped{}, fmt.Errorf("resource mapping not found for name: %q namespace: %q from %q: %v\nensure CRDs are installed first", name, ns, m.Source, err)
		}
		return mapped{}, err
	}
	o := mapped{manifest: m, Resource: r, Name: name}
	if r.Namespaced {
		switch {
		case ns == "":
			ns = c.NamespaceOrDefault()
			if meta == nil {
				meta = map[string]any{}
				m.Object["metadata"] = meta
			}
			meta["namespace"] = ns
		case c.Namespace != "" && ns != c.Namespace:
			return mapped{}, fmt.Errorf("the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.", ns, c.Namespace, ns)
		}
		o.Namespace = ns
	}
	return o, nil
}

// kindName is how kubectl names an object's type in its messages and -o
// name: the kind in lower case, with its group ("deployment.apps").
func (r Resource) kindName() string {
	k := strings.ToLower(r.Kind)
	if r.Group != "" {
		k += "." + r.Group
	}
	return k
}

// dryRun is --dry-run's strategy.
type dryRun string

const (
	dryRunNone   dryRun = "none"
	dryRunClient dryRun = "client"
	dryRunServer dryRun = "server"
)

// addDryRun declares --dry-run; the returned func reads it, as kubectl's
// GetDryRunStrategy (a bare --dry-run is client, as is --dry-run=true).
func addDryRun(fs *pflag.FlagSet) func() (dryRun, error) {
	v := fs.String("dry-run", "none", `Must be "none", "server", or "client". If client strategy, only print the object that would be sent, without sending it. If server strategy, submit server-side request without persisting the resource.`)
	fs.Lookup("dry-run").NoOptDefVal = "unchanged"
	return func() (dryRun, error) {
		switch *v {
		case "unchanged", "client", "true":
			return dryRunClient, nil
		case "server":
			return dryRunServer, nil
		case "none", "false":
			return dryRunNone, nil
		}
		return dryRunNone, fmt.Errorf(`Invalid dry-run value (%v). Must be "none", "server", or "client".`, *v)
	}
}

// validation is --validate's field validation directive for the server
// ("" where the request takes none).
type validation string

const (
	validateStrict validation = "Strict"
	validateWarn   validation = "Warn"
	validateIgnore validation = "Ignore"
)

// addValidate declares --validate; the returned func reads it.
func addValidate(fs *pflag.FlagSet) func() (validation, error) {
	v := fs.String("validate", "strict", `Must be one of: strict (or true), warn, ignore (or false).
		"true" or "strict" will use a schema to validate the input and fail the request if invalid. It will perform server side validation if ServerSideFieldValidation is enabled on the api-server, but will fall back to less reliable client-side validation if not.
		"warn" will warn about unknown or duplicate fields without blocking the request if server-side field validation is enabled on the API server, and behave as "ignore" otherwise.
		"false" or "ignore" will not perform any schema validation, silently dropping any unknown or duplicate fields.`)
	fs.Lookup("validate").NoOptDefVal = "strict"
	return func() (validation, error) {
		switch strings.ToLower(*v) {
		case "strict", "true":
			return validateStrict, nil
		case "warn":
			return validateWarn, nil
		case "ignore", "false":
			return validateIgnore, nil
		}
		return "", fmt.Errorf("invalid - validate option %q; must be one of: strict (or true), warn, ignore (or false)", *v)
	}
}

// query is a write's query: dryRun=All on the server's dry run, the field
// manager, and the field validation directive where kubectl sends one.
func (d dryRun) query(fieldManager string, v validation) url.Values {
	q := url.Values{}
	if d == dryRunServer {
		q.Set("dryRun", "All")
	}
	if fieldManager != "" {
		q.Set("fieldManager", fieldManager)
	}
	if v != "" {
		q.Set("fieldValidation", string(v))
	}
	return q
}

// suffix is what the outcome line adds on a dry run.
func (d dryRun) suffix() string {
	switch d {
	case dryRunClient:
		return " (dry run)"
	case dryRunServer:
		return " (server dry run)"
	}
	return ""
}

// printResult prints one object's outcome: "kind.group/name verb", or the
// object as -o asks (printer.go's printers). The kind is the object's own
// when it names one (a subresource's: scale.autoscaling), else the
// resource's. An object kubectl builds itself (ordered) prints as JSON in
// its Go type's field order.
func (c *Cmd) printResult(output *printFlags, r Resource, obj any, name, verb string, dry dryRun) error {
	if c.resultPrinter == nil && output.output != "" {
		var err error
		if c.resultPrinter, err = output.printer(); err != nil {
			return err
		}
	}
	p := c.resultPrinter
	if p == nil {
		kind := r.kindName()
		if m, ok := obj.(map[string]any); ok {
			if k := str(m, "kind"); k != "" {
				kind = strings.ToLower(k)
				if g, _, ok := strings.Cut(str(m, "apiVersion"), "/"); ok {
					kind += "." + g
				}
			}
		}
		fmt.Fprintf(c.Stdout, "%s/%s %s%s\n", kind, name, verb, dry.suffix())
		return nil
	}
	if typed, ok := obj.(ordered); ok && p.format == "json" {
		data, err := json.MarshalIndent(typed, "", "    ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(c.Stdout, "%s\n", data)
		return err
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	m, err := decodeObject(data)
	if err != nil {
		return err
	}
	return p.print(c.Stdout, m)
}

// withSource names the file an object came from in its error, as
// kubectl's AddSourceToErr: "error when creating \"f.yaml\": ...".
func withSource(verb, source string, err error) error {
	if err == nil || source == "" {
		return err
	}
	var se *StatusError
	if errors.As(err, &se) {
		named := *se
		named.Status.Message = fmt.Sprintf("error when %s %q: %v", verb, source, se.Status.Message)
		return &named
	}
	return fmt.Errorf("error when %s %q: %v", verb, source, err)
}

// errorList is the errors of many objects, which kubectl prints one a line
// after the others' outcomes (an aggregate); one error alone prints as
// itself.
type errorList []error

func (l errorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// reduce is nil, the one error, or the list.
func (l errorList) reduce() error {
	switch len(l) {
	case 0:
		return nil
	case 1:
		return l[0]
	}
	return l
}

// errorText is what kubectl's CheckErr prints for err (its final newline
// left to the caller when it has none).
func errorText(err error) string {
	var list errorList
	if errors.As(err, &list) {
		// kubectl's MultipleErrors: each message and a newline.
		var b strings.Builder
		for _, e := range list {
			b.WriteString(messageFor(e) + "\n")
		}
		return b.String()
	}
	var se *StatusError
	if errors.As(err, &se) && se.Status.Reason == "Invalid" {
		return se.invalidText()
	}
	if errors.As(err, &se) {
		return se.kubectlText()
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "error: ") {
		msg = "error: " + msg
	}
	return msg
}

// messageFor is an error's line within an aggregate: a Status as "Error
// from server (Reason): ...", any other error as itself.
func messageFor(err error) string {
	var se *StatusError
	if errors.As(err, &se) {
		return se.kubectlText()
	}
	return err.Error()
}

// invalidText is how kubectl prints an Invalid Status alone: "The Kind
// \"name\" is invalid: " and its causes, one a line when more than one.
func (e *StatusError) invalidText() string {
	d := e.Status.Details
	s := "The request is invalid"
	if d == nil {
		if e.Status.Message != "" {
			s += ": " + e.Status.Message
		}
		return s
	}
	if d.Kind != "" || d.Name != "" {
		s = fmt.Sprintf("The %s %q is invalid", d.Kind, d.Name)
	} else if e.Status.Message != "" && len(d.Causes) == 0 {
		s += ": " + e.Status.Message
	}
	if len(d.Causes) == 0 {
		return s
	}
	var causes []string
	seen := map[string]bool{}
	for _, c := range d.Causes {
		msg := c.Field + ": " + c.Message
		if !seen[msg] {
			seen[msg] = true
			causes = append(causes, msg)
		}
	}
	if len(causes) == 1 {
		return s + ": " + causes[0]
	}
	return s + ": \n* " + strings.Join(causes, "\n* ")
}

// requireFlags is cobra's check of required flags, as kubectl reports it.
func requireFlags(c *Cmd, names ...string) error {
	var missing []string
	for _, n := range names {
		if !c.fs.Changed(n) {
			missing = append(missing, `"`+n+`"`)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	fmt.Fprintf(c.Stderr, "E%s %7d run.go:72] \"command failed\" err=%q\n", time.Now().Format("0102 15:04:05.000000"), os.Getpid(),
		"required flag(s) "+strings.Join(missing, ", ")+" not set")
	return &exitError{code: 1, err: errSilent}
}
