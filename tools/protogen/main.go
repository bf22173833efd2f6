// Command protogen writes the type table of kubeplay/core/types: the built-in
// kinds' Go types as messages, which the protobuf codec, the typed JSON and
// CBOR decoders, defaults and strategic merge patch read.
//
// It walks the Go types of k8s.io/api and k8s.io/apimachinery reflectively: the
// `protobuf` struct tags give field numbers and wire types, the Go kinds give
// pointer, value, slice and map shapes, and the `json` tags give the JSON names and
// omitempty, and the `patchStrategy` and `patchMergeKey` tags give what a
// strategic merge patch does with a field. The output is plain Go data, so the core never imports a k8s.io module
// and carries no reflection-driven runtime. Run it with `go generate` in
// core/types.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// root is one kind served by name.
type root struct {
	apiVersion string
	kind       string
	typ        reflect.Type
	// protobufOnly: the kind has its protobuf message here but is otherwise
	// untyped in kubeplay (its JSON is read as it comes, api.Resource.Untyped).
	protobufOnly bool
}

func typeOf(v any) reflect.Type { return reflect.TypeOf(v).Elem() }

// servedGroupVersions are the group versions of the built-in kinds; the meta kinds
// that kube registers in every group version are served under each of them.
var servedGroupVersions = []string{"v1", "apps/v1", "batch/v1", "coordination.k8s.io/v1", "discovery.k8s.io/v1", "policy/v1", "autoscaling/v1", "autoscaling/v2",
	"authentication.k8s.io/v1", "authorization.k8s.io/v1", "flowcontrol.apiserver.k8s.io/v1", "events.k8s.io/v1", "storage.k8s.io/v1", "networking.k8s.io/v1",
	"scheduling.k8s.io/v1", "node.k8s.io/v1", "rbac.authorization.k8s.io/v1", "apiregistration.k8s.io/v1", "certificates.k8s.io/v1", "admissionregistration.k8s.io/v1", "apiextensions.k8s.io/v1", "meta.k8s.io/v1"}

