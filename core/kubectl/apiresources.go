package kubectl

// This file owns `kubectl api-resources` and `kubectl api-versions`: the
// server's resources at their preferred versions (discovery fetched afresh,
// as kubectl invalidates its cache for them unless --cached), filtered and
// sorted as kubectl does, and every group version.

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

func init() {
	register("api-resources", func(fs *pflag.FlagSet) runFunc {
		output := fs.StringP("output", "o", "", "Output format. One of: (wide, name).")
		noHeaders := fs.Bool("no-headers", false, "When using the default or custom-column output format, don't print headers (default print headers).")
		group := fs.String("api-group", "", "Limit to resources in the specified API group.")
		namespaced := fs.Bool("namespaced", true, "If false, non-namespaced resources will be returned, otherwise returning namespaced resources by default.")
		verbs := fs.StringSlice("verbs", nil, "Limit to resources that support the specified verbs.")
		sortBy := fs.String("sort-by", "", "If non-empty, sort list of resources using specified field. The field can be either 'name' or 'kind'.")
		cached := fs.Bool("cached", false, "Use the cached list of resources if available.")
		categories := fs.StringSlice("categories", nil, "Limit to resources that belong to the specified categories.")
		return func(c *Cmd, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected arguments: %v\nSee 'kubectl api-resources -h' for help and examples", args)
			}
			switch *output {
			case "", "wide", "name":
			default:
				return fmt.Errorf("--output %v is not available", *output)
			}
			switch *sortBy {
			case "", "name", "kind":
			default:
				return fmt.Errorf("--sort-by accepts only name or kind")
			}
			if !*cached {
				c.session.discovery = nil
			}
			d, discoveryErr := c.Discovery()
			var te *TransportError
			switch {
			case errors.As(discoveryErr, &te):
				// kubectl prints what it has (the header) before the error.
				d = &discoveryCache{}
			case discoveryErr != nil:
				return discoveryErr
			}
			groupSet, nsSet := c.fs.Changed("api-group"), c.fs.Changed("namespaced")
			var rs []Resource
			seen := map[string]bool{}
			for _, r := range d.Resources() {
				// ServerPreferredResources: each resource once, at the
				// first (most preferred) version of its group serving it.
				if seen[r.GroupResource()] {
					continue
				}
				seen[r.GroupResource()] = true
				switch {
				case len(r.Verbs) == 0,
					groupSet && r.Group != *group,
					nsSet && r.Namespaced != *namespaced,
					!hasAll(r.Verbs, *verbs),
					!hasAll(r.Categories, *categories):
					continue
				}
				rs = append(rs, r)
			}
			sort.Stable(resourceSort{rs, *sortBy})
			tw := newTabWriter(c.Stdout)
			if !*noHeaders && *output != "name" {
				h := "NAME\tSHORTNAMES\tAPIVERSION\tNAMESPACED\tKIND"
				if *output == "wide" {
					h += "\tVERBS\tCATEGORIES"
				}
				tw.WriteString(h + "\n")
			}
			for _, r := range rs {
				switch *output {
				case "name":
					tw.WriteString(r.GroupResource() + "\n")
				case "wide":
					fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\t%s\t%s\n", r.Resource, strings.Join(r.ShortNames, ","), r.GroupVersion(),
						r.Namespaced, r.Kind, strings.Join(r.Verbs, ","), strings.Join(r.Categories, ","))
				default:
					fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\n", r.Resource, strings.Join(r.ShortNames, ","), r.GroupVersion(), r.Namespaced, r.Kind)
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			return discoveryErr
		}
	})
	register("api-versions", func(fs *pflag.FlagSet) runFunc {
		return func(c *Cmd, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected arguments: %v\nSee 'kubectl api-versions -h' for help and examples", args)
			}
			c.session.discovery = nil
			d, err := c.Discovery()
			var te *TransportError
			if errors.As(err, &te) {
				return fmt.Errorf("couldn't get available api versions from server: %s", te)
			}
			if err != nil {
				return err
			}
			var gvs []string
			for _, g := range d.Groups() {
				for _, v := range g.Versions {
					if g.Name == "" {
						gvs = append(gvs, v)
					} else {
						gvs = append(gvs, g.Name+"/"+v)
					}
				}
			}
			sort.Strings(gvs)
			for _, gv := range gvs {
				fmt.Fprintln(c.Stdout, gv)
			}
			return nil
		}
	})
}

// hasAll says whether set has every one of want.
func hasAll(set, want []string) bool {
	for _, w := range want {
		found := false
		for _, s := range set {
			if s == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// resourceSort is api-resources' order: by group (or --sort-by's field),
// then by name.
type resourceSort struct {
	rs []Resource
	by string
}

func (s resourceSort) Len() int      { return len(s.rs) }
func (s resourceSort) Swap(i, j int) { s.rs[i], s.rs[j] = s.rs[j], s.rs[i] }
func (s resourceSort) Less(i, j int) bool {
	a, b := s.rs[i].Group, s.rs[j].Group
	switch s.by {
	case "name":
		a, b = s.rs[i].Resource, s.rs[j].Resource
	case "kind":
		a, b = s.rs[i].Kind, s.rs[j].Kind
	}
	if c := strings.Compare(a, b); c != 0 {
		return c < 0
	}
	return s.rs[i].Resource < s.rs[j].Resource
}
