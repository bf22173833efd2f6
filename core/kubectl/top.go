package kubectl

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"time"

	"github.com/spf13/pflag"
)

// This file owns `kubectl top pod` and `kubectl top node`: metrics.k8s.io's
// PodMetrics and NodeMetrics (the sandbox serves them) as kubectl's metrics
// printer prints them, cpu in millicores and memory in Mi, nodes' use as a
// share of allocatable (or capacity), --containers, --sum, --sort-by.

// acceptMetrics is what kubectl's metrics client accepts.
const acceptMetrics = "application/vnd.kubernetes.protobuf, */*"

type topOptions struct {
	selector, fieldSelector, sortBy           string
	containers, allNamespaces, noHeaders, sum bool
	showCapacity, protobuf                    bool
}

func init() {
	register("top pod", func(fs *pflag.FlagSet) runFunc {
		o := &topOptions{}
		fs.StringVarP(&o.selector, "selector", "l", "", "Selector (label query) to filter on.")
		fs.StringVar(&o.fieldSelector, "field-selector", "", "Selector (field query) to filter on.")
		fs.StringVar(&o.sortBy, "sort-by", "", "If non-empty, sort pods list using specified field. The field can be either 'cpu' or 'memory'.")
		fs.BoolVar(&o.containers, "containers", false, "If present, print usage of containers within a pod.")
		fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces.")
		fs.BoolVar(&o.noHeaders, "no-headers", false, "If present, print output without headers.")
		fs.BoolVar(&o.protobuf, "use-protocol-buffers", true, "Enables using protocol-buffers to access Metrics API.")
		fs.BoolVar(&o.sum, "sum", false, "Print the sum of the resource usage")
		return o.runPods
	})
	register("top node", func(fs *pflag.FlagSet) runFunc {
		o := &topOptions{}
		fs.StringVarP(&o.selector, "selector", "l", "", "Selector (label query) to filter on.")
		fs.StringVar(&o.sortBy, "sort-by", "", "If non-empty, sort nodes list using specified field. The field can be either 'cpu' or 'memory'.")
		fs.BoolVar(&o.noHeaders, "no-headers", false, "If present, print output without headers")
		fs.BoolVar(&o.protobuf, "use-protocol-buffers", true, "Enables using protocol-buffers to access Metrics API.")
		fs.BoolVar(&o.showCapacity, "show-capacity", false, "Print node resources based on Capacity instead of Allocatable(default) of the nodes.")
		return o.runNodes
	})
	commands["top pods"], commands["top po"] = commands["top pod"], commands["top pod"]
	commands["top nodes"], commands["top no"] = commands["top node"], commands["top node"]
}

// validate is top's Validate: one NAME at most, not with a selector, and a
// known --sort-by; then it checks that the metrics API is served.
func (o *topOptions) validate(c *Cmd, args []string) (string, error) {
	if len(args) > 1 {
		return "", fmt.Errorf("%s\nSee 'kubectl %s -h' for help and examples", c.Path[4:]+" [NAME | -l label]", c.Path)
	}
	if o.sortBy != "" && o.sortBy != "cpu" && o.sortBy != "memory" {
		return "", errors.New("--sort-by accepts only cpu or memory")
	}
	name := ""
	if len(args) == 1 {
		name = args[0]
		if o.selector != "" {
			if c.Path == "top node" {
				return "", errors.New("only one of NAME or --selector can be provided")
			}
			return "", errors.New("only one of NAME or selector can be provided")
		}
	}
	d, err := c.Discovery()
	if err != nil {
		return "", err
	}
	for _, g := range d.Groups() {
		if g.Name != "metrics.k8s.io" {
			continue
		}
		for _, v := range g.Versions {
			if v == "v1beta1" {
				return name, nil
			}
		}
	}
	return "", errors.New("Metrics API not available")
}

// metricUsage is a metrics object's cpu and memory.
type metricUsage struct{ cpu, memory string }

func (u metricUsage) add(o metricUsage) metricUsage {
	return metricUsage{quantityAdd(orZero(u.cpu), orZero(o.cpu)), quantityAdd(orZero(u.memory), orZero(o.memory))}
}

