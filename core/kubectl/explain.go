package kubectl

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/spf13/pflag"
)

// This file owns `kubectl explain`: the resource's group-version document
// from OpenAPI v3 (/openapi/v3, then the document it names) rendered as
// kubectl 1.32's plaintext template renders it (KIND, FIELD, DESCRIPTION,
// FIELDS, --recursive), written here as Go: the template's word wrapping
// (mitchellh/go-wordwrap), indentation, type guesses and enums.

func init() {
	register("explain", func(fs *pflag.FlagSet) runFunc {
		recursive := fs.Bool("recursive", false, "When true, print the name of all the fields recursively.")
		apiVersion := fs.String("api-version", "", "Use given api-version (group/version) of the resource.")
		output := fs.String("output", "plaintext", "Format in which to render the schema. Valid values are: (plaintext, plaintext-openapiv2).")
		return func(c *Cmd, args []string) error {
			if len(args) == 0 {
				return errors.New(`You must specify the type of resource to explain. Use "kubectl api-resources" for a complete list of supported resources.`)
			}
			if len(args) > 1 {
				return errors.New("We accept only this format: explain RESOURCE")
			}
			if *output != "plaintext" {
				return fmt.Errorf("unrecognized format: %s", *output)
			}
			return c.explain(args[0], *apiVersion, *recursive)
		}
	})
}

// printVerbatim prints msg as kubectl's CheckErr prints errors it knows
// (a resource the server does not have): without "error: ".
func (c *Cmd) printVerbatim(err error) error {
	if msg, ok := transportText(err); ok {
		fmt.Fprintln(c.Stderr, msg)
		return &exitError{code: 1, err: errSilent}
	}
	fmt.Fprintln(c.Stderr, err.Error())
	return &exitError{code: 1, err: errSilent}
}

func (c *Cmd) explain(arg, apiVersion string, recursive bool) error {
	first, rest, _ := strings.Cut(arg, ".")
	r, err := c.Resolve(first)
	if err != nil {
		return c.printVerbatim(err)
	}
	if r.Group != "" && strings.HasPrefix(arg, r.Resource+"."+r.Group) {
		rest = strings.TrimPrefix(strings.TrimPrefix(arg, r.Resource+"."+r.Group), ".")
	}
	var fields []string
	if rest != "" {
		fields = strings.Split(rest, ".")
	}
	group, version := r.Group, r.Version
	if apiVersion != "" {
		group, version, _ = strings.Cut(apiVersion, "/")
		if version == "" {
			group, version = "", group
		}
	}
	apiV := version
	if group != "" {
		apiV = group + "/" + version
	}
	// openapi.go's read: the index, then the group version's document,
	// which the session keeps as kubectl's HTTP cache does.
	data, err := c.openAPIDocument(apiV)
	if err != nil {
		return err
	}
	if data == nil {
		return fmt.Errorf("couldn't find resource for \"%s/%s, Resource=%s\"", group, version, r.Resource)
	}
	doc, err := decodeObject(data)
	if err != nil {
		return fmt.Errorf("failed to fetch openapi schema for %s: %w", openAPIPath(apiV), err)
	}
	e := &explainer{doc: doc, recursive: recursive}
	out, err := e.render(group, version, r.Resource, fields)
	c.Stdout.Write([]byte(out))
	return err
}

// explainer renders one OpenAPI v3 document as kubectl's plaintext template.
type explainer struct {
	doc       map[string]any
	recursive bool
}

// render is the template's top level: the GVK the resource's paths name,
// then the schema of that GVK. What it wrote before an error is printed
// too, as the template's Execute leaves it.
func (e *explainer) render(group, version, resource string, fields []string) (string, error) {
	prefix := "/api"
	if group != "" {
		prefix = "/apis/" + group
	}
	var gvk any
	for _, p := range []string{
		prefix + "/" + version + "/" + resource,
		prefix + "/" + version + "/" + resource + "/{name}",
		prefix + "/" + version + "/namespaces/{namespace}/" + resource,
		prefix + "/" + version + "/namespaces/{namespace}/" + resource + "/{name}",
	} {
		el := obj(e.doc, "paths", p)
		if el == nil {
			continue
		}
		for _, m := range []string{"get", "post", "put", "patch", "delete"} {
			op := obj(el, m)
			if op == nil {
				continue
			}
			if gvk = op["x-kubernetes-group-version-kind"]; truthy(gvk) {
				break
			}
		}
	}
	if !truthy(gvk) {
		return "", fmt.Errorf("error: GVR (%s/%s, Resource=%s) not found in OpenAPI schema", group, version, resource)
	}
	var b strings.Builder
	if g := stringAt(gvk, "group"); g != "" {
		b.WriteString("GROUP:      " + g + "\n")
	}
	b.WriteString("KIND:       " + stringAt(gvk, "kind") + "\n")
	b.WriteString("VERSION:    " + stringAt(gvk, "version") + "\n\n")
	schemas := obj(e.doc, "components", "schemas")
	found := false
	for _, name := range sortedKeys(schemas) {
		s := obj(schemas, name)
		if !containsValue(s["x-kubernetes-group-version-kind"], gvk) {
			continue
		}
		found = true
		out := e.output(s, nil, fields)
		if out == "" {
			return b.String(), fmt.Errorf("error: field %q does not exist", fields[len(fields)-1])
		}
		b.WriteString(out)
		break
	}
	if !found {
		return b.String(), fmt.Errorf("error: GVK %v not found in OpenAPI schema", gvkString(gvk))
	}
	b.WriteString("\n")
	return b.String(), nil
}