func roots() []root {
	rs := []root{}
	add := func(apiVersion string, obj, list any) {
		t := typeOf(obj)
		rs = append(rs, root{apiVersion: apiVersion, kind: t.Name(), typ: t})
		if list != nil {
			lt := typeOf(list)
			rs = append(rs, root{apiVersion: apiVersion, kind: lt.Name(), typ: lt})
		}
	}
	add("v1", &corev1.Namespace{}, &corev1.NamespaceList{})
	add("v1", &corev1.Pod{}, &corev1.PodList{})
	add("v1", &corev1.ConfigMap{}, &corev1.ConfigMapList{})
	add("v1", &corev1.Secret{}, &corev1.SecretList{})
	add("v1", &corev1.Service{}, &corev1.ServiceList{})
	add("v1", &corev1.Endpoints{}, &corev1.EndpointsList{})
	add("v1", &corev1.Node{}, &corev1.NodeList{})
	add("v1", &corev1.Event{}, &corev1.EventList{})
	add("events.k8s.io/v1", &eventsv1.Event{}, &eventsv1.EventList{})
	add("v1", &corev1.ServiceAccount{}, &corev1.ServiceAccountList{})
	add("v1", &corev1.PodTemplate{}, &corev1.PodTemplateList{})
	add("v1", &corev1.ComponentStatus{}, &corev1.ComponentStatusList{})
	add("v1", &corev1.ReplicationController{}, &corev1.ReplicationControllerList{})
	add("apps/v1", &appsv1.Deployment{}, &appsv1.DeploymentList{})
	add("apps/v1", &appsv1.ReplicaSet{}, &appsv1.ReplicaSetList{})
	add("apps/v1", &appsv1.StatefulSet{}, &appsv1.StatefulSetList{})
	add("apps/v1", &appsv1.DaemonSet{}, &appsv1.DaemonSetList{})
	add("apps/v1", &appsv1.ControllerRevision{}, &appsv1.ControllerRevisionList{})
	add("batch/v1", &batchv1.Job{}, &batchv1.JobList{})
	add("batch/v1", &batchv1.CronJob{}, &batchv1.CronJobList{})
	add("v1", &corev1.PersistentVolumeClaim{}, &corev1.PersistentVolumeClaimList{})
	add("v1", &corev1.PersistentVolume{}, &corev1.PersistentVolumeList{})
	add("storage.k8s.io/v1", &storagev1.StorageClass{}, &storagev1.StorageClassList{})
	add("storage.k8s.io/v1", &storagev1.CSIDriver{}, &storagev1.CSIDriverList{})
	add("storage.k8s.io/v1", &storagev1.CSINode{}, &storagev1.CSINodeList{})
	add("storage.k8s.io/v1", &storagev1.VolumeAttachment{}, &storagev1.VolumeAttachmentList{})
	add("storage.k8s.io/v1", &storagev1.CSIStorageCapacity{}, &storagev1.CSIStorageCapacityList{})
	add("v1", &corev1.ResourceQuota{}, &corev1.ResourceQuotaList{})
	add("v1", &corev1.LimitRange{}, &corev1.LimitRangeList{})
	add("coordination.k8s.io/v1", &coordinationv1.Lease{}, &coordinationv1.LeaseList{})
	add("discovery.k8s.io/v1", &discoveryv1.EndpointSlice{}, &discoveryv1.EndpointSliceList{})
	add("networking.k8s.io/v1", &networkingv1.NetworkPolicy{}, &networkingv1.NetworkPolicyList{})
	add("networking.k8s.io/v1", &networkingv1.Ingress{}, &networkingv1.IngressList{})
	add("networking.k8s.io/v1", &networkingv1.IngressClass{}, &networkingv1.IngressClassList{})
	add("scheduling.k8s.io/v1", &schedulingv1.PriorityClass{}, &schedulingv1.PriorityClassList{})
	add("node.k8s.io/v1", &nodev1.RuntimeClass{}, &nodev1.RuntimeClassList{})
	add("policy/v1", &policyv1.Eviction{}, nil)
	add("policy/v1", &policyv1.PodDisruptionBudget{}, &policyv1.PodDisruptionBudgetList{})
	add("v1", &corev1.Binding{}, nil)
	add("flowcontrol.apiserver.k8s.io/v1", &flowcontrolv1.FlowSchema{}, &flowcontrolv1.FlowSchemaList{})
	add("flowcontrol.apiserver.k8s.io/v1", &flowcontrolv1.PriorityLevelConfiguration{}, &flowcontrolv1.PriorityLevelConfigurationList{})
	add("authentication.k8s.io/v1", &authenticationv1.SelfSubjectReview{}, nil)
	add("authentication.k8s.io/v1", &authenticationv1.TokenReview{}, nil)
	add("authentication.k8s.io/v1", &authenticationv1.TokenRequest{}, nil)
	add("authorization.k8s.io/v1", &authorizationv1.SelfSubjectAccessReview{}, nil)
	add("authorization.k8s.io/v1", &authorizationv1.SubjectAccessReview{}, nil)
	add("authorization.k8s.io/v1", &authorizationv1.LocalSubjectAccessReview{}, nil)
	add("authorization.k8s.io/v1", &authorizationv1.SelfSubjectRulesReview{}, nil)
	add("apiregistration.k8s.io/v1", &apiregistrationv1.APIService{}, &apiregistrationv1.APIServiceList{})
	add("rbac.authorization.k8s.io/v1", &rbacv1.ClusterRole{}, &rbacv1.ClusterRoleList{})
	add("rbac.authorization.k8s.io/v1", &rbacv1.ClusterRoleBinding{}, &rbacv1.ClusterRoleBindingList{})
	add("rbac.authorization.k8s.io/v1", &rbacv1.Role{}, &rbacv1.RoleList{})
	add("rbac.authorization.k8s.io/v1", &rbacv1.RoleBinding{}, &rbacv1.RoleBindingList{})
	add("certificates.k8s.io/v1", &certificatesv1.CertificateSigningRequest{}, &certificatesv1.CertificateSigningRequestList{})
	add("admissionregistration.k8s.io/v1", &admissionregistrationv1.ValidatingWebhookConfiguration{}, &admissionregistrationv1.ValidatingWebhookConfigurationList{})
	add("admissionregistration.k8s.io/v1", &admissionregistrationv1.MutatingWebhookConfiguration{}, &admissionregistrationv1.MutatingWebhookConfigurationList{})
	add("admissionregistration.k8s.io/v1", &admissionregistrationv1.ValidatingAdmissionPolicy{}, &admissionregistrationv1.ValidatingAdmissionPolicyList{})
	add("admissionregistration.k8s.io/v1", &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}, &admissionregistrationv1.ValidatingAdmissionPolicyBindingList{})
	add("autoscaling/v1", &autoscalingv1.Scale{}, nil)
	add("autoscaling/v2", &autoscalingv2.HorizontalPodAutoscaler{}, &autoscalingv2.HorizontalPodAutoscalerList{})
	add("autoscaling/v1", &autoscalingv1.HorizontalPodAutoscaler{}, &autoscalingv1.HorizontalPodAutoscalerList{})
	n := len(rs)
	add("apiextensions.k8s.io/v1", &apiextensionsv1.CustomResourceDefinition{}, &apiextensionsv1.CustomResourceDefinitionList{})
	for i := n; i < len(rs); i++ {
		rs[i].protobufOnly = true
	}
	for _, gv := range servedGroupVersions {
		add(gv, &metav1.Status{}, nil)
		add(gv, &metav1.DeleteOptions{}, nil)
		add(gv, &metav1.WatchEvent{}, nil)
	}
	// The metadata-only forms client-go's metadata client asks for
	// (as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1).
	add("meta.k8s.io/v1", &metav1.PartialObjectMetadata{}, &metav1.PartialObjectMetadataList{})
	add("meta.k8s.io/v1", &metav1.ListMeta{}, nil)
	add("meta.k8s.io/v1", &metav1.ObjectMeta{}, nil)
	return rs
}