func usageOf(v any) metricUsage {
	return metricUsage{stringAt(v, "usage", "cpu"), stringAt(v, "usage", "memory")}
}

// cells are the printer's metricUsage columns: "12m", "40Mi".
func (u metricUsage) cells() []string {
	return []string{fmt.Sprintf("%vm", quantityMilli(u.cpu)), fmt.Sprintf("%vMi", quantityValue(u.memory)/(1024*1024))}
}

// less is the metrics sorters' order: by cpu or memory, largest first.
func (u metricUsage) less(o metricUsage, sortBy string) bool {
	if sortBy == "cpu" {
		return quantityMilli(u.cpu) > quantityMilli(o.cpu)
	}
	return quantityValue(u.memory) > quantityValue(o.memory)
}

func (o *topOptions) metrics(c *Cmd, path string, q url.Values) (map[string]any, error) {
	return c.getObject(path, q, acceptMetrics)
}

func (o *topOptions) runPods(c *Cmd, args []string) error {
	name, err := o.validate(c, args)
	if err != nil {
		return err
	}
	ns := c.NamespaceOrDefault()
	path := "/apis/metrics.k8s.io/v1beta1/namespaces/" + ns + "/pods"
	if o.allNamespaces {
		path = "/apis/metrics.k8s.io/v1beta1/pods"
	}
	q := url.Values{}
	if o.selector != "" {
		q.Set("labelSelector", o.selector)
	}
	if o.fieldSelector != "" {
		q.Set("fieldSelector", o.fieldSelector)
	}
	var items []map[string]any
	if name != "" {
		m, err := o.metrics(c, path+"/"+name, nil)
		if err != nil {
			return err
		}
		items = []map[string]any{m}
	} else {
		l, err := o.metrics(c, path, q)
		if err != nil {
			return err
		}
		for _, it := range list(l, "items") {
			items = append(items, it.(map[string]any))
		}
	}
	if len(items) == 0 {
		pods, err := c.listAll("/api/v1/namespaces/"+ns+"/pods", q, acceptTyped, 0)
		if err != nil {
			return err
		}
		for _, p := range pods {
			created, _ := parseTime(stringAt(p, "metadata", "creationTimestamp"))
			if age := time.Since(created); age > 2*time.Minute {
				return fmt.Errorf("Metrics not available for pod %s/%s, age: %s", stringAt(p, "metadata", "namespace"), stringAt(p, "metadata", "name"), age)
			}
		}
		if len(pods) > 0 {
			return errors.New("metrics not available yet")
		}
		if o.allNamespaces {
			fmt.Fprintln(c.Stderr, "No resources found")
		} else {
			fmt.Fprintf(c.Stderr, "No resources found in %s namespace.\n", ns)
		}
		return nil
	}
	podUsage := func(m map[string]any) metricUsage {
		u := metricUsage{"0", "0"}
		for _, ct := range list(m, "containers") {
			u = u.add(usageOf(ct))
		}
		return u
	}
	tw := newTabWriter(c.Stdout)
	defer tw.Flush()
	width := 3
	if !o.noHeaders {
		if o.allNamespaces {
			fmt.Fprint(tw, "NAMESPACE\t")
			width++
		}
		if o.containers {
			fmt.Fprint(tw, "POD\t")
			width++
		}
		fmt.Fprint(tw, "NAME\tCPU(cores)\tMEMORY(bytes)\t\n")
	}
	sort.SliceStable(items, func(i, j int) bool {
		if o.sortBy != "" {
			return podUsage(items[i]).less(podUsage(items[j]), o.sortBy)
		}
		if o.allNamespaces && stringAt(items[i], "metadata", "namespace") != stringAt(items[j], "metadata", "namespace") {
			return stringAt(items[i], "metadata", "namespace") < stringAt(items[j], "metadata", "namespace")
		}
		return stringAt(items[i], "metadata", "name") < stringAt(items[j], "metadata", "name")
	})
	total := metricUsage{"0", "0"}
	for _, m := range items {
		var prefix []string
		if o.allNamespaces {
			prefix = append(prefix, stringAt(m, "metadata", "namespace"))
		}
		if !o.containers {
			writeRow(tw, append(append(prefix, stringAt(m, "metadata", "name")), podUsage(m).cells()...))
		} else {
			cts := list(m, "containers")
			sort.SliceStable(cts, func(i, j int) bool {
				if o.sortBy != "" {
					return usageOf(cts[i]).less(usageOf(cts[j]), o.sortBy)
				}
				return stringAt(cts[i], "name") < stringAt(cts[j], "name")
			})
			for _, ct := range cts {
				writeRow(tw, append(append(prefix, stringAt(m, "metadata", "name"), stringAt(ct, "name")), usageOf(ct).cells()...))
			}
		}
		total = total.add(podUsage(m))
	}
	if o.sum {
		var row []string
		for i := 0; i < width-2; i++ {
			row = append(row, "")
		}
		writeRow(tw, append(row, "________", "________"))
		row = row[:0]
		for i := 0; i < width-3; i++ {
			row = append(row, "")
		}
		writeRow(tw, append(append(row, ""), total.cells()...))
	}
	return nil
}

