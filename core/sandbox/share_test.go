package sandbox

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"kubeplay/core/budget"
	"kubeplay/core/object"
	"kubeplay/core/share"
)

// workshopState makes what a workshop hands out: a namespace, a
// CustomResourceDefinition and one of its objects, and ConfigMaps until
// there are 50 objects.
func workshopState(t *testing.T, e *env) {
	t.Helper()
	if r := e.do("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "shop"}}, admin); r.Code != 201 {
		t.Fatalf("namespace: %d %s", r.Code, r.Body)
	}
	e.widget("shop")
	for i := range 47 {
		cm := map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("settings-%02d", i), "labels": map[string]any{"app": "shop", "tier": []string{"web", "api", "db"}[i%3]}},
			"data": map[string]any{"color": []string{"red", "green", "blue"}[i%3], "replicas": fmt.Sprint(i%5 + 1)}}
		if r := e.do("POST", "/api/v1/namespaces/shop/configmaps", cm, admin); r.Code != 201 {
			t.Fatalf("configmap: %d %s", r.Code, r.Body)
		}
	}
}

// linkBytes is the share as a link's fragment carries it: gzip, then
// base64url (what ui/src/share.js does with the browser's CompressionStream).
func linkBytes(doc []byte) int {
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	w.Write(doc)
	w.Close()
	return len(base64.RawURLEncoding.EncodeToString(z.Bytes()))
}

// stripped is an object without its resourceVersion, which a share's
// import gives anew.
func stripped(t *testing.T, b []byte) string {
	t.Helper()
	o, err := object.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	delete(object.Meta(o), "resourceVersion")
	out, _ := json.Marshal(o)
	return string(out)
}