// specials are the types with their own protobuf and JSON forms, handled by the
// runtime; the value is the name of the runtime's kind constant.
var specials = map[reflect.Type]string{
	typeOf(&metav1.Time{}):          "KindTime",
	typeOf(&metav1.MicroTime{}):     "KindMicroTime",
	typeOf(&resource.Quantity{}):    "KindQuantity",
	typeOf(&intstr.IntOrString{}):   "KindIntOrString",
	typeOf(&runtime.RawExtension{}): "KindRawExtension",
	typeOf(&metav1.FieldsV1{}):      "KindFieldsV1",
	// apiextensions' JSON is {raw=1} holding a JSON value, as RawExtension is.
	typeOf(&apiextensionsv1.JSON{}): "KindRawExtension",
}

// either are the types whose JSON is one of two forms of their message's fields
// (apiextensions' custom MarshalJSON): the field's kind is the value, its
// message the type's own.
var either = map[reflect.Type]string{
	typeOf(&apiextensionsv1.JSONSchemaPropsOrArray{}):       "KindSchemaOrArray",
	typeOf(&apiextensionsv1.JSONSchemaPropsOrBool{}):        "KindSchemaOrBool",
	typeOf(&apiextensionsv1.JSONSchemaPropsOrStringArray{}): "KindSchemaOrStringArray",
}

// unsupported are fields the table leaves out: the runtime has no kind for a map
// of named string lists (a user's extra attributes in the reviews and in a
// certificate signing request), so a binary one carries no extra attributes;
// JSON, YAML and CBOR ones do.
var unsupported = map[string]bool{
	"v1.UserInfo.Extra":                      true,
	"v1.SubjectAccessReviewSpec.Extra":       true,
	"v1.SelfSubjectAccessReviewSpec.Extra":   true,
	"v1.CertificateSigningRequestSpec.Extra": true,
}

type field struct {
	num       int
	pos       int // the field's position in its Go struct, whose order encoding/json writes
	name      string
	kind      string
	msg       int
	pointer   bool
	repeated  bool
	isMap     bool
	omitEmpty bool
	inline    bool
	goName    string
	goType    string // the field's Go type, pointer stripped, as reflect prints it
	// strategies are the field's patchStrategy tag's values (merge, replace,
	// retainKeys); mergeKey its patchMergeKey.
	strategies []string
	mergeKey   string
	elemType   string // for repeated and map fields: the element's
}

type message struct {
	name     string
	goType   string
	typeMeta bool // embeds metav1.TypeMeta: kind and apiVersion are its JSON fields
	fields   []field
}

type generator struct {
	messages  []*message
	mergeKeys []string // the merge keys the table refers to, by first use; 0 is none
	index     map[reflect.Type]int
	types     []string // the Go type names the table refers to, by first use
	typeIDs   map[string]int
}

// mergeKeyID numbers a merge key for the mergeKeys table.
func (g *generator) mergeKeyID(key string) int {
	for i, k := range g.mergeKeys {
		if k == key {
			return i
		}
	}
	g.mergeKeys = append(g.mergeKeys, key)
	return len(g.mergeKeys) - 1
}

