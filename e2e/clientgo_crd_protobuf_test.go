package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"kubeplay/core/apiserver"
)

// gizmoCRD is a definition whose schema uses every form of a schema's
// protobuf message: JSON values (default, enum, example), float64s
// (maximum, multipleOf), items, additionalProperties as a schema and as a
// bool, a map of properties, and validation rules.
func gizmoCRD() *apiextensionsv1.CustomResourceDefinition {
	maxSize, step := 10.5, 0.5
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gizmos.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gizmos", Singular: "gizmo", Kind: "Gizmo", ShortNames: []string{"gz"}},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {
							Type: "object",
							Properties: map[string]apiextensionsv1.JSONSchemaProps{
								"size":   {Type: "number", Maximum: &maxSize, MultipleOf: &step, Default: &apiextensionsv1.JSON{Raw: []byte(`2`)}},
								"colour": {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"red"`)}, {Raw: []byte(`"blue"`)}}, Example: &apiextensionsv1.JSON{Raw: []byte(`"red"`)}},
								"tags":   {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
								"labels": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
								"extra":  {Type: "object", XPreserveUnknownFields: &preserve},
							},
							XValidations: apiextensionsv1.ValidationRules{{Rule: "self.size >= 0", Message: "size is never negative"}},
						},
					},
				}},
				Subresources:             &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Size", Type: "number", JSONPath: ".spec.size"}},
			}},
		},
	}
}

// TestK8S_ENC_3_ClientGoProtobufCRD: client-go's apiextensions clientset,
// configured for protobuf as kube's own e2e clients are, creates, gets,
// lists, watches and updates a CustomResourceDefinition: every request and
// answer in protobuf, the schema coming back as it was sent.
func TestK8S_ENC_3_ClientGoProtobufCRD(t *testing.T) {
	hs, _ := startServer(t, apiserver.Config{})
	contentTypes := make(chan string, 100)
	cfg := &rest.Config{Host: hs.URL, BearerToken: "kubeplay", QPS: -1,
		ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf", AcceptContentTypes: "application/vnd.kubernetes.protobuf"},
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				resp, err := rt.RoundTrip(r)
				if err == nil {
					select {
					case contentTypes <- r.Method + " " + resp.Header.Get("Content-Type"):
					default:
					}
				}
				return resp, err
			})
		}}
	cs, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	w, err := crds.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	want := gizmoCRD()
	created, err := crds.Create(ctx, want, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(created.Spec.Versions[0].Schema, want.Spec.Versions[0].Schema) {
		t.Errorf("created schema differs:\n got %+v\nwant %+v", created.Spec.Versions[0].Schema.OpenAPIV3Schema, want.Spec.Versions[0].Schema.OpenAPIV3Schema)
	}
	if created.Spec.Names.ListKind != "GizmoList" || created.Spec.Conversion == nil || created.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Errorf("not defaulted: names %+v, conversion %+v", created.Spec.Names, created.Spec.Conversion)
	}
	got, err := crds.Get(ctx, "gizmos.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(got.Spec, created.Spec) {
		t.Errorf("got spec differs from the created one:\n got %+v\nwant %+v", got.Spec, created.Spec)
	}
	list, err := crds.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || !equality.Semantic.DeepEqual(list.Items[0].Spec, created.Spec) {
		t.Errorf("list: %+v", list.Items)
	}
	select {
	case ev := <-w.ResultChan():
		crd, ok := ev.Object.(*apiextensionsv1.CustomResourceDefinition)
		if ev.Type != watch.Added || !ok || crd.Name != "gizmos.example.com" {
			t.Errorf("watch event %s %T", ev.Type, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("no watch event")
	}

	// An update in protobuf, retried while the definition controller
	// writes its status.
	for {
		cur, err := crds.Get(ctx, "gizmos.example.com", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cur.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["colour"].Enum[1].Raw = []byte(`"green"`)
		updated, err := crds.Update(ctx, cur, metav1.UpdateOptions{})
		if err == nil {
			if enum := updated.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["colour"].Enum; string(enum[1].Raw) != `"green"` {
				t.Errorf("updated enum %s", enum[1].Raw)
			}
			if updated.Generation != 2 {
				t.Errorf("generation %d after a spec update", updated.Generation)
			}
			break
		}
		if ctx.Err() != nil {
			t.Fatal(err)
		}
	}
	close(contentTypes)
	n := 0
	for ct := range contentTypes {
		n++
		if ct != "GET application/vnd.kubernetes.protobuf" && ct != "POST application/vnd.kubernetes.protobuf" && ct != "PUT application/vnd.kubernetes.protobuf" &&
			ct != "GET application/vnd.kubernetes.protobuf;stream=watch" {
			t.Errorf("answer %s, not protobuf", ct)
		}
	}
	if n < 5 {
		t.Errorf("%d answers seen", n)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
