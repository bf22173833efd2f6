package apiserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"kubeplay/core/encoding"
	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/object"
	"kubeplay/core/types"
)

// fzWriteKinds are the collections the typed-write fuzz target writes to
// (wrongTypeCollections' keys), with their kinds.
var fzWriteKinds = []struct{ res, apiVersion, kind string }{
	{"cm", "v1", "ConfigMap"}, {"secret", "v1", "Secret"}, {"pod", "v1", "Pod"}, {"deploy", "apps/v1", "Deployment"},
	{"svc", "v1", "Service"}, {"event", "v1", "Event"}, {"lease", "coordination.k8s.io/v1", "Lease"},
	{"ep", "v1", "Endpoints"}, {"sa", "v1", "ServiceAccount"}, {"rs", "apps/v1", "ReplicaSet"}, {"node", "v1", "Node"},
}

// fzServedMedia are the representations every stored object is served in.
var fzServedMedia = []string{
	"application/json", "application/yaml", "application/vnd.kubernetes.protobuf", "application/cbor",
	"application/json;as=Table;v=v1;g=meta.k8s.io",
}

// fzReadBack decodes an answer in media and checks the object kube clients
// would get is one kube would read back as a body of the kind.
func fzReadBack(t *testing.T, what, media string, body []byte, apiVersion, kind string) {
	t.Helper()
	var obj any
	var err error
	switch media {
	case "application/json", "application/json;as=Table;v=v1;g=meta.k8s.io":
		obj, err = object.Decode(body)
	case "application/yaml":
		var doc []byte
		if doc, err = encoding.YAMLToJSON(body); err == nil {
			obj, err = object.Decode(doc)
		}
	case "application/cbor":
		obj, err = encoding.DecodeCBOR(body)
	case "application/vnd.kubernetes.protobuf":
		var av, k string
		var raw []byte
		if av, k, raw, err = protobuf.ParseEnvelope(body); err == nil {
			obj, err = protobuf.Unmarshal(av, k, raw)
		}
	}
	if err != nil {
		t.Fatalf("%s as %s does not decode: %v\n%q", what, media, err, body)
	}
	if strings.Contains(media, "as=Table") || strings.Contains(what, "list") {
		return
	}
	doc, err := json.Marshal(obj)
	if err == nil {
		_, err = types.DecodeJSON(apiVersion, kind, doc)
	}
	if err != nil {
		t.Fatalf("%s as %s is no %s kube would read back: %v\n%s", what, media, kind, err, doc)
	}
}

// FuzzK8S_WRITE_5_AcceptedBodyServedEverywhere: whatever a create (JSON, YAML,
// CBOR or protobuf body) or a merge patch accepts, the object it stored is served by get
// and list in every representation (JSON, YAML, protobuf, CBOR, Table), each
// decodes, and each is an object kube would read back. The seeds are the bodies
// of the recorded kube answers.
func FuzzK8S_WRITE_5_AcceptedBodyServedEverywhere(f *testing.F) {
	k := loadKubeAnswers(&testing.T{})
	for _, c := range k.Cases {
		for i, kind := range fzWriteKinds {
			if kind.res == c.Kind {
				for how := range 5 {
					f.Add(uint8(i), uint8(how), []byte(strings.ReplaceAll(c.Body, "NAME", "fz")))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, kind, how uint8, body []byte) {
		s := fzServer(t)
		w := fzWriteKinds[int(kind)%len(fzWriteKinds)]
		res, coll := w.res, wrongTypeCollections[w.res]
		method, contentType, item := http.MethodPost, "application/json", ""
		switch how % 5 {
		case 1:
			contentType = "application/yaml"
		case 2:
			contentType = "application/cbor"
			if v, err := object.DecodeValue(body); err == nil {
				if doc, err := encoding.AppendCBOR(nil, v); err == nil {
					body = doc
				}
			}
		case 4: // protobuf, when the JSON fits the kind's messages
			if v, err := object.DecodeValue(body); err == nil {
				if obj, ok := v.(map[string]any); ok {
					if raw, err := protobuf.Marshal(nil, w.apiVersion, w.kind, obj); err == nil {
						contentType, body = "application/vnd.kubernetes.protobuf", protobuf.AppendEnvelope(nil, w.apiVersion, w.kind, raw)
					}
				}
			}
		case 3: // a merge patch of a valid object
			method, contentType, item = http.MethodPatch, "application/merge-patch+json", coll+"/fz-patched"
			valid := strings.ReplaceAll(wrongTypeValid[res], "NAME", "fz-patched")
			if code, out := fzDo(s, http.MethodPost, coll, "", "application/json", []byte(valid)); code != http.StatusCreated {
				t.Fatalf("creating the object to patch: %d %s", code, out)
			}
		}
		path := coll
		if item != "" {
			path = item
		}
		rec, _ := fzServe(s, method, path, "", contentType, body)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		if rec.Code >= 300 {
			fzCheckStatus(t, method+" "+path, rec)
			if item != "" {
				fzDo(s, http.MethodDelete, item, "", "", nil)
			}
			return
		}
		stored, err := object.Decode(rec.Body.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		apiVersion, storedKind := stored["apiVersion"].(string), stored["kind"].(string)
		item = coll + "/" + object.MetaString(stored, "name")
		defer func() {
			fzDo(s, http.MethodPatch, item, "", "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`))
			fzDo(s, http.MethodDelete, item, "", "", nil)
		}()
		for _, media := range fzServedMedia {
			for _, p := range []string{item, coll} {
				rec, _ := fzServe(s, http.MethodGet, p, "", "", nil, "Accept", media)
				what := "get " + p
				if p == coll {
					what = "list " + p
				}
				if rec.Code != http.StatusOK {
					t.Fatalf("%s as %s after %s %q: %d %s", what, media, method, body, rec.Code, rec.Body)
				}
				fzReadBack(t, what, media, rec.Body.Bytes(), apiVersion, storedKind)
			}
		}
	})
}