// patchFlags are the flag constants of a field's patch strategies.
func patchFlags(owner string, f field) []string {
	var out []string
	for _, s := range f.strategies {
		switch s {
		case "merge":
			out = append(out, "FlagPatchMerge")
		case "replace":
			out = append(out, "FlagPatchReplace")
		case "retainKeys":
			out = append(out, "FlagPatchRetainKeys")
		default:
			log.Fatalf("%s.%s: unknown patch strategy %q", owner, f.goName, s)
		}
	}
	if len(f.strategies) > 2 || len(f.strategies) == 2 && f.strategies[0] != "retainKeys" && f.strategies[1] != "retainKeys" {
		// strategic merge patch takes one strategy, or one with retainKeys.
		log.Fatalf("%s.%s: patch strategies %v", owner, f.goName, f.strategies)
	}
	return out
}

// typeID numbers a Go type name for the goTypes table.
func (g *generator) typeID(name string) int {
	if id, ok := g.typeIDs[name]; ok {
		return id
	}
	g.typeIDs[name] = len(g.types)
	g.types = append(g.types, name)
	return len(g.types) - 1
}

var jsonMarshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

func (g *generator) message(t reflect.Type) int {
	if i, ok := g.index[t]; ok {
		return i
	}
	if t.Kind() != reflect.Struct {
		log.Fatalf("%v: not a struct", t)
	}
	if (t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler)) && either[t] == "" {
		log.Fatalf("%v has its own JSON form and is not a known special type", t)
	}
	m := &message{name: t.Name(), goType: t.String()}
	i := len(g.messages)
	g.messages = append(g.messages, m)
	g.index[t] = i
	for j := 0; j < t.NumField(); j++ {
		sf := t.Field(j)
		if unsupported[t.String()+"."+sf.Name] {
			continue
		}
		tag, ok := sf.Tag.Lookup("protobuf")
		if !ok || tag == "-" {
			if sf.Anonymous && sf.Type == typeOf(&metav1.TypeMeta{}) {
				m.typeMeta = true // kind and apiVersion travel in the envelope
				continue
			}
			log.Fatalf("%v.%s has no protobuf tag", t, sf.Name)
		}
		inline := sf.Anonymous && (sf.Tag.Get("json") == "" || sf.Tag.Get("json")[0] == ',')
		if inline && (sf.Type.Kind() != reflect.Struct || specials[sf.Type] != "") {
			log.Fatalf("%v.%s: only plain structs can be inlined", t, sf.Name)
		}
		parts := strings.Split(tag, ",")
		num, err := strconv.Atoi(parts[1])
		if err != nil {
			log.Fatalf("%v.%s: bad protobuf tag %q", t, sf.Name, tag)
		}
		f := field{num: num, pos: j, goName: sf.Name, msg: -1, inline: inline}
		jsonTag := sf.Tag.Get("json")
		jsonName, opts, _ := strings.Cut(jsonTag, ",")
		switch {
		case inline:
			// no name: the message's JSON fields sit in the parent object
		case jsonName == "-":
			log.Fatalf("%v.%s: field without a JSON name", t, sf.Name)
		case jsonName == "":
			f.name = sf.Name
		default:
			f.name = jsonName
		}
		f.omitEmpty = strings.Contains(","+opts+",", ",omitempty,")
		f.mergeKey = sf.Tag.Get("patchMergeKey")
		if ps := sf.Tag.Get("patchStrategy"); ps != "" {
			f.strategies = strings.Split(ps, ",")
		}
		ft := sf.Type
		f.goType = ft.String()
		switch {
		case ft.Kind() == reflect.Pointer:
			f.pointer = true
			ft = ft.Elem()
			f.goType = ft.String()
		case ft.Kind() == reflect.Map:
			f.isMap = true
			if ft.Key().Kind() != reflect.String {
				log.Fatalf("%v.%s: map key %v is not a string", t, sf.Name, ft.Key())
			}
			// Map entries are {key = 1, value = 2}; meta/v1 leaves the tags out.
			if k, v := sf.Tag.Get("protobuf_key"), sf.Tag.Get("protobuf_val"); k != "" && !strings.HasPrefix(k, "bytes,1,") || v != "" && !strings.Contains(v, ",2,") {
				log.Fatalf("%v.%s: unexpected map entry tags %q %q", t, sf.Name, k, v)
			}
			ft = ft.Elem()
			f.elemType = ft.String()
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8:
			f.repeated = true
			ft = ft.Elem()
			f.elemType = ft.String()
		}
		if ft.Kind() == reflect.Pointer {
			log.Fatalf("%v.%s: pointer elements are not handled", t, sf.Name)
		}
		g.kind(&f, ft, t)
		m.fields = append(m.fields, f)
	}
	sort.Slice(m.fields, func(a, b int) bool { return m.fields[a].num < m.fields[b].num })
	g.checkNames(t, m, map[string]bool{})
	for k := 1; k < len(m.fields); k++ {
		if m.fields[k].num == m.fields[k-1].num {
			log.Fatalf("%v: field number %d twice", t, m.fields[k].num)
		}
	}
	return i
}

