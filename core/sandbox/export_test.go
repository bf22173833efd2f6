package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"kubeplay/core/export"
	"kubeplay/core/object"
	"kubeplay/core/storage"
)

// TestLEARN_6_ExportImportRoundTrip: a sandbox's export (GET
// /debug/kubeplay/export) starts another sandbox holding the same objects
// byte for byte (uids, resourceVersions, managedFields, a custom resource
// too) at the same revision, with the history it kept: a watch from a
// revision in it sees the same changes and then the new ones, one from
// before it (compacted) is 410, and writes go on from the revision.
func TestLEARN_6_ExportImportRoundTrip(t *testing.T) {
	a := newEnv(t, Config{APIOnly: true})
	ns := a.do("POST", "/api/v1/namespaces", map[string]any{"metadata": map[string]any{"name": "shop"}}, admin)
	if ns.Code != 201 {
		t.Fatalf("namespace: %d %s", ns.Code, ns.Body)
	}
	from := object.MetaString(ns.Obj, "resourceVersion")
	if r := a.do("POST", "/debug/kubeplay/compact?resourceVersion="+from, nil, admin); r.Code != 200 {
		t.Fatalf("compact: %d %s", r.Code, r.Body)
	}
	for i := range 3 {
		cm := map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("cm-%d", i), "labels": map[string]any{"app": "web"}}, "data": map[string]any{"i": strconv.Itoa(i)}}
		if r := a.do("POST", "/api/v1/namespaces/shop/configmaps", cm, admin); r.Code != 201 {
			t.Fatalf("configmap: %d %s", r.Code, r.Body)
		}
	}
	apply := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied"},"data":{"owner":"ssa"}}`
	req, _ := http.NewRequest("PATCH", a.hs.URL+"/api/v1/namespaces/shop/configmaps/applied?fieldManager=tutor", strings.NewReader(apply))
	req.Header = http.Header{"Authorization": {"Bearer kubeplay"}, "Content-Type": {"application/apply-patch+yaml"}}
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 201 {
		t.Fatalf("apply: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	a.widget("shop")

	r := a.do("GET", export.Path, nil, admin)
	if r.Code != 200 || r.Header.Get("Content-Type") != export.MediaType || !strings.HasPrefix(r.Header.Get("Content-Disposition"), `attachment; filename="kubeplay-`) {
		t.Fatalf("export: %d %v", r.Code, r.Header)
	}
	head, snap, err := export.Read(bytes.NewReader(r.Body), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if head.Cluster != (export.Cluster{Mode: "api-only"}) || head.Revision == 0 || head.Objects == 0 || head.Server == "" || strconv.FormatInt(head.Compacted, 10) != from {
		t.Fatalf("header %+v", head)
	}
	if r := a.do("GET", export.Path, nil, anonymous); r.Code != 403 {
		t.Fatalf("an anonymous export: %d %s", r.Code, r.Body)
	}

	b := newEnv(t, Config{APIOnly: true, Storage: storage.Config{Persister: storage.NewMemoryPersister(snap)}})
	if rev := b.sb.Storage().Revision(); rev < head.Revision {
		t.Fatalf("imported at revision %d, exported at %d", rev, head.Revision)
	}
	// The imported definition served first (its controller establishes it
	// as the sandbox starts), then everything compared.
	b.eventually("the imported Widget kind served", func() bool {
		return b.do("GET", "/apis/example.com/v1/namespaces/shop/widgets", nil, admin).Code == 200
	})
	for _, path := range []string{"/api/v1/namespaces/shop", "/api/v1/namespaces/shop/configmaps/cm-0", "/api/v1/namespaces/shop/configmaps/cm-2",
		"/api/v1/namespaces/shop/configmaps/applied", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com", "/apis/example.com/v1/namespaces/shop/widgets/w"} {
		var want, got resp
		b.eventually(path, func() bool {
			want, got = a.do("GET", path, nil, admin), b.do("GET", path, nil, admin)
			return got.Code == 200
		})
		if want.Code != 200 || !bytes.Equal(want.Body, got.Body) {
			t.Errorf("%s:\nexported %d %s\nimported %d %s", path, want.Code, want.Body, got.Code, got.Body)
		}
	}
	if mf := object.Path(b.do("GET", "/api/v1/namespaces/shop/configmaps/applied", nil, admin).Obj, "metadata", "managedFields"); fmt.Sprint(mf) == "" || !strings.Contains(fmt.Sprint(mf), "tutor") {
		t.Errorf("managedFields %v", mf)
	}

	// The history came along: a watch from where it begins sees the same
	// changes, then what is written next; from before it, 410.
	watch := func(e *env, from string) []string {
		w := e.do("GET", "/api/v1/namespaces/shop/configmaps?watch=1&timeoutSeconds=1&resourceVersion="+from, nil, admin)
		var seen []string
		sc := bufio.NewScanner(bytes.NewReader(w.Body))
		for sc.Scan() {
			var ev struct {
				Type   string
				Object struct {
					Metadata struct{ Name, ResourceVersion string }
				}
			}
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				seen = append(seen, ev.Type+" "+ev.Object.Metadata.Name+" "+ev.Object.Metadata.ResourceVersion)
			}
		}
		return seen
	}
	exported := watch(a, from)
	if len(exported) != 4 {
		t.Fatalf("the exporter's watch from %s: %v", from, exported)
	}
	if r := b.do("POST", "/api/v1/namespaces/shop/configmaps", map[string]any{"metadata": map[string]any{"name": "after"}}, admin); r.Code != 201 {
		t.Fatalf("a write after the import: %d %s", r.Code, r.Body)
	} else if n, _ := strconv.ParseInt(object.MetaString(r.Obj, "resourceVersion"), 10, 64); n <= head.Revision {
		t.Errorf("a write after the import at %d, not after the export's %d", n, head.Revision)
	}
	imported := watch(b, from)
	if len(imported) != 5 || strings.Join(imported[:4], ",") != strings.Join(exported, ",") || !strings.HasPrefix(imported[4], "ADDED after ") {
		t.Errorf("a watch from %s:\nexporter %v\nimported %v", from, exported, imported)
	}
	before := strconv.FormatInt(head.Compacted-1, 10)
	if old := b.do("GET", "/api/v1/namespaces/shop/configmaps?watch=1&timeoutSeconds=1&resourceVersion="+before, nil, admin); !bytes.Contains(old.Body, []byte(`"code":410`)) {
		t.Errorf("a watch from before the export's history: %d %s", old.Code, old.Body)
	}

	// Without its history: the same objects in a smaller file, compacted at
	// its revision, so a watch from the earlier revision is 410.
	short := a.do("GET", export.Path+"?history=false", nil, admin)
	sh, ssnap, err := export.Read(bytes.NewReader(short.Body), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Compacted != sh.Revision || sh.Objects != head.Objects || len(short.Body) >= len(r.Body) {
		t.Errorf("without history: header %+v (%d bytes), with: %+v (%d bytes)", sh, len(short.Body), head, len(r.Body))
	}
	c := newEnv(t, Config{APIOnly: true, Storage: storage.Config{Persister: storage.NewMemoryPersister(ssnap)}})
	if got, want := c.do("GET", "/api/v1/namespaces/shop/configmaps/applied", nil, admin), a.do("GET", "/api/v1/namespaces/shop/configmaps/applied", nil, admin); !bytes.Equal(got.Body, want.Body) {
		t.Errorf("without history, imported %s, exported %s", got.Body, want.Body)
	}
	if old := c.do("GET", "/api/v1/namespaces/shop/configmaps?watch=1&timeoutSeconds=1&resourceVersion="+from, nil, admin); !bytes.Contains(old.Body, []byte(`"code":410`)) {
		t.Errorf("without history, a watch from %s: %d %s", from, old.Code, old.Body)
	}
	if bad := a.do("GET", export.Path+"?history=no", nil, admin); bad.Code != 400 {
		t.Errorf("history=no: %d %s", bad.Code, bad.Body)
	}
}
