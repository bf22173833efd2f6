package kubectl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// This file owns `kubectl auth whoami` (a SelfSubjectReview) and `kubectl
// auth can-i` (a SelfSubjectAccessReview, or with --list a
// SelfSubjectRulesReview printed as kubectl breaks down, compacts and sorts
// its rules). kubectl sends these as protobuf; this module sends their JSON.

const acceptReview = "application/json"

func init() {
	register("auth whoami", func(fs *pflag.FlagSet) runFunc {
		output := fs.StringP("output", "o", "", "Output format. One of: (json, yaml).")
		return func(c *Cmd, _ []string) error {
			if *output != "" && *output != "json" && *output != "yaml" {
				return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,yaml", *output)
			}
			body := []byte(`{"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":null},"status":{"userInfo":{}}}`)
			raw, err := c.postRaw("/apis/authentication.k8s.io/v1/selfsubjectreviews", body)
			if err != nil {
				return err
			}
			review, err := decodeObject(raw)
			if err != nil {
				return err
			}
			switch *output {
			case "json":
				// kubectl prints the typed review: its fields in the
				// order the server sent them.
				var b bytes.Buffer
				if err := json.Indent(&b, bytes.TrimSpace(raw), "", "    "); err != nil {
					return err
				}
				b.WriteByte('\n')
				_, err = b.WriteTo(c.Stdout)
				return err
			case "yaml":
				data, err := toYAML(review)
				if err != nil {
					return err
				}
				_, err = c.Stdout.Write(data)
				return err
			}
			ui := obj(review, "status", "userInfo")
			rows := [][]string{{"ATTRIBUTE", "VALUE"}}
			if s := stringAt(ui, "username"); s != "" {
				rows = append(rows, []string{"Username", s})
			}
			if s := stringAt(ui, "uid"); s != "" {
				rows = append(rows, []string{"UID", s})
			}
			if g := strs(ui, "groups"); len(g) > 0 {
				rows = append(rows, []string{"Groups", fmt.Sprint(g)})
			}
			extra := obj(ui, "extra")
			for _, k := range sortedKeys(extra) {
				rows = append(rows, []string{"Extra: " + k, fmt.Sprint(strs(extra, k))})
			}
			printRows(newTabWriter(c.Stdout), rows)
			return nil
		}
	})
	register("auth can-i", func(fs *pflag.FlagSet) runFunc {
		o := &canIOptions{}
		fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "If true, check the specified action in all namespaces.")
		fs.BoolVarP(&o.quiet, "quiet", "q", false, "If true, suppress output and just return the exit code.")
		fs.StringVar(&o.subresource, "subresource", "", "SubResource such as pod/log or deployment/scale")
		fs.BoolVar(&o.list, "list", false, "If true, prints all allowed actions.")
		fs.BoolVar(&o.noHeaders, "no-headers", false, "If true, prints allowed actions without headers")
		return o.run
	})
}

// post creates a review and returns the answer.
func (c *Cmd) post(path string, body []byte) (map[string]any, error) {
	data, err := c.postRaw(path, body)
	if err != nil {
		return nil, err
	}
	return decodeObject(data)
}

// postRaw creates a review and returns the answer's bytes.
func (c *Cmd) postRaw(path string, body []byte) ([]byte, error) {
	return c.Do(&Request{Method: "POST", Path: path, Body: body,
		Header: [][2]string{{"Accept", acceptReview}, {"Content-Type", "application/json"}}})
}

// printRows writes rows of cells through kubectl's printers' tab writer.
func printRows(tw *tabWriter, rows [][]string) {
	for _, row := range rows {
		tw.WriteString(strings.Join(row, "\t") + "\n")
	}
	tw.Flush()
}

type canIOptions struct {
	allNamespaces, quiet, list, noHeaders bool
	subresource                           string
}

var knownResourceVerbs = map[string]bool{"get": true, "list": true, "watch": true, "create": true, "update": true, "patch": true, "delete": true,
	"deletecollection": true, "use": true, "bind": true, "impersonate": true, "*": true, "approve": true, "sign": true, "escalate": true, "attest": true}

