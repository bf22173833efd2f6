package kubectl

// This file owns kubectl expose: the Service its generator (service/v2)
// builds for a Deployment, ReplicaSet, ReplicationController, Pod or
// Service (selector, labels, ports and protocols read from the object
// unless the flags give them), created as kubectl creates it: the object
// as unstructured JSON, fieldManager kubectl-expose; "service/NAME exposed".

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// serviceResource is the services resource.
var serviceResource = Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}

// exposeOptions are expose's flags.
type exposeOptions struct {
	port, targetPort, protocol, name, typ, selector, labels, clusterIP, externalIP string
}

func init() {
	register("expose", func(fs *pflag.FlagSet) runFunc {
		var o exposeOptions
		var files filenameFlags
		files.add(fs, "Filename, directory, or URL to files identifying the resource to expose a service")
		fs.StringVar(&o.port, "port", "", "The port that the service should serve on. Copied from the resource being exposed, if unspecified")
		fs.StringVar(&o.targetPort, "target-port", "", "Name or number for the port on the container that the service should direct traffic to. Optional.")
		fs.StringVar(&o.protocol, "protocol", "", "The network protocol for the service to be created. Default is 'TCP'.")
		fs.StringVar(&o.name, "name", "", "The name for the newly created object.")
		fs.StringVar(&o.typ, "type", "", "Type for this service: ClusterIP, NodePort, LoadBalancer, or ExternalName. Default is 'ClusterIP'.")
		fs.StringVar(&o.selector, "selector", "", "A label selector to use for this service. Only equality-based selector requirements are supported. If empty (the default) infer the selector from the replication controller or replica set.)")
		fs.StringVarP(&o.labels, "labels", "l", "", "Labels to apply to the service created by this call.")
		fs.StringVar(&o.clusterIP, "cluster-ip", "", "ClusterIP to be assigned to the service. Leave empty to auto-allocate, or set to 'None' to create a headless service.")
		fs.StringVar(&o.externalIP, "external-ip", "", "Additional external IP address (not managed by Kubernetes) to accept for the service.")
		output := addPrintFlags(fs, false)
		dry := addDryRun(fs)
		fieldManager := fs.String("field-manager", "kubectl-expose", "Name of the manager used to track field ownership.")
		return func(c *Cmd, args []string) error {
			d, err := dry()
			if err != nil {
				return err
			}
			if len(args) == 0 && len(files.Filenames) == 0 {
				return fmt.Errorf("You must provide one or more resources by argument or filename.")
			}
			targets, errs, err := c.selectTargets(selection{files: files}, args)
			if err != nil {
				return err
			}
			for _, t := range targets {
				if err := c.exposeObject(t, o, d, output, *fieldManager); err != nil {
					errs = append(errs, err)
				}
			}
			return errs.reduce()
		}
	})
}