// gvkString is a GVK map as %v prints it.
func gvkString(gvk any) string {
	m, _ := gvk.(map[string]any)
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+":"+stringAt(m, k))
	}
	return "map[" + strings.Join(parts, " ") + "]"
}

// truthy is a value as a template's if sees it.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case bool:
		return x
	case map[string]any:
		return len(x) > 0
	case []any:
		return len(x) > 0
	}
	return true
}

// containsValue says whether list holds v (the template's contains).
func containsValue(list, v any) bool {
	l, _ := list.([]any)
	for _, x := range l {
		if reflect.DeepEqual(x, v) {
			return true
		}
	}
	return false
}

// resolve is the schema a "#/components/schemas/..." reference names; nil
// for none.
func (e *explainer) resolve(ref any) map[string]any {
	s, ok := ref.(string)
	if !ok || !strings.HasPrefix(s, "#") {
		return nil
	}
	cur := e.doc
	for _, k := range strings.Split(s[1:], "/") {
		if k == "" {
			continue
		}
		next, ok := cur[k].(map[string]any)
		if !ok {
			return nil
		}
		cur = next
	}
	return cur
}

// or is the template's or of a resolved reference and the schema itself.
func (e *explainer) resolved(s map[string]any) map[string]any {
	if r := e.resolve(s["$ref"]); len(r) > 0 {
		return r
	}
	return s
}

// mapSchema is additionalProperties when it is a schema (not a bool).
func mapSchema(s map[string]any) map[string]any {
	m, _ := s["additionalProperties"].(map[string]any)
	if len(m) == 0 {
		return nil
	}
	return m
}

// output follows fields down the schema, then prints the description and
// the fields of where it ends (the template's "output").
func (e *explainer) output(s map[string]any, history map[string]bool, fields []string) string {
	ref := stringAt(s, "$ref")
	next := copyHistory(history, ref)
	res := e.resolved(s)
	switch {
	case len(fields) == 0:
		var b strings.Builder
		desc := e.description(s)
		if desc == "" {
			desc = "<empty>"
		}
		b.WriteString("DESCRIPTION:\n" + indent(4, wrap(76, desc)) + "\n")
		if fl := e.fieldList(res, 1, nil); fl != "" {
			b.WriteString("FIELDS:\n" + fl)
		}
		return b.String()
	case ref != "" && history[ref]:
		return ""
	case obj(res, "properties", fields[0]) != nil:
		sub := obj(res, "properties", fields[0])
		var b strings.Builder
		if len(fields) == 1 {
			b.WriteString("FIELD: " + fields[0] + " <" + e.typeGuess(sub) + ">\n")
			b.WriteString(e.enum(sub, true, -1, 0) + "\n\n")
		}
		b.WriteString(e.output(sub, nil, fields[1:]))
		return b.String()
	case obj(res, "items") != nil:
		return e.output(obj(res, "items"), next, fields)
	case mapSchema(res) != nil:
		return e.output(mapSchema(res), next, fields)
	}
	for _, sub := range list(res, "allOf") {
		if m, ok := sub.(map[string]any); ok {
			if out := e.output(m, next, fields); out != "" {
				return out
			}
		}
	}
	return ""
}

func copyHistory(h map[string]bool, ref string) map[string]bool {
	out := make(map[string]bool, len(h)+1)
	for k, v := range h {
		out[k] = v
	}
	out[ref] = true
	return out
}

// description is a schema's description and those of its allOf, items and
// map values, each ending a line.
func (e *explainer) description(s map[string]any) string {
	res := e.resolved(s)
	if len(res) == 0 {
		return ""
	}
	var b strings.Builder
	if d := stringAt(res, "description"); d != "" {
		b.WriteString(d + "\n")
	}
	for _, sub := range list(res, "allOf") {
		if m, ok := sub.(map[string]any); ok {
			b.WriteString(e.description(m))
		}
	}
	if items := obj(res, "items"); items != nil {
		b.WriteString(e.description(items))
	}
	if m := mapSchema(res); m != nil {
		b.WriteString(e.description(m))
	}
	return b.String()
}