// checkNames makes sure the JSON names of m, with its inlined messages' fields
// in the same object, are distinct.
func (g *generator) checkNames(t reflect.Type, m *message, seen map[string]bool) {
	for _, f := range m.fields {
		if f.inline {
			g.checkNames(t, g.messages[f.msg], seen)
			continue
		}
		if seen[f.name] {
			log.Fatalf("%v: JSON name %q twice", t, f.name)
		}
		seen[f.name] = true
	}
}

// kind sets f's kind for the element type ft. The wire type follows from the Go
// type, as in the generated marshalers: the tags' wire types are not reliable
// (ListMeta.remainingItemCount is tagged bytes and written as a varint).
func (g *generator) kind(f *field, ft reflect.Type, owner reflect.Type) {
	switch {
	case specials[ft] != "":
		f.kind = specials[ft]
	case either[ft] != "":
		f.kind = either[ft]
		f.msg = g.message(ft)
	case ft.Kind() == reflect.Struct:
		f.kind = "KindMessage"
		f.msg = g.message(ft)
	case ft.Kind() == reflect.String:
		f.kind = "KindString"
	case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Uint8:
		f.kind = "KindBytes"
	case ft.Kind() == reflect.Bool:
		f.kind = "KindBool"
	case ft.Kind() == reflect.Int32:
		f.kind = "KindInt32"
	case ft.Kind() == reflect.Int64:
		f.kind = "KindInt64"
	case ft.Kind() == reflect.Float64:
		f.kind = "KindDouble"
	default:
		log.Fatalf("%v.%s: unhandled Go type %v", owner, f.goName, ft)
	}
}

