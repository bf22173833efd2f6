package kubectl

// This file owns -o: kubectl's printers for objects (yaml, json, name,
// jsonpath, jsonpath-as-json, jsonpath-file, go-template and its file,
// custom-columns, custom-columns-file), their error texts, and the List kubectl wraps
// several objects in. The table printer (no -o, -o wide) is table.go's.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"kubeplay/core/jsonpath"
	"kubeplay/core/object"
)

// Object is an API object as kubectl's unstructured client holds it:
// decoded from JSON with whole numbers as int64, others as float64.
type Object = object.Object

// str is the string at path in obj ("" if absent or not a string).
func str(obj Object, path ...string) string { return object.String(object.Path(obj, path...)) }

// listOf is kubectl's List of objects, as -o yaml|json print several.
func listOf(items []Object) Object {
	list := make([]any, len(items))
	for i, it := range items {
		list[i] = it
	}
	return Object{"apiVersion": "v1", "items": list, "kind": "List", "metadata": Object{"resourceVersion": ""}}
}

// printer prints objects in one of -o's formats.
type printer struct {
	format    string // json, yaml, name, jsonpath, custom-columns
	jp        *jsonpath.Template
	jpOptions jsonpath.Options
	tmpl      *goTemplate
	template  string
	columns   []customColumn
	noHeaders bool
	// stripManagedFields leaves metadata.managedFields out of json and
	// yaml, as kubectl does unless --show-managed-fields.
	stripManagedFields bool
	printed            int
}

type customColumn struct {
	header string
	jp     *jsonpath.Template
}

// printerFormats are the formats every command that prints objects
// accepts; tableFormats are get's besides.
var (
	printerFormats = []string{"go-template", "go-template-file", "json", "jsonpath", "jsonpath-as-json", "jsonpath-file", "name", "template", "templatefile", "yaml"}
	tableFormats   = []string{"custom-columns", "custom-columns-file", "wide"}
)

// errNoPrinter is kubectl's NoCompatiblePrinterError.
func errNoPrinter(output string, table bool) error {
	formats := printerFormats
	if table {
		formats = append(append([]string(nil), formats...), tableFormats...)
	}
	sort.Strings(formats)
	return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: %s", output, strings.Join(formats, ","))
}

// printFlags are -o and the flags that go with it.
type printFlags struct {
	output, template  string
	noHeaders         bool
	allowMissingKeys  bool
	showManagedFields bool
	// table: the command also prints tables (get): -o wide and
	// custom-columns.
	table bool
}

// addPrintFlags declares -o, --template, --allow-missing-template-keys and
// --show-managed-fields.
func addPrintFlags(fs *pflag.FlagSet, table bool) *printFlags {
	f := &printFlags{table: table}
	usage := "Output format. One of: (json, yaml, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file)."
	if table {
		usage = "Output format. One of: (json, yaml, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file, custom-columns, custom-columns-file, wide). See custom columns [https://kubernetes.io/docs/reference/kubectl/#custom-columns], golang template [http://golang.org/pkg/text/template/#pkg-overview] and jsonpath template [https://kubernetes.io/docs/reference/kubectl/jsonpath/]."
	}
	fs.StringVarP(&f.output, "output", "o", "", usage)
	fs.StringVar(&f.template, "template", "", "Template string or path to template file to use when -o=go-template, -o=go-template-file. The template format is golang templates [http://golang.org/pkg/text/template/#pkg-overview].")
	fs.BoolVar(&f.allowMissingKeys, "allow-missing-template-keys", true, "If true, ignore any errors in templates when a field or map key is missing in the template. Only applies to golang and jsonpath output formats.")
	fs.BoolVar(&f.showManagedFields, "show-managed-fields", false, "If true, keep the managedFields when printing objects in JSON or YAML format.")
	return f
}

// serverPrint says whether kubectl keeps --server-print for -o: it turns
// it off for yaml, json, jsonpath and custom-columns.
func (f *printFlags) serverPrint() bool {
	o := f.output
	return !(strings.Contains(o, "custom-columns") || o == "yaml" || strings.Contains(o, "json"))
}