// writeRow writes cells each ended by a tab, as the metrics printer does.
func writeRow(w io.Writer, cells []string) {
	for _, c := range cells {
		fmt.Fprintf(w, "%v\t", c)
	}
	fmt.Fprint(w, "\n")
}

func (o *topOptions) runNodes(c *Cmd, args []string) error {
	name, err := o.validate(c, args)
	if err != nil {
		return err
	}
	q := url.Values{}
	if o.selector != "" {
		q.Set("labelSelector", o.selector)
	}
	var items []map[string]any
	if name != "" {
		m, err := o.metrics(c, "/apis/metrics.k8s.io/v1beta1/nodes/"+name, nil)
		if err != nil {
			return err
		}
		items = []map[string]any{m}
	} else {
		l, err := o.metrics(c, "/apis/metrics.k8s.io/v1beta1/nodes", q)
		if err != nil {
			return err
		}
		for _, it := range list(l, "items") {
			items = append(items, it.(map[string]any))
		}
	}
	if len(items) == 0 {
		return errors.New("metrics not available yet")
	}
	var nodes []map[string]any
	if name != "" {
		n, err := c.getTyped("/api/v1/nodes/" + name)
		if err != nil {
			return err
		}
		nodes = []map[string]any{n}
	} else if nodes, err = c.listAll("/api/v1/nodes", q, acceptTyped, 0); err != nil {
		return err
	}
	available := map[string]map[string]string{}
	var order []string
	for _, n := range nodes {
		field := "allocatable"
		if o.showCapacity {
			field = "capacity"
		}
		available[stringAt(n, "metadata", "name")] = strMap(n, "status", field)
		order = append(order, stringAt(n, "metadata", "name"))
	}
	tw := newTabWriter(c.Stdout)
	defer tw.Flush()
	sort.SliceStable(items, func(i, j int) bool {
		if o.sortBy != "" {
			return usageOf(items[i]).less(usageOf(items[j]), o.sortBy)
		}
		return stringAt(items[i], "metadata", "name") < stringAt(items[j], "metadata", "name")
	})
	if !o.noHeaders {
		fmt.Fprint(tw, "NAME\tCPU(cores)\tCPU(%)\tMEMORY(bytes)\tMEMORY(%)\t\n")
	}
	for _, m := range items {
		n := stringAt(m, "metadata", "name")
		u, avail := usageOf(m), available[n]
		cells := []string{n}
		for i, res := range []string{u.cpu, u.memory} {
			cells = append(cells, u.cells()[i])
			key := []string{"cpu", "memory"}[i]
			if a, ok := avail[key]; ok {
				cells = append(cells, fmt.Sprintf("%d%%", int64(float64(quantityMilli(res))/float64(quantityMilli(a))*100)))
			}
		}
		writeRow(tw, cells)
		delete(available, n)
	}
	for _, n := range order {
		if _, ok := available[n]; ok {
			writeRow(tw, []string{n, "<unknown>", "<unknown>", "<unknown>", "<unknown>"})
		}
	}
	return nil
}
