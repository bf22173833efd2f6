package kubectl

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// This file owns `kubectl wait`: --for=condition=NAME[=VALUE],
// --for=jsonpath='{...}'[=VALUE], --for=delete and --for=create on
// TYPE/NAME, TYPE NAME, -l or --all, each object waited for as kubectl's
// informer does (a list by name at resourceVersion 0, then a watch from
// it), within --timeout.

type waitOptions struct {
	forCondition, selector string
	all, allNamespaces     bool
	timeout                time.Duration
}

func init() {
	register("wait", func(fs *pflag.FlagSet) runFunc {
		o := &waitOptions{}
		fs.StringVar(&o.forCondition, "for", "", "The condition to wait on: [create|delete|condition=condition-name[=condition-value]|jsonpath='{JSONPath expression}'=[JSONPath value]].")
		fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "The length of time to wait before giving up.")
		fs.StringVarP(&o.selector, "selector", "l", "", "Selector (label query) to filter on.")
		fs.BoolVar(&o.all, "all", false, "Select all resources in the namespace of the specified resource types")
		fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces.")
		return o.run
	})
}

// waitCheck says whether an object meets the condition.
type waitCheck func(obj map[string]any) (bool, error)

func (o *waitOptions) run(c *Cmd, args []string) error {
	lower := strings.ToLower(o.forCondition)
	var check waitCheck
	switch {
	case lower == "delete", lower == "create":
	case strings.HasPrefix(o.forCondition, "condition="):
		name, value, ok := strings.Cut(strings.TrimPrefix(o.forCondition, "condition="), "=")
		if !ok {
			value = "true"
		}
		check = conditionCheck(name, value)
	case strings.HasPrefix(o.forCondition, "jsonpath="):
		var err error
		if check, err = jsonPathCheck(strings.TrimPrefix(o.forCondition, "jsonpath=")); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unrecognized condition: %q", o.forCondition)
	}
	if len(args) == 0 {
		return errors.New("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
	}
	ctx := c.Ctx
	timeout := o.timeout
	if timeout < 0 {
		timeout = 7 * 24 * time.Hour
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	targets, err := o.find(c, args, lower == "create", ctx)
	if err != nil {
		return err
	}
	var errs []error
	visited := 0
	for _, t := range targets {
		if t.err != nil {
			var se *StatusError
			if lower == "delete" && errors.As(t.err, &se) && se.Code == 404 {
				continue
			}
			errs = append(errs, t.err)
			continue
		}
		visited++
		var err error
		if lower == "delete" {
			err = c.waitGone(ctx, t, o.timeout)
		} else if lower != "create" {
			err = c.waitFor(ctx, t, o.timeout, check)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(c.Stdout, "%s condition met\n", typedName(t.r, t.name))
	}
	if len(errs) > 0 {
		return errorList(errs).reduce()
	}
	if visited == 0 && lower != "delete" {
		return errors.New("no matching resources found")
	}
	return nil
}

// typedName is an object as kubectl's name printer prints it:
// "deployment.apps/web", "pod/web".
func typedName(r Resource, name string) string {
	kind := strings.ToLower(r.Kind)
	if r.Group != "" {
		kind += "." + r.Group
	}
	return kind + "/" + name
}

// waitTarget is an object wait found, or the error finding it.
type waitTarget struct {
	r               Resource
	namespace, name string
	err             error
}

// find resolves wait's arguments as its builder does; --for=create polls
// every half second until they are all found.
func (o *waitOptions) find(c *Cmd, args []string, create bool, ctx context.Context) ([]waitTarget, error) {
	ns := c.NamespaceOrDefault()
	if o.allNamespaces {
		ns = ""
	}
	type ref struct {
		r    Resource
		name string
	}
	var refs []ref
	var listTypes []Resource
	if strings.Contains(args[0], "/") {
		for _, a := range args {
			typ, name, _ := strings.Cut(a, "/")
			r, err := c.Resolve(typ)
			if err != nil {
				return nil, err
			}
			refs = append(refs, ref{r, name})
		}
	} else {
		for _, typ := range strings.Split(args[0], ",") {
			r, err := c.Resolve(typ)
			if err != nil {
				return nil, err
			}
			if len(args) == 1 {
				if o.selector == "" && !o.all {
					return nil, errors.New("resource(s) were provided, but no name was specified")
				}
				listTypes = append(listTypes, r)
			}
			for _, name := range args[1:] {
				refs = append(refs, ref{r, name})
			}
		}
	}
	for {
		var out []waitTarget
		missing := false
		for _, rf := range refs {
			_, err := c.Do(&Request{Method: "GET", Path: rf.r.Path(ns, rf.name), Header: [][2]string{{"Accept", acceptJSON}}})
			var se *StatusError
			if errors.As(err, &se) && se.Code == 404 {
				missing = true
			}
			out = append(out, waitTarget{r: rf.r, namespace: ns, name: rf.name, err: err})
		}
		for _, r := range listTypes {
			q := url.Values{}
			if o.selector != "" {
				q.Set("labelSelector", o.selector)
			}
			items, err := c.listAll(r.Path(ns, ""), q, acceptJSON, 0)
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				out = append(out, waitTarget{r: r, namespace: stringAt(it, "metadata", "namespace"), name: stringAt(it, "metadata", "name")})
			}
		}
		if !create || !missing {
			return out, nil
		}
		select {
		case <-ctx.Done():
			return nil, errors.New("timed out waiting for the condition")
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// conditionCheck is --for=condition: the status condition of that type
// (case folded) has that status, for the object's current generation.
func conditionCheck(name, value string) waitCheck {
	return func(obj map[string]any) (bool, error) {
		for _, cd := range list(obj, "status", "conditions") {
			if !strings.EqualFold(stringAt(cd, "type"), name) || !has(cd, "status") {
				continue
			}
			if has(obj, "metadata", "generation") {
				observed, found := num(cd, "observedGeneration"), has(cd, "observedGeneration")
				if !found {
					observed, found = num(obj, "status", "observedGeneration"), has(obj, "status", "observedGeneration")
				}
				if found && observed < num(obj, "metadata", "generation") {
					return false, nil
				}
			}
			return strings.EqualFold(stringAt(cd, "status"), value), nil
		}
		return false, nil
	}
}

// jsonPathCheck is --for=jsonpath='{.a.b}'[=VALUE]: the field is there (and
// prints as VALUE).
func jsonPathCheck(input string) (waitCheck, error) {
	parts := splitJSONPathInput(input)
	if len(parts) < 1 || len(parts) > 2 {
		return nil, errors.New("jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or --for=jsonpath='{.status.readyReplicas}'")
	}
	expr := strings.TrimSpace(parts[0])
	if expr == "" {
		return nil, errors.New("jsonpath expression cannot be empty")
	}
	expr = strings.TrimSuffix(strings.TrimPrefix(expr, "{"), "}")
	path, err := parseFieldPath(expr)
	if err != nil {
		return nil, err
	}
	anyValue := len(parts) == 1
	var want string
	if !anyValue {
		if want = strings.Trim(parts[1], `'"`); want == "" {
			return nil, errors.New("jsonpath wait has to have a value after equal sign, like --for=jsonpath='{.status.readyReplicas}'=3")
		}
	}
	return func(obj map[string]any) (bool, error) {
		v, ok := path.get(obj)
		if !ok {
			return false, nil
		}
		if anyValue {
			return true, nil
		}
		switch v.(type) {
		case map[string]any, []any:
			return false, errors.New("jsonpath leads to a nested object or list which is not supported")
		}
		return strings.TrimSpace(fmt.Sprint(v)) == strings.TrimSpace(want), nil
	}, nil
}

// splitJSONPathInput splits at a single '=' outside the expression's
// braces ("==" inside a filter stays).
func splitJSONPathInput(input string) []string {
	depth := 0
	for i := 0; i < len(input); i++ {
		switch input[i] {
		case '{':
			depth++
		case '}':
			depth--
		case '=':
			if depth == 0 {
				return []string{input[:i], input[i+1:]}
			}
		}
	}
	return []string{input}
}

// fieldPath is a simple JSONPath: fields and list indexes.
type fieldPath []string

// parseFieldPath reads ".a.b[0]['c.d']".
func parseFieldPath(expr string) (fieldPath, error) {
	var p fieldPath
	s := strings.TrimPrefix(expr, "$")
	for s != "" {
		switch {
		case strings.HasPrefix(s, "['"):
			end := strings.Index(s, "']")
			if end < 0 {
				return nil, fmt.Errorf("unterminated quote in %s", expr)
			}
			p, s = append(p, s[2:end]), s[end+2:]
		case s[0] == '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, fmt.Errorf("unterminated array in %s", expr)
			}
			p, s = append(p, s[:end+1]), s[end+1:]
		case s[0] == '.':
			s = s[1:]
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			if end > 0 {
				p = append(p, s[:end])
			}
			s = s[end:]
		default:
			return nil, fmt.Errorf("unrecognized character in action: %q", s[0])
		}
	}
	return p, nil
}

// get is the value at the path, and whether it is there.
func (p fieldPath) get(v any) (any, bool) {
	for _, step := range p {
		if strings.HasPrefix(step, "[") {
			l, ok := v.([]any)
			i, err := strconv.Atoi(strings.Trim(step, "[]"))
			if !ok || err != nil {
				return nil, false
			}
			if i < 0 {
				i += len(l)
			}
			if i < 0 || i >= len(l) {
				return nil, false
			}
			v = l[i]
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[step]; !ok {
			return nil, false
		}
	}
	return v, true
}

// informer is kubectl's list-then-watch of one object by name: it calls
// fn with the listed object (nil if none, type "") and then with each
// watch event, until fn says it is done or fails, or ctx ends: then
// kubectl's timeout error on the object. A watch the server ends is
// started again from the last revision seen, as the reflector does; one
// whose revision is gone (410) lists again.
func (c *Cmd) informer(ctx context.Context, t waitTarget, fn func(typ string, obj map[string]any) (bool, error)) error {
	sel := "metadata.name=" + t.name
	path := t.r.Path(t.namespace, "")
	sub := *c
	var cancel context.CancelFunc
	sub.Ctx, cancel = context.WithCancel(ctx)
	defer cancel()
	rv := ""
	for ctx.Err() == nil {
		var first map[string]any
		relist := rv == ""
		if relist {
			listed, err := c.getObject(path, url.Values{"fieldSelector": {sel}, "limit": {"500"}, "resourceVersion": {"0"}}, acceptJSON)
			if err != nil {
				return err
			}
			rv = stringAt(listed, "metadata", "resourceVersion")
			if items := list(listed, "items"); len(items) > 0 {
				first, _ = items[0].(map[string]any)
			}
		}
		resp, err := sub.streamOK(&Request{Method: "GET", Path: path, Query: url.Values{"allowWatchBookmarks": {"true"}, "fieldSelector": {sel},
			"resourceVersion": {rv}, "timeoutSeconds": {fmt.Sprint(300 + rand.Intn(300))}, "watch": {"true"}},
			Header: [][2]string{{"Accept", acceptJSON}}})
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return err
		}
		if relist {
			if done, err := fn("", first); done || err != nil {
				resp.Body.Close()
				return err
			}
		}
		done := false
		err = sub.readWatch(resp, func(typ string, obj map[string]any) (bool, error) {
			rv = stringAt(obj, "metadata", "resourceVersion")
			if typ == "BOOKMARK" {
				return false, nil
			}
			met, err := fn(typ, obj)
			done = met
			return met, err
		})
		var se *StatusError
		switch {
		case errors.As(err, &se) && se.Code == 410:
			rv = ""
		case err != nil:
			return err
		case done:
			return nil
		}
	}
	return fmt.Errorf("timed out waiting for the condition on %s/%s", t.r.Resource, t.name)
}

// waitFor waits until the object meets check; a zero timeout checks once.
func (c *Cmd) waitFor(ctx context.Context, t waitTarget, timeout time.Duration, check waitCheck) error {
	if timeout == 0 {
		obj, err := c.getObject(t.r.Path(t.namespace, t.name), nil, acceptJSON)
		if err != nil {
			return err
		}
		if ok, err := check(obj); err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("condition not met for %s/%s", t.r.Resource, t.name)
			}
			return err
		}
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("timed out waiting for the condition on %s/%s", t.r.Resource, t.name)
	}
	return c.informer(ctx, t, func(typ string, obj map[string]any) (bool, error) {
		if typ == "" && obj == nil {
			return false, &StatusError{Code: 404, Status: Status{Status: "Failure", Reason: "NotFound", Code: 404,
				Message: fmt.Sprintf("%s %q not found", t.r.GroupResource(), t.name)}}
		}
		if typ == "DELETED" {
			return false, nil
		}
		return check(obj)
	})
}

// waitGone waits until the object is gone (or replaced: another uid).
func (c *Cmd) waitGone(ctx context.Context, t waitTarget, timeout time.Duration) error {
	_, err := c.Do(&Request{Method: "GET", Path: t.r.Path(t.namespace, t.name), Header: [][2]string{{"Accept", acceptJSON}}})
	var se *StatusError
	if errors.As(err, &se) && se.Code == 404 {
		return nil
	}
	if err != nil {
		return err
	}
	if timeout == 0 {
		return fmt.Errorf("condition not met for %s/%s", t.r.Resource, t.name)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("timed out waiting for the condition on %s/%s", t.r.Resource, t.name)
	}
	return c.informer(ctx, t, func(typ string, obj map[string]any) (bool, error) {
		return (typ == "" && obj == nil) || typ == "DELETED", nil
	})
}