// fieldList prints a schema's fields in name order, and with --recursive
// their fields below them, a reference met before on the way not again.
func (e *explainer) fieldList(s map[string]any, level int, history map[string]bool) string {
	ref := stringAt(s, "$ref")
	if ref != "" && history[ref] {
		return ""
	}
	next := copyHistory(history, ref)
	res := e.resolved(s)
	var b strings.Builder
	props := obj(res, "properties")
	for _, name := range sortedKeys(props) {
		b.WriteString(e.fieldDetail(name, res, level))
		if e.recursive {
			b.WriteString(e.fieldList(obj(props, name), level+1, next))
		}
	}
	for _, sub := range list(res, "allOf") {
		if m, ok := sub.(map[string]any); ok {
			b.WriteString(e.fieldList(m, level, next))
		}
	}
	if items := obj(res, "items"); items != nil {
		b.WriteString(e.fieldList(items, level, next))
	}
	if m := mapSchema(res); m != nil {
		b.WriteString(e.fieldList(m, level, next))
	}
	return b.String()
}

// fieldDetail is one field's line (name, type, -required-, enum) and,
// without --recursive, its description.
func (e *explainer) fieldDetail(name string, parent map[string]any, level int) string {
	n := level * 2
	fs := obj(parent, "properties", name)
	var b strings.Builder
	b.WriteString(indent(n, name) + "\t<" + e.typeGuess(fs) + ">")
	if containsValue(parent["required"], name) {
		b.WriteString(" -required-")
	}
	b.WriteString(e.enum(fs, false, 4, n))
	b.WriteString("\n")
	if !e.recursive {
		desc := stringAt(fs, "description")
		if desc == "" {
			desc = "<no description>"
		}
		b.WriteString(indent(n+2, wrap(78-n, desc)) + "\n\n")
	}
	return b.String()
}

// typeGuess is the type explain shows: string, integer, []Container,
// map[string]string, the referenced kind's name, Object.
func (e *explainer) typeGuess(s map[string]any) string {
	switch {
	case obj(s, "items") != nil:
		return "[]" + e.typeGuess(obj(s, "items"))
	case mapSchema(s) != nil:
		return "map[string]" + e.typeGuess(mapSchema(s))
	case len(list(s, "allOf")) == 1 && len(obj(s, "properties")) == 0:
		m, _ := list(s, "allOf")[0].(map[string]any)
		return e.typeGuess(m)
	case stringAt(s, "$ref") != "":
		ref := stringAt(s, "$ref")
		rs := e.resolve(ref)
		if len(rs) == 0 || stringAt(rs, "type") == "" || stringAt(rs, "type") == "object" {
			name := ref[strings.LastIndex(ref, "/")+1:]
			if name = name[strings.LastIndex(name, ".")+1:]; name != "" {
				return name
			}
			return "Object"
		}
		return stringAt(rs, "type")
	}
	if t := stringAt(s, "type"); t != "" && t != "object" {
		return t
	}
	return "Object"
}

// enum is a field's enum: "\n  enum: a, b, c, d, ...." in a field list,
// "ENUM:\n    a\n    b" in a FIELD's header; "" when it has none.
func (e *explainer) enum(s map[string]any, long bool, limit, indentAmount int) string {
	values := list(s, "enum")
	if len(values) == 0 {
		return ""
	}
	var b strings.Builder
	if long {
		b.WriteString("ENUM:")
	} else {
		b.WriteString("\n" + strings.Repeat(" ", indentAmount) + "enum: ")
	}
	for i, v := range values {
		if limit > -1 && i >= limit {
			b.WriteString(", ....")
			break
		}
		if long {
			b.WriteString("\n    ")
		} else if i > 0 {
			b.WriteString(", ")
		}
		if s, ok := v.(string); ok && s == "" {
			b.WriteString(`""`)
		} else {
			fmt.Fprint(&b, plain(v))
		}
	}
	return b.String()
}

// indent prefixes s and each of its lines with n spaces.
func indent(n int, s string) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

// wrap breaks s into lines of at most lim characters at spaces, words
// longer than lim kept whole (mitchellh/go-wordwrap's WrapString).
func wrap(lim int, s string) string {
	var buf, word, space bytes.Buffer
	current, wordLen, spaceLen := 0, 0, 0
	// flush writes the pending spaces and word.
	flush := func() {
		space.WriteTo(&buf)
		spaceLen = 0
		word.WriteTo(&buf)
		wordLen = 0
	}
	for _, r := range s {
		switch {
		case r == '\n':
			if word.Len() == 0 {
				if current+spaceLen > lim {
					current = 0
				} else {
					space.WriteTo(&buf)
				}
				space.Reset()
				spaceLen = 0
			} else {
				flush()
			}
			buf.WriteRune(r)
			current = 0
		case unicode.IsSpace(r) && r != 0xA0:
			if space.Len() == 0 || word.Len() > 0 {
				current += spaceLen + wordLen
				flush()
			}
			space.WriteRune(r)
			spaceLen++
		default:
			word.WriteRune(r)
			wordLen++
			if current+wordLen+spaceLen > lim && wordLen < lim {
				buf.WriteByte('\n')
				current = 0
				space.Reset()
				spaceLen = 0
			}
		}
	}
	if word.Len() == 0 {
		if current+spaceLen <= lim {
			space.WriteTo(&buf)
		}
	} else {
		space.WriteTo(&buf)
		word.WriteTo(&buf)
	}
	return buf.String()
}
