package registry

import (
	"strconv"
	"strings"
	"testing"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
)

// TestSIM_1_ServiceAllocationAsKube: cluster IPs come from the service range
// (its first address is the `kubernetes` Service's), node ports from
// 30000-32767, and what a Service asks for out of range or taken is refused
// with kube-apiserver 1.32.13's messages and codes (recorded from the refapi
// kit, range 10.0.0.0/24): the first error only.
func TestSIM_1_ServiceAllocationAsKube(t *testing.T) {
	s, reg, _ := newStore(t)
	if err := s.SetServiceIPRange("10.0.0.0/24"); err != nil {
		t.Fatal(err)
	}
	if FirstServiceIP(DefaultServiceIPRange) != "10.96.0.1" || FirstServiceIP("10.0.0.77/24") != "10.0.0.1" || FirstServiceIP("nope") != "" {
		t.Fatal("FirstServiceIP")
	}
	create := func(name, spec string) (object.Object, error) {
		b, err := s.Create(target(reg, "", "v1", "services", "default", name),
			decode(t, []byte(`{"metadata":{"name":"`+name+`"},"spec":`+spec+`}`)))
		if err != nil {
			return nil, err
		}
		return decode(t, b), nil
	}
	svc, err := create("kubernetes", `{"clusterIP":"10.0.0.1","ports":[{"port":443}]}`)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		svc, err = create("np"+string(rune('a'+i)), `{"type":"NodePort","ports":[{"port":80}]}`)
		if err != nil {
			t.Fatal(err)
		}
		spec := svc["spec"].(map[string]any)
		ip, port := spec["clusterIP"].(string), object.Int(object.Objects(spec, "ports")[0]["nodePort"])
		if n, _ := parseIP4(ip); n <= 0x0a000001 || n >= 0x0a0000ff || port < 30000 || port > 32767 {
			t.Fatalf("allocated %s:%d", ip, port)
		}
	}
	for _, c := range []struct{ name, spec, message string }{
		{"a1", `{"clusterIP":"10.1.0.5","ports":[{"port":80}]}`,
			`Service "a1" is invalid: spec.clusterIPs: Invalid value: []string{"10.1.0.5"}: failed to allocate IP 10.1.0.5: the provided IP (10.1.0.5) is not in the valid range. The range of valid IPs is 10.0.0.0/24`},
		{"a2", `{"clusterIP":"10.0.0.1","ports":[{"port":80}]}`,
			`Service "a2" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.1"}: failed to allocate IP 10.0.0.1: provided IP is already allocated`},
		{"a3", `{"type":"NodePort","ports":[{"port":80,"nodePort":29999}]}`,
			`Service "a3" is invalid: spec.ports[0].nodePort: Invalid value: 29999: provided port is not in the valid range. The range of valid ports is 30000-32767`},
		{"a4", `{"clusterIP":"10.0.0.255","ports":[{"port":80}]}`, "the provided IP (10.0.0.255) is not in the valid range. The range of valid IPs is 10.0.0.0/24"},
		{"h1", `{"type":"NodePort","ports":[{"port":80,"nodePort":31001}]}`, ""},
		{"h2", `{"type":"LoadBalancer","externalTrafficPolicy":"Local","healthCheckNodePort":31001,"ports":[{"port":80}]}`,
			"Internal error occurred: failed to allocate requested HealthCheck NodePort 31001: provided port is already allocated"},
		{"h3", `{"type":"NodePort","ports":[{"port":80,"nodePort":31001},{"port":81,"nodePort":29000}]}`,
			`Service "h3" is invalid: spec.ports[0].nodePort: Invalid value: 31001: provided port is already allocated`},
		{"a5", `{"type":"NodePort","ports":[{"port":80,"nodePort":` + strconv.FormatInt(object.Int(object.Objects(svc["spec"].(map[string]any), "ports")[0]["nodePort"]), 10) + `}]}`,
			"provided port is already allocated"},
	} {
		_, err := create(c.name, c.spec)
		if c.message == "" && err != nil || c.message != "" && (err == nil || !strings.HasSuffix(apierrors.As(err).Message, c.message)) {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.message)
		}
	}
}