// printer is the printer -o asks for; nil for the table itself ("" or
// "wide").
func (f *printFlags) printer() (*printer, error) {
	output := f.output
	if output == "" && f.template != "" {
		output = "go-template"
	}
	name, arg, hasArg := strings.Cut(output, "=")
	if f.template != "" && (name == "jsonpath" || name == "jsonpath-file" || name == "jsonpath-as-json" ||
		name == "go-template" || name == "go-template-file" || name == "template" || name == "templatefile") {
		arg, hasArg = f.template, true
	}
	switch {
	case output == "" || output == "wide" && f.table:
		return nil, nil
	case !hasArg && (output == "json" || output == "yaml" || output == "name"):
		return &printer{format: output, stripManagedFields: output != "name" && !f.showManagedFields}, nil
	case name == "jsonpath" || name == "jsonpath-file" || name == "jsonpath-as-json":
		if arg == "" {
			return nil, errors.New("template format specified but no template given")
		}
		if name == "jsonpath-file" {
			data, err := os.ReadFile(arg)
			if err != nil {
				return nil, fmt.Errorf("error reading --template %s, %v", arg, err)
			}
			arg = string(data)
		}
		jp, err := jsonpath.Parse(arg)
		if err != nil {
			return nil, fmt.Errorf("error parsing jsonpath %s, %v", arg, err)
		}
		opts := jsonpath.Options{AllowMissingKeys: f.allowMissingKeys, OutputJSON: name == "jsonpath-as-json"}
		return &printer{format: "jsonpath", jp: jp, jpOptions: opts, template: arg}, nil
	case f.table && (name == "custom-columns" || name == "custom-columns-file"):
		if name == "custom-columns-file" {
			if arg == "" {
				return nil, errors.New("custom-columns-file format specified but no custom columns file given")
			}
			data, err := os.ReadFile(arg)
			if err != nil {
				return nil, fmt.Errorf("error reading template %s, %v\n", arg, err)
			}
			return customColumnsFromFile(string(data), f.noHeaders)
		}
		return customColumnsFromSpec(arg, f.noHeaders)
	case name == "go-template" || name == "go-template-file" || name == "template" || name == "templatefile":
		if arg == "" {
			return nil, errors.New("template format specified but no template given")
		}
		if name == "go-template-file" || name == "templatefile" {
			data, err := os.ReadFile(arg)
			if err != nil {
				return nil, fmt.Errorf("error reading --template %s, %v\n", arg, err)
			}
			arg = string(data)
		}
		t, err := parseGoTemplate(arg)
		if err != nil {
			return nil, fmt.Errorf("error parsing template %s, %v\n", arg, err)
		}
		t.missingKeyError = !f.allowMissingKeys
		return &printer{format: "go-template", tmpl: t, template: arg}, nil
	}
	return nil, errNoPrinter(output, f.table)
}

var relaxedJSONPathRe = regexp.MustCompile(`^\{\.?([^{}]+)\}$|^\.?([^{}]+)$`)

// relaxedJSONPath is kubectl's RelaxedJSONPathExpression: "a.b", ".a.b",
// "{a.b}" and "{.a.b}" all mean "{.a.b}".
func relaxedJSONPath(expr string) (string, error) {
	if expr == "" {
		return "", nil
	}
	m := relaxedJSONPathRe.FindStringSubmatch(expr)
	if m == nil {
		return "", errors.New("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'")
	}
	if m[1] != "" {
		return "{." + m[1] + "}", nil
	}
	return "{." + m[2] + "}", nil
}