var knownNonResourceVerbs = map[string]bool{"get": true, "put": true, "post": true, "head": true, "options": true, "delete": true, "patch": true, "*": true}

func (o *canIOptions) run(c *Cmd, args []string) error {
	warn := func(msg string) { fmt.Fprintf(c.Stderr, "Warning: %s\n", msg) }
	ns := c.NamespaceOrDefault()
	if o.allNamespaces {
		ns = ""
	}
	if o.list {
		if len(args) != 0 {
			return errors.New("list option must be specified with no arguments")
		}
		if o.quiet || o.allNamespaces || o.subresource != "" {
			return errors.New("list option can't be specified with neither quiet, all-namespaces nor subresource options")
		}
		body, _ := json.Marshal(map[string]any{"kind": "SelfSubjectRulesReview", "apiVersion": "authorization.k8s.io/v1",
			"metadata": map[string]any{"creationTimestamp": nil}, "spec": map[string]any{"namespace": ns}, "status": map[string]any{"resourceRules": nil, "nonResourceRules": nil, "incomplete": false}})
		review, err := c.post("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", body)
		if err != nil {
			return err
		}
		if boolean(review, "status", "incomplete") {
			warn("the list may be incomplete: " + stringAt(review, "status", "evaluationError"))
		}
		rows := [][]string{}
		if !o.noHeaders {
			rows = append(rows, []string{"Resources", "Non-Resource URLs", "Resource Names", "Verbs"})
		}
		for _, r := range compactRules(append(list(review, "status", "resourceRules"), list(review, "status", "nonResourceRules")...)) {
			rows = append(rows, []string{combineResourceGroup(r.resources, r.groups), fmt.Sprint(r.urls), fmt.Sprint(r.names), fmt.Sprint(r.verbs)})
		}
		printRows(newTabWriter(c.Stdout), rows)
		return nil
	}
	if len(args) != 2 {
		return errors.New("you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'kubectl auth can-i -h' for help and examples.")
	}
	verb := args[0]
	attrs := map[string]any{}
	if strings.HasPrefix(args[1], "/") {
		if o.subresource != "" {
			return errors.New("--subresource can not be used with NonResourceURL")
		}
		if !knownNonResourceVerbs[verb] {
			warn(fmt.Sprintf("verb '%s' is not a known verb\n", verb))
		}
		attrs = map[string]any{"nonResourceAttributes": map[string]any{"path": args[1], "verb": verb}}
	} else {
		typ, name, _ := strings.Cut(args[1], "/")
		ra := map[string]any{"verb": verb}
		if ns != "" {
			ra["namespace"] = ns
		}
		resolved := false
		var r Resource
		if typ == "*" {
			ra["resource"] = typ
		} else if res, err := c.Resolve(strings.ToLower(typ)); err == nil {
			r, resolved = res, true
			ra["resource"] = r.Resource
			if r.Group != "" {
				ra["group"] = r.Group
			}
		} else {
			group := ""
			if i := strings.IndexByte(typ, '.'); i >= 0 {
				group = typ[i+1:]
			}
			if group == "" {
				warn(fmt.Sprintf("the server doesn't have a resource type '%s'\n", strings.ToLower(typ)))
			} else {
				warn(fmt.Sprintf("the server doesn't have a resource type '%s' in group '%s'\n", strings.ToLower(typ[:strings.IndexByte(typ, '.')]), group))
			}
			ra["resource"] = typ
		}
		if o.subresource != "" {
			ra["subresource"] = o.subresource
		}
		if name != "" {
			ra["name"] = name
		}
		if resolved && !o.allNamespaces {
			if namespaced, ok := c.namespaced(r); ok && !namespaced {
				if r.Group == "" {
					warn(fmt.Sprintf("resource '%s' is not namespace scoped\n", r.Resource))
				} else {
					warn(fmt.Sprintf("resource '%s' is not namespace scoped in group '%s'\n", r.Resource, r.Group))
				}
			}
			if !knownResourceVerbs[verb] {
				warn(fmt.Sprintf("verb '%s' is not a known verb\n", verb))
			}
		}
		attrs = map[string]any{"resourceAttributes": ra}
	}
	if o.noHeaders {
		return errors.New("--no-headers cannot be set without --list specified")
	}
	body, _ := json.Marshal(map[string]any{"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
		"metadata": map[string]any{"creationTimestamp": nil}, "spec": attrs, "status": map[string]any{"allowed": false}})
	review, err := c.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", body)
	if err != nil {
		return err
	}
	out := c.Stdout
	if o.quiet {
		out = io.Discard
	}
	if boolean(review, "status", "allowed") {
		fmt.Fprintln(out, "yes")
		return nil
	}
	fmt.Fprint(out, "no")
	if s := stringAt(review, "status", "reason"); s != "" {
		fmt.Fprintf(out, " - %v", s)
	}
	if s := stringAt(review, "status", "evaluationError"); s != "" {
		fmt.Fprintf(out, " - %v", s)
	}
	fmt.Fprintln(out)
	return &exitError{code: 1, err: errSilent}
}