// exposeObject makes and sends the Service for one object.
func (c *Cmd) exposeObject(t *target, o exposeOptions, d dryRun, output *printFlags, fieldManager string) error {
	obj, err := c.latest(t, acceptTypedAny)
	if err != nil {
		return err
	}
	kind, _ := obj["kind"].(string)
	switch kind {
	case "Deployment", "ReplicaSet", "ReplicationController", "Pod", "Service":
	default:
		return fmt.Errorf("cannot expose a %s", strings.TrimSuffix(t.Resource.Kind+"."+t.Resource.Group, "."))
	}
	meta, _ := obj["metadata"].(map[string]any)
	spec, _ := obj["spec"].(map[string]any)
	name := o.name
	if name == "" {
		name = t.Name
		if len(name) > 63 {
			name = name[:63]
		}
	}
	selector := map[string]string{}
	if o.selector != "" {
		if selector, err = parseLabelList(o.selector); err != nil {
			return err
		}
	} else {
		var raw map[string]any
		switch kind {
		case "Pod":
			raw, _ = meta["labels"].(map[string]any)
		case "Service", "ReplicationController":
			raw, _ = spec["selector"].(map[string]any)
		default:
			sel, _ := spec["selector"].(map[string]any)
			if exprs, _ := sel["matchExpressions"].([]any); len(exprs) > 0 {
				return fmt.Errorf("couldn't retrieve selectors via --selector flag or introspection: couldn't convert expressions - \"%v\" to map-based selector format", exprs)
			}
			raw, _ = sel["matchLabels"].(map[string]any)
		}
		if len(raw) == 0 {
			why := "invalid deployment: no selectors, therefore cannot be exposed"
			switch kind {
			case "Pod":
				why = "the pod has no labels and cannot be exposed"
			case "Service":
				why = "the service has no pod selector set"
			}
			return fmt.Errorf("couldn't retrieve selectors via --selector flag or introspection: %s", why)
		}
		for k, v := range raw {
			selector[k] = fmt.Sprint(v)
		}
	}
	var labels map[string]string
	if o.labels != "" {
		if labels, err = parseLabelList(o.labels); err != nil {
			return err
		}
	} else if raw, _ := meta["labels"].(map[string]any); len(raw) > 0 {
		labels = map[string]string{}
		for k, v := range raw {
			labels[k] = fmt.Sprint(v)
		}
	}
	ports, protocols := exposedPorts(obj)
	if o.port != "" {
		ports = strings.Split(o.port, ",")
	}
	if len(ports) == 0 && o.clusterIP != "None" {
		return fmt.Errorf("couldn't find port via --port flag or introspection")
	}
	var svcPorts []any
	for i, p := range ports {
		n, err := strconv.Atoi(p)
		if err != nil {
			return err
		}
		sp := ordered{}
		if len(ports) > 1 {
			sp = append(sp, member{"name", fmt.Sprintf("port-%d", i+1)})
		}
		protocol := o.protocol
		if protocol == "" {
			protocol = "TCP"
			if pr, ok := protocols[p]; ok {
				protocol = pr
			}
		}
		var target any = n
		if o.targetPort != "" {
			target = o.targetPort
			if tn, err := strconv.Atoi(o.targetPort); err == nil {
				target = tn
			}
		}
		svcPorts = append(svcPorts, append(sp, member{"protocol", protocol}, member{"port", n}, member{"targetPort", target}))
	}
	svcSpec := ordered{}
	if len(svcPorts) > 0 {
		svcSpec = append(svcSpec, member{"ports", svcPorts})
	}
	svcSpec = append(svcSpec, member{"selector", selector})
	if o.clusterIP != "" {
		svcSpec = append(svcSpec, member{"clusterIP", o.clusterIP})
	}
	if o.typ != "" {
		svcSpec = append(svcSpec, member{"type", o.typ})
	}
	if o.externalIP != "" {
		svcSpec = append(svcSpec, member{"externalIPs", []string{o.externalIP}})
	}
	ns := ""
	if d == dryRunClient {
		ns = c.Namespace
	}
	svc := ordered{{"kind", "Service"}, {"apiVersion", "v1"}, {"metadata", objectMeta(name, ns, labels, nil, nil)},
		{"spec", svcSpec}, {"status", ordered{{"loadBalancer", ordered{}}}}}
	if d == dryRunClient {
		return c.printResult(output, serviceResource, svc, name, "exposed", d)
	}
	// Sent as kubectl converts it: unstructured, keys sorted.
	data, err := json.Marshal(svc)
	if err != nil {
		return err
	}
	asMap, err := decodeObject(data)
	if err != nil {
		return err
	}
	body, err := encodeObject(asMap)
	if err != nil {
		return err
	}
	answer, err := c.Do(&Request{Method: "POST", Path: serviceResource.Path(c.NamespaceOrDefault(), ""), Query: d.query(fieldManager, ""),
		Header: [][2]string{{"Accept", acceptTypedAny}, {"Content-Type", "application/json"}}, Body: body})
	if err != nil {
		return err
	}
	result, err := decodeObject(answer)
	if err != nil {
		return err
	}
	return c.printResult(output, serviceResource, result, name, "exposed", d)
}

// exposedPorts is the ports an object serves (its containers', or a
// Service's), in order, and each one's protocol.
func exposedPorts(obj map[string]any) ([]string, map[string]string) {
	var ports []string
	protocols := map[string]string{}
	add := func(p map[string]any, key string) {
		n := fmt.Sprint(p[key])
		ports = append(ports, n)
		if pr, ok := p["protocol"].(string); ok {
			protocols[n] = pr
		}
	}
	if obj["kind"] == "Service" {
		spec, _ := obj["spec"].(map[string]any)
		list, _ := spec["ports"].([]any)
		for _, p := range list {
			m, _ := p.(map[string]any)
			add(m, "port")
		}
		return ports, protocols
	}
	spec := podSpecOf(obj)
	containers, _ := spec["containers"].([]any)
	for _, ctr := range containers {
		m, _ := ctr.(map[string]any)
		list, _ := m["ports"].([]any)
		for _, p := range list {
			pm, _ := p.(map[string]any)
			add(pm, "containerPort")
		}
	}
	return ports, protocols
}