func customColumnsFromSpec(spec string, noHeaders bool) (*printer, error) {
	if spec == "" {
		return nil, errors.New("custom-columns format specified but no custom columns given")
	}
	p := &printer{format: "custom-columns", noHeaders: noHeaders}
	for _, part := range strings.Split(spec, ",") {
		header, path, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("unexpected custom-columns spec: %s, expected <header>:<json-path-expr>", part)
		}
		if err := p.addColumn(header, path); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// customColumnsFromFile reads kubectl's custom-columns file: a line of
// headers and a line of paths.
func customColumnsFromFile(text string, noHeaders bool) (*printer, error) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 2 {
		return nil, fmt.Errorf("unexpected template, expected 2 lines, got %d", len(lines))
	}
	headers, paths := strings.Fields(lines[0]), strings.Fields(lines[1])
	if len(headers) != len(paths) {
		return nil, fmt.Errorf("number of headers (%d) and field specifications (%d) don't match", len(headers), len(paths))
	}
	p := &printer{format: "custom-columns", noHeaders: noHeaders}
	for i := range headers {
		if err := p.addColumn(headers[i], paths[i]); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *printer) addColumn(header, path string) error {
	spec, err := relaxedJSONPath(path)
	if err != nil {
		return err
	}
	jp, err := jsonpath.Parse(spec)
	if err != nil {
		return err
	}
	p.columns = append(p.columns, customColumn{header: header, jp: jp})
	return nil
}

// print prints obj (an object, or a List whose items custom-columns and
// name print one by one).
func (p *printer) print(w io.Writer, obj Object) error {
	defer func() { p.printed++ }()
	if p.stripManagedFields {
		obj = withoutManagedFields(obj)
	}
	switch p.format {
	case "json":
		data, err := json.MarshalIndent(obj, "", "    ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(data, '\n'))
		return err
	case "yaml":
		if p.printed > 0 {
			io.WriteString(w, "---\n")
		}
		data, err := toYAML(obj)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	case "name":
		for _, o := range listItems(obj) {
			io.WriteString(w, objectName(o)+"\n")
		}
		return nil
	case "jsonpath":
		var buf bytes.Buffer
		if err := p.jp.Execute(&buf, obj, p.jpOptions); err != nil {
			var dbg bytes.Buffer
			fmt.Fprintf(&dbg, "Error executing template: %v. Printing more information for debugging the template:\n", err)
			fmt.Fprintf(&dbg, "\ttemplate was:\n\t\t%v\n", p.template)
			fmt.Fprintf(&dbg, "\tobject given to jsonpath engine was:\n\t\t%#v\n\n", obj)
			return fmt.Errorf("error executing jsonpath %q: %v\n", p.template, dbg.String())
		}
		_, err := w.Write(buf.Bytes())
		return err
	case "go-template":
		var out strings.Builder
		err := p.tmpl.execute(&out, obj)
		io.WriteString(w, out.String())
		if err != nil {
			raw, _ := json.Marshal(obj)
			fmt.Fprintf(w, "Error executing template: %v. Printing more information for debugging the template:\n", err)
			fmt.Fprintf(w, "\ttemplate was:\n\t\t%v\n", p.template)
			fmt.Fprintf(w, "\traw data was:\n\t\t%v\n", string(raw))
			fmt.Fprintf(w, "\tobject given to template engine was:\n\t\t%+v\n\n", obj)
			return fmt.Errorf("error executing template %q: %v", p.template, err)
		}
		return nil
	case "custom-columns":
		tw := newTabWriter(w)
		if !p.noHeaders && p.printed == 0 {
			headers := make([]string, len(p.columns))
			for i, c := range p.columns {
				headers[i] = c.header
			}
			tw.WriteString(strings.Join(headers, "\t") + "\n")
		}
		for _, o := range listItems(obj) {
			cells := make([]string, len(p.columns))
			for i, c := range p.columns {
				cell, err := c.value(o)
				if err != nil {
					return err
				}
				cells[i] = cell
			}
			tw.WriteString(strings.Join(cells, "\t") + "\n")
		}
		return tw.Flush()
	}
	return nil
}

// value is a custom column's cell for obj: its values joined by commas,
// "<none>" for none.
func (c customColumn) value(obj Object) (string, error) {
	results, err := c.jp.FindResults(obj, true)
	if err != nil {
		return "", err
	}
	var vals []string
	if len(results) == 0 || len(results[0]) == 0 {
		vals = append(vals, "<none>")
	}
	for _, rs := range results {
		for _, r := range rs {
			vals = append(vals, escapeTerminal(fmt.Sprint(r)))
		}
	}
	return strings.Join(vals, ","), nil
}

var terminalEscaper = strings.NewReplacer("\x1b", "^[", "\r", `\r`)

// escapeTerminal is kubectl's EscapeTerminal: what the server sends cannot
// drive the terminal.
func escapeTerminal(s string) string { return terminalEscaper.Replace(s) }

// listItems are a List's items, or obj alone.
func listItems(obj Object) []Object {
	items, ok := obj["items"].([]any)
	if !ok || !strings.HasSuffix(str(obj, "kind"), "List") {
		return []Object{obj}
	}
	out := make([]Object, 0, len(items))
	for _, it := range items {
		if o, ok := it.(map[string]any); ok {
			out = append(out, o)
		}
	}
	return out
}

// listObjects are a list's items as kubectl's unstructured list decodes
// them: each with the list's apiVersion and its kind (the list's without
// "List") unless it has its own.
func listObjects(list Object) []Object {
	items := listItems(list)
	kind := strings.TrimSuffix(str(list, "kind"), "List")
	for i, it := range items {
		if str(it, "kind") != "" {
			continue
		}
		o := make(Object, len(it)+2)
		for k, v := range it {
			o[k] = v
		}
		o["apiVersion"], o["kind"] = list["apiVersion"], kind
		items[i] = o
	}
	return items
}

// objectName is kubectl's name for obj: kind[.group]/name, the kind in
// lower case.
func objectName(obj Object) string {
	name := str(obj, "metadata", "name")
	if name == "" {
		name = "<unknown>"
	}
	kind := strings.ToLower(str(obj, "kind"))
	if group, _, ok := strings.Cut(str(obj, "apiVersion"), "/"); ok {
		kind += "." + group
	}
	return kind + "/" + name
}

// toYAML is obj in YAML as kubectl prints it (sigs.k8s.io/yaml over its
// JSON).
func toYAML(obj any) ([]byte, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(data)
}

// withoutManagedFields is obj (or a List's items) without
// metadata.managedFields, obj itself unchanged.
func withoutManagedFields(obj Object) Object {
	if items, ok := obj["items"].([]any); ok {
		out := make(Object, len(obj))
		for k, v := range obj {
			out[k] = v
		}
		list := make([]any, len(items))
		for i, it := range items {
			if m, ok := it.(map[string]any); ok {
				it = withoutManagedFields(m)
			}
			list[i] = it
		}
		out["items"] = list
		return out
	}
	meta, ok := obj["metadata"].(map[string]any)
	if !ok || meta["managedFields"] == nil {
		return obj
	}
	out := make(Object, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	m := make(map[string]any, len(meta))
	for k, v := range meta {
		if k != "managedFields" {
			m[k] = v
		}
	}
	out["metadata"] = m
	return out
}