// namespaced asks the server's group-version document whether r is
// namespaced, as kubectl's can-i does.
func (c *Cmd) namespaced(r Resource) (bool, bool) {
	path := "/api/" + r.Version
	if r.Group != "" {
		path = "/apis/" + r.Group + "/" + r.Version
	}
	doc, err := c.getObject(path, nil, acceptTypedAny)
	if err != nil {
		return true, false
	}
	for _, res := range list(doc, "resources") {
		if stringAt(res, "name") == r.Resource {
			return boolean(res, "namespaced"), true
		}
	}
	return false, true
}

// policyRule is an RBAC rule as can-i --list prints it.
type policyRule struct {
	verbs, groups, resources, names, urls []string
}

// String is the rule as its generated String prints it: what kubectl sorts
// the rules by.
func (r policyRule) String() string {
	return fmt.Sprintf("&PolicyRule{Verbs:%v,APIGroups:%v,Resources:%v,ResourceNames:%v,NonResourceURLs:%v,}", r.verbs, r.groups, r.resources, r.names, r.urls)
}

// compactRules breaks RBAC rules down to one verb, resource and name
// each, joins again the verbs of rules on one group, resource and at most
// one name, and sorts them (kubectl's BreakdownRule, CompactRules and
// SortableRuleSlice), for can-i --list and the roles' describers.
func compactRules(rules []any) []policyRule {
	var broken []policyRule
	for _, r := range rules {
		for _, g := range strs(r, "apiGroups") {
			for _, res := range strs(r, "resources") {
				for _, v := range strs(r, "verbs") {
					if names := strs(r, "resourceNames"); len(names) > 0 {
						for _, n := range names {
							broken = append(broken, policyRule{verbs: []string{v}, groups: []string{g}, resources: []string{res}, names: []string{n}})
						}
					} else {
						broken = append(broken, policyRule{verbs: []string{v}, groups: []string{g}, resources: []string{res}})
					}
				}
			}
		}
		for _, u := range strs(r, "nonResourceURLs") {
			for _, v := range strs(r, "verbs") {
				broken = append(broken, policyRule{verbs: []string{v}, urls: []string{u}})
			}
		}
	}
	var out []policyRule
	simple := map[string]int{}
	for _, r := range broken {
		if len(r.urls) > 0 {
			out = append(out, r)
			continue
		}
		key := r.groups[0] + "\x00" + r.resources[0] + "\x00" + strings.Join(r.names, "")
		if len(r.names) > 0 {
			key += "\x00name"
		}
		if i, ok := simple[key]; ok {
			if !containsString(out[i].verbs, r.verbs[0]) {
				out[i].verbs = append(out[i].verbs, r.verbs[0])
			}
			continue
		}
		simple[key] = len(out)
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// combineResourceGroup is "resource.group[/subresource]" as can-i prints it.
func combineResourceGroup(resources, groups []string) string {
	if len(resources) == 0 {
		return ""
	}
	res, sub, hasSub := strings.Cut(resources[0], "/")
	if len(groups) > 0 && groups[0] != "" {
		res += "." + groups[0]
	}
	if hasSub {
		res += "/" + sub
	}
	return res
}
