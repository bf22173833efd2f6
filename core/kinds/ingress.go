package kinds

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"kubeplay/core/api"
	"kubeplay/core/encoding/table"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/validation"
)

// ingress is networking.k8s.io/v1 Ingress: HTTP routes to Services (stored
// only: no ingress controller here serves them); its status is the load
// balancer's, written through its status subresource.
func ingress() *api.Resource {
	return &api.Resource{
		Group: "networking.k8s.io", Version: "v1", Kind: "Ingress", Plural: "ingresses", Singular: "ingress",
		Namespaced: true, ShortNames: []string{"ing"}, Verbs: allVerbs, Generation: true,
		Subs: []api.Subresource{{Name: "status", Kind: "Ingress", Group: "networking.k8s.io", Verbs: statusVerbs}},
		Hooks: api.Hooks{
			PrepareForCreate: func(obj object.Object, _ time.Time) {
				obj["status"] = map[string]any{"loadBalancer": map[string]any{}}
			},
			Validate: validation.Ingress,
			ValidateUpdate: func(obj, old object.Object, sub string) field.ErrorList {
				if sub == "status" {
					return validation.IngressStatus(obj)
				}
				return validation.IngressUpdate(obj, old)
			},
			WarningsOnCreate: validation.IngressWarnings,
		},
		Printer: table.NewPrinter([]table.Column{
			table.NameColumn,
			{Name: "Class", Type: "string", Description: "The name of the IngressClass resource that should be used for additional configuration"},
			{Name: "Hosts", Type: "string", Description: "Hosts that incoming requests are matched against before the ingress rule"},
			{Name: "Address", Type: "string", Description: "Address is a list containing ingress points for the load-balancer"},
			{Name: "Ports", Type: "string", Description: "Ports of TLS configurations that open"},
			table.AgeColumn,
		}, ingressCells),
	}
}

// ingressCells is printIngress, wide as the server prints: the class, the
// first three rules' hosts, the load balancer's addresses (sorted, each
// once) and the ports TLS opens.
func ingressCells(ing object.Object, now time.Time) []any {
	spec, _ := ing["spec"].(map[string]any)
	class, ok := spec["ingressClassName"].(string)
	if !ok {
		class = "<none>"
	}
	rules := object.Objects(spec, "rules")
	var hosts []string
	more := false
	for _, rule := range rules {
		more = more || len(hosts) == 3
		if host, _ := rule["host"].(string); !more && host != "" {
			hosts = append(hosts, host)
		}
	}
	hostCell := strings.Join(hosts, ",")
	switch {
	case len(hosts) == 0:
		hostCell = "*"
	case more:
		hostCell += fmt.Sprintf(" + %d more...", len(rules)-3)
	}
	seen := map[string]bool{}
	var addrs []string
	lb, _ := object.Path(ing, "status", "loadBalancer").(map[string]any)
	for _, in := range object.Objects(lb, "ingress") {
		addr, _ := in["ip"].(string)
		if addr == "" {
			addr, _ = in["hostname"].(string)
		}
		if addr != "" && !seen[addr] {
			seen[addr] = true
			addrs = append(addrs, addr)
		}
	}
	sort.Strings(addrs)
	ports := "80"
	if len(object.Objects(spec, "tls")) > 0 {
		ports = "80, 443"
	}
	return []any{table.Name(ing), class, hostCell, strings.Join(addrs, ","), ports, table.Age(ing, now)}
}