// TestLEARN_6_Share: GET /debug/kubeplay/share holds the objects clients
// made (not the cluster's own; a simulated cluster's add-ons, installed
// with kubectl as a person would, travel too), namespaces and definitions
// first; a
// 50-object workshop state travels in a link of at most 8 KB in both
// cluster modes; POST of it to a fresh sandbox gives the same objects (uid,
// managedFields, status) with new resourceVersions, a custom resource
// included; a bad share changes nothing, and one over the budget is undone.
func TestLEARN_6_Share(t *testing.T) {
	for _, mode := range []string{"api-only", "simulated"} {
		t.Run(mode, func(t *testing.T) {
			a := newEnv(t, Config{APIOnly: mode == "api-only"})
			workshopState(t, a)
			r := a.do("GET", share.Path, nil, admin)
			if r.Code != 200 {
				t.Fatalf("share: %d %s", r.Code, r.Body)
			}
			var doc share.Document
			if err := json.Unmarshal(r.Body, &doc); err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, o := range doc.Objects {
				keys = append(keys, o.Key)
			}
			made := 0
			for _, k := range keys {
				if strings.Contains(k, "/shop/") || k == "core/namespaces/shop" || k == "apiextensions.k8s.io/customresourcedefinitions/widgets.example.com" {
					made++
				}
			}
			if made != 50 || keys[0] != "core/namespaces/shop" || keys[1] != "apiextensions.k8s.io/customresourcedefinitions/widgets.example.com" {
				t.Errorf("the share holds %d of the 50 objects made, first %v", made, keys[:2])
			}
			for _, k := range keys {
				if strings.Contains(k, "flowschemas") || strings.HasSuffix(k, "clusterroles/cluster-admin") || strings.Contains(k, "/leases/") || strings.Contains(k, "kube-root-ca.crt") {
					t.Errorf("the share holds the cluster's own %s", k)
				}
			}
			n := linkBytes(r.Body)
			t.Logf("%s: %d objects, %d bytes of JSON, a link fragment of %d bytes (gzip -9, base64url)", mode, len(doc.Objects), len(r.Body), n)
			if n > 8192 {
				t.Errorf("a 50-object workshop state makes a link of %d bytes, over 8 KB", n)
			}

			b := newEnv(t, Config{APIOnly: mode == "api-only"})
			taken := b.send("POST", share.Path, "application/json", string(r.Body), admin.header())
			if taken.Code != 200 || object.String(taken.Obj["kind"]) != "KubeplayShareTaken" {
				t.Fatalf("take: %d %s", taken.Code, taken.Body)
			}
			for _, path := range []string{"/api/v1/namespaces/shop", "/api/v1/namespaces/shop/configmaps/settings-07", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com"} {
				if got, want := stripped(t, b.do("GET", path, nil, admin).Body), stripped(t, a.do("GET", path, nil, admin).Body); got != want {
					t.Errorf("%s: taken %s, shared %s", path, got, want)
				}
			}
			b.eventually("the shared Widget served", func() bool {
				w := b.do("GET", "/apis/example.com/v1/namespaces/shop/widgets/w", nil, admin)
				return w.Code == 200 && stripped(t, w.Body) == stripped(t, a.do("GET", "/apis/example.com/v1/namespaces/shop/widgets/w", nil, admin).Body)
			})

			// Bad shares: 400 naming the problem, nothing written.
			count := func(e *env) int {
				items, _ := e.do("GET", "/api/v1/configmaps", nil, admin).Obj["items"].([]any)
				return len(items)
			}
			c := newEnv(t, Config{APIOnly: true})
			before := count(c)
			var cm share.Object // one of the ConfigMaps
			for _, o := range doc.Objects {
				if strings.HasPrefix(o.Key, "core/configmaps/shop/") {
					cm = o
				}
			}
			for body, want := range map[string]string{
				`{"kind":"ConfigMap"}`:                              "not a kubeplay share",
				`{"kind":"KubeplayShare","version":2,"objects":[]}`: "format version 2",
				string(mustJSON(t, share.Document{Kind: "KubeplayShare", Version: 1, Objects: []share.Object{cm, {Key: "core/configmaps/shop/other", Object: cm.Object}}})): "its key names shop/other",
				string(mustJSON(t, share.Document{Kind: "KubeplayShare", Version: 1, Objects: []share.Object{cm, {Key: "nowhere/things/x", Object: cm.Object}}})):           "no resource of this sandbox",
				string(mustJSON(t, share.Document{Kind: "KubeplayShare", Version: 1, Objects: []share.Object{cm, cm}})):                                                     "the key comes twice",
			} {
				r := c.send("POST", share.Path, "application/json", body, admin.header())
				if r.Code != 400 || !strings.Contains(object.String(r.Obj["message"]), want) {
					t.Errorf("%.60s: %d %s, want 400 saying %q", body, r.Code, r.Body, want)
				}
			}
			if count(c) != before {
				t.Errorf("bad shares wrote: %d ConfigMaps, then %d", before, count(c))
			}
		})
	}

	// Over the budget: what was written is undone.
	a := newEnv(t, Config{APIOnly: true})
	workshopState(t, a)
	doc := a.do("GET", share.Path, nil, admin).Body
	probe := newEnv(t, Config{APIOnly: true})
	objects, _ := probe.sb.Server.Storage().Usage()
	small := newEnv(t, Config{APIOnly: true, Budget: budget.Limits{Objects: objects + 20}})
	r := small.send("POST", share.Path, "application/json", string(doc), admin.header())
	if r.Code < 400 || r.Code >= 500 {
		t.Errorf("a share over the budget: %d %s", r.Code, r.Body)
	}
	// Undone: none of its objects is left (the sandbox's own may come and go).
	if r := small.do("GET", "/api/v1/namespaces/shop", nil, admin); r.Code != 404 {
		t.Errorf("a share over the budget left its namespace: %d", r.Code)
	}
	if items, _ := small.do("GET", "/api/v1/configmaps?labelSelector=app%3Dshop", nil, admin).Obj["items"].([]any); len(items) != 0 {
		t.Errorf("a share over the budget left %d of its ConfigMaps", len(items))
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzShareRead: whatever a link carries, reading it as a share never
// panics, and what it accepts names, for every object, the namespace and
// name its key does (what Take writes where).
func FuzzShareRead(f *testing.F) {
	e := newEnv(f, Config{APIOnly: true})
	good := `{"kind":"KubeplayShare","version":1,"server":"v","revision":3,"objects":[{"key":"core/namespaces/shop","object":{"metadata":{"name":"shop","uid":"u1"}}},` +
		`{"key":"core/configmaps/shop/a","object":{"metadata":{"name":"a","namespace":"shop","uid":"u2"},"data":{"k":"v"}}}]}`
	for _, seed := range []string{good, `{"kind":"KubeplayShare","version":1,"objects":[]}`, `{}`, `null`, `[]`,
		`{"kind":"KubeplayShare","version":1,"objects":[{"key":"example.com/widgets/shop/w","object":{"metadata":{"name":"w","namespace":"shop","uid":"u"}}},` +
			`{"key":"apiextensions.k8s.io/customresourcedefinitions/widgets.example.com","object":{"metadata":{"name":"widgets.example.com","uid":"c"},"spec":{"group":"example.com","names":{"plural":"widgets"}}}}]}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := share.Read(bytes.NewReader(b), e.sb.Server.Registry)
		if err != nil {
			return
		}
		for _, o := range doc.Objects {
			obj, err := object.Decode(o.Object)
			if err != nil {
				t.Fatalf("accepted %s: %v", o.Key, err)
			}
			ns, name := object.MetaString(obj, "namespace"), object.MetaString(obj, "name")
			if want := "/" + name; !strings.HasSuffix(o.Key, want) || ns != "" && !strings.HasSuffix(o.Key, "/"+ns+want) {
				t.Fatalf("accepted %s for %s/%s", o.Key, ns, name)
			}
		}
	})
}