func main() {
	out := flag.String("out", "types_gen.go", "output file")
	flag.Parse()
	g := &generator{index: map[reflect.Type]int{}, typeIDs: map[string]int{"": 0}, types: []string{""}, mergeKeys: []string{""}}
	type entry struct {
		key string
		msg int
	}
	var kinds, protobufOnly []entry
	for _, r := range roots() {
		e := entry{r.apiVersion + "/" + r.kind, g.message(r.typ)}
		if r.protobufOnly {
			protobufOnly = append(protobufOnly, e)
		} else {
			kinds = append(kinds, e)
		}
		if strings.HasSuffix(r.kind, "List") {
			checkList(r.typ)
		}
	}
	sort.Slice(kinds, func(a, b int) bool { return kinds[a].key < kinds[b].key })
	sort.Slice(protobufOnly, func(a, b int) bool { return protobufOnly[a].key < protobufOnly[b].key })

	var b bytes.Buffer
	b.WriteString("// Code generated by tools/protogen from k8s.io/api " + moduleVersion() + "; DO NOT EDIT.\n\npackage types\n\n")
	b.WriteString("// Messages holds every message type reachable from the served kinds.\n")
	b.WriteString("var Messages = [...]Message{\n")
	for i, m := range g.messages {
		tm := ""
		if m.typeMeta {
			tm = ", TypeMeta: true"
		}
		fmt.Fprintf(&b, "\t%d: {GoType: %d%s%s, Fields: []Field{ // %s\n", i, g.typeID(m.goType), tm, jsonOrder(m), m.name)
		for _, f := range m.fields {
			var flags []string
			if f.pointer {
				flags = append(flags, "FlagPointer")
			}
			if f.repeated {
				flags = append(flags, "FlagRepeated")
			}
			if f.isMap {
				flags = append(flags, "FlagMap")
			}
			if f.inline {
				flags = append(flags, "FlagInline")
			}
			if f.omitEmpty {
				flags = append(flags, "FlagOmitEmpty")
			}
			flags = append(flags, patchFlags(m.name, f)...)
			fl := ""
			if len(flags) > 0 {
				fl = ", Flags: " + strings.Join(flags, "|")
			}
			msg := ""
			if f.msg >= 0 {
				msg = fmt.Sprintf(", Msg: %d", f.msg)
			}
			types := fmt.Sprintf(", GoType: %d", g.typeID(f.goType))
			if f.elemType != "" {
				types += fmt.Sprintf(", ElemType: %d", g.typeID(f.elemType))
			}
			if f.mergeKey != "" {
				types += fmt.Sprintf(", MergeKey: %d", g.mergeKeyID(f.mergeKey))
			}
			fmt.Fprintf(&b, "\t\t{Num: %d, Name: %q, Kind: %s%s%s%s},\n", f.num, f.name, f.kind, msg, fl, types)
		}
		b.WriteString("\t}},\n")
	}
	b.WriteString("}\n\n// GoTypes are the Go type names of the messages and fields, as kube's decoding errors\n// print them (\"int32\", \"[]v1.Container\", \"v1.ResourceList\").\n")
	b.WriteString("var GoTypes = [...]string{\n")
	for i, name := range g.types {
		fmt.Fprintf(&b, "\t%d: %q,\n", i, name)
	}
	b.WriteString("}\n\n// MergeKeys are the patchMergeKey tags' values (0: none).\n")
	b.WriteString("var MergeKeys = [...]string{\n")
	for i, k := range g.mergeKeys {
		fmt.Fprintf(&b, "\t%d: %q,\n", i, k)
	}
	b.WriteString("}\n\n// kinds maps \"apiVersion/kind\" to the kind's message in Messages.\n")
	b.WriteString("var kinds = map[string]uint16{\n")
	for _, k := range kinds {
		fmt.Fprintf(&b, "\t%q: %d,\n", k.key, k.msg)
	}
	b.WriteString("}\n\n// protobufOnlyKinds maps \"apiVersion/kind\" to the message of a kind that\n// kubeplay reads and writes typed in protobuf only (LookupProtobuf).\n")
	b.WriteString("var protobufOnlyKinds = map[string]uint16{\n")
	for _, k := range protobufOnly {
		fmt.Fprintf(&b, "\t%q: %d,\n", k.key, k.msg)
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatalf("format: %v\n%s", err, b.Bytes())
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// jsonOrder is the order: attribute of a message whose fields' order in its Go
// struct (the order encoding/json writes them in) is not their numbers'.
func jsonOrder(m *message) string {
	order := make([]int, len(m.fields))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return m.fields[order[a]].pos < m.fields[order[b]].pos })
	if sort.IntsAreSorted(order) {
		return ""
	}
	if len(order) > 255 {
		log.Fatalf("%s: more fields than an order holds", m.name)
	}
	parts := make([]string, len(order))
	for i, o := range order {
		parts[i] = strconv.Itoa(o)
	}
	return ", Order: []uint8{" + strings.Join(parts, ", ") + "}"
}

// checkList makes sure a list kind has the shape AppendList writes:
// metadata (ListMeta) = 1, items = 2, and nothing else.
func checkList(t reflect.Type) {
	meta, ok1 := t.FieldByName("ListMeta")
	items, ok2 := t.FieldByName("Items")
	if !ok1 || !ok2 || t.NumField() != 3 ||
		!strings.HasPrefix(meta.Tag.Get("protobuf"), "bytes,1,opt,") ||
		!strings.HasPrefix(items.Tag.Get("protobuf"), "bytes,2,rep,") {
		log.Fatalf("%v does not have the list shape {TypeMeta, metadata=1, items=2}", t)
	}
}

// moduleVersion names the k8s.io/api version the table was generated from.
func moduleVersion() string {
	data, err := os.ReadFile(findGoMod())
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "k8s.io/api" {
			return f[1]
		}
	}
	log.Fatal("k8s.io/api not in go.mod")
	return ""
}

func findGoMod() string {
	dir, err := os.Getwd()
	if err != nil {
		log.Fatal(err)
	}
	for {
		if _, err := os.Stat(dir + "/go.mod"); err == nil {
			return dir + "/go.mod"
		}
		i := strings.LastIndex(dir, "/")
		if i <= 0 {
			log.Fatal("no go.mod above the working directory")
		}
		dir = dir[:i]
	}
}
