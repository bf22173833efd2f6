package table

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1beta1/validation"
	"k8s.io/apimachinery/pkg/runtime"

	"kubeplay/core/object"
)

// kubeTable builds the metav1.Table kube-apiserver's asTable builds from the
// same printer output, so that encoding/json (kube's JSON serializer) gives the
// bytes Build must give.
func kubeTable(t testing.TB, p *Printer, items []Item, opts Options) *metav1.Table {
	t.Helper()
	tbl := &metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/" + opts.Version},
		ListMeta: metav1.ListMeta{
			ResourceVersion:    opts.ListMeta.ResourceVersion,
			Continue:           opts.ListMeta.Continue,
			RemainingItemCount: opts.ListMeta.RemainingItemCount,
		},
	}
	if !opts.NoHeaders {
		for _, c := range p.Columns() {
			tbl.ColumnDefinitions = append(tbl.ColumnDefinitions, metav1.TableColumnDefinition{
				Name: c.Name, Type: c.Type, Format: c.Format, Description: c.Description, Priority: int32(c.Priority),
			})
		}
	}
	if !p.nullRows {
		tbl.Rows = []metav1.TableRow{}
	}
	for _, it := range items {
		row := metav1.TableRow{Cells: p.Cells(it.Object, opts.Now)}
		for _, c := range p.Conditions(it.Object) {
			row.Conditions = append(row.Conditions, metav1.TableRowCondition{
				Type: metav1.RowConditionType(c.Type), Status: metav1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message,
			})
		}
		raw, err := object.Encode(it.Object)
		if err != nil {
			t.Fatal(err)
		}
		switch opts.Include {
		case IncludeNone:
		case IncludeObjects:
			row.Object = runtime.RawExtension{Raw: object.WithTypeMeta(raw, it.Kind, it.APIVersion)}
		default:
			var typed struct {
				metav1.ObjectMeta `json:"metadata"`
			}
			if err := json.Unmarshal(raw, &typed); err != nil {
				t.Fatal(err)
			}
			partial := meta.AsPartialObjectMetadata(&typed.ObjectMeta)
			partial.APIVersion, partial.Kind = "meta.k8s.io/"+opts.Version, "PartialObjectMetadata"
			row.Object = runtime.RawExtension{Object: partial}
		}
		tbl.Rows = append(tbl.Rows, row)
	}
	return tbl
}

func podItems(t testing.TB) []Item {
	t.Helper()
	var fx fixture
	for _, f := range loadFixtures(t) {
		if f.file == "pods.json" {
			fx = f
		}
	}
	var items []Item
	for i := range fx.cf.Cases {
		items = append(items, Item{Object: fx.object(t, i), Kind: "Pod", APIVersion: "v1"})
	}
	return items
}

func TestK8S_ENC_5_BuildMatchesKubeEncoding(t *testing.T) {
	pods := podItems(t)
	count := int64(0)
	for _, tc := range []struct {
		name    string
		printer *Printer
		items   []Item
		opts    Options
	}{
		{"list metadata", For("", "pods"), pods, Options{Version: "v1", ListMeta: ListMeta{ResourceVersion: "812", Continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", RemainingItemCount: &count}}},
		{"list none", For("", "pods"), pods, Options{Version: "v1", Include: IncludeNone, ListMeta: ListMeta{ResourceVersion: "9"}}},
		{"list object", For("", "pods"), pods, Options{Version: "v1", Include: IncludeObjects}},
		{"v1beta1", For("", "pods"), pods[:3], Options{Version: "v1beta1", Include: IncludeMetadata}},
		{"no headers", For("", "pods"), pods[:1], Options{Version: "v1", NoHeaders: true}},
		{"empty list", For("", "pods"), nil, Options{Version: "v1", ListMeta: ListMeta{ResourceVersion: "5"}}},
		{"empty default list", For("example.com", "widgets"), nil, Options{Version: "v1"}},
		{"default printer", For("example.com", "widgets"), pods[:2], Options{Version: "v1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Now = goldenNow
			got, err := Build([]byte("prefix"), tc.printer, tc.items, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got, []byte("prefix")) {
				t.Fatal("Build did not append to dst")
			}
			got = got[len("prefix"):]
			want, err := json.Marshal(kubeTable(t, tc.printer, tc.items, tc.opts))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("Build:\n got %s\nwant %s", got, want)
			}
			var tbl metav1.Table
			if err := json.Unmarshal(got, &tbl); err != nil {
				t.Fatalf("not a metav1.Table: %v", err)
			}
			if len(tbl.Rows) != len(tc.items) {
				t.Fatalf("%d rows, want %d", len(tbl.Rows), len(tc.items))
			}
		})
	}
}

func TestK8S_ENC_5_RowObjectShapes(t *testing.T) {
	obj, err := object.Decode([]byte(`{"metadata":{"name":"p","namespace":"default","uid":"u1","resourceVersion":"7","labels":{"app":"<web>"}},"spec":{"containers":[{"name":"a","image":"a"}]},"status":{"phase":"Running"}}`))
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := object.Encode(obj)
	it := Item{Object: obj, Raw: stored, Kind: "Pod", APIVersion: "v1"}
	rowObject := func(include IncludeObject, version string) string {
		b, err := Build(nil, For("", "pods"), []Item{it}, Options{Version: version, Include: include, Now: goldenNow})
		if err != nil {
			t.Fatal(err)
		}
		var tbl struct {
			Rows []struct{ Object json.RawMessage }
		}
		if err := json.Unmarshal(b, &tbl); err != nil {
			t.Fatal(err)
		}
		return string(tbl.Rows[0].Object)
	}
	for _, tc := range []struct {
		include IncludeObject
		version string
		want    string
	}{
		{IncludeNone, "v1", `null`},
		{"", "v1", `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"p","namespace":"default","uid":"u1","resourceVersion":"7","creationTimestamp":null,"labels":{"app":"\u003cweb\u003e"}}}`},
		{IncludeMetadata, "v1beta1", `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1beta1","metadata":{"name":"p","namespace":"default","uid":"u1","resourceVersion":"7","creationTimestamp":null,"labels":{"app":"\u003cweb\u003e"}}}`},
		{IncludeObjects, "v1", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"default","uid":"u1","resourceVersion":"7","labels":{"app":"\u003cweb\u003e"}},"spec":{"containers":[{"image":"a","name":"a"}]},"status":{"phase":"Running"}}`},
	} {
		if got := rowObject(tc.include, tc.version); got != tc.want {
			t.Errorf("includeObject=%q %s:\n got %s\nwant %s", tc.include, tc.version, got, tc.want)
		}
	}
	// The typed PartialObjectMetadata of the same object, as kube encodes it.
	var typed corev1.Pod
	if err := json.Unmarshal(stored, &typed); err != nil {
		t.Fatal(err)
	}
	partial := meta.AsPartialObjectMetadata(&typed.ObjectMeta)
	partial.APIVersion, partial.Kind = "meta.k8s.io/v1", "PartialObjectMetadata"
	want, _ := json.Marshal(partial)
	if got := rowObject(IncludeMetadata, "v1"); got != string(want) {
		t.Errorf("PartialObjectMetadata:\n got %s\nwant %s", got, want)
	}
}

func TestK8S_ENC_5_BadVersion(t *testing.T) {
	_, err := Build(nil, For("", "pods"), nil, Options{Version: "v2"})
	if err == nil || err.Error() != "no Table exists in group version meta.k8s.io/v2" {
		t.Fatalf("got %v", err)
	}
}

func TestK8S_ENC_5_ParseIncludeObject(t *testing.T) {
	for in, want := range map[string]IncludeObject{"": IncludeMetadata, "None": IncludeNone, "Metadata": IncludeMetadata, "Object": IncludeObjects} {
		if got, err := ParseIncludeObject(in); err != nil || got != want {
			t.Errorf("ParseIncludeObject(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"object", "All", "None ", `"x"`, "é\x00"} {
		_, err := ParseIncludeObject(bad)
		// kube-apiserver's optionsForTransform with its validation.
		errs := validation.ValidateTableOptions(&metav1.TableOptions{IncludeObject: metav1.IncludeObjectPolicy(bad)})
		if len(errs) != 1 {
			t.Fatalf("%q: kube gives %d errors", bad, len(errs))
		}
		want := fmt.Sprintf("Unable to convert to Table as requested: %v", errs[0].Error())
		if err == nil || err.Error() != want {
			t.Errorf("ParseIncludeObject(%q) error:\n got %v\nwant %s", bad, err, want)
		}
	}
}

func TestK8S_ENC_5_WatchColumnsOnFirstEventOnly(t *testing.T) {
	pods := podItems(t)
	w := &Watch{Printer: For("", "pods"), Version: "v1"}
	for i, it := range pods[:3] {
		it.Object["metadata"].(map[string]any)["resourceVersion"] = fmt.Sprint(100 + i)
		b, err := w.Append(nil, it, goldenNow)
		if err != nil {
			t.Fatal(err)
		}
		var tbl metav1.Table
		if err := json.Unmarshal(b, &tbl); err != nil {
			t.Fatal(err)
		}
		if (i == 0) != (tbl.ColumnDefinitions != nil) {
			t.Errorf("event %d: columnDefinitions %v", i, tbl.ColumnDefinitions)
		}
		if i > 0 && !strings.Contains(string(b), `"columnDefinitions":null`) {
			t.Errorf("event %d: %s", i, b)
		}
		if tbl.ResourceVersion != fmt.Sprint(100+i) || len(tbl.Rows) != 1 {
			t.Errorf("event %d: resourceVersion %q, %d rows", i, tbl.ResourceVersion, len(tbl.Rows))
		}
	}
}

func TestK8S_ENC_5_JSONScalarsMatchEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", "<none>", "a&b", "quote\"back\\slash", "\x00\x1f\x7f", "\n\r\t", "\u2028\u2029", "héllo", "\xff\xfe", "a\xc3", "日本語"}
	floats := []float64{0, -0.0, 1, 0.25, 1e-7, 1e-6, 123456789, 1e20, 1e21, 1.5e300, -2.5e-9, 5e-324}
	for _, s := range strs {
		want, _ := json.Marshal(s)
		if got := object.AppendString(nil, s); string(got) != string(want) {
			t.Errorf("object.AppendString(%q) = %s, want %s", s, got, want)
		}
	}
	for _, f := range floats {
		want, _ := json.Marshal(f)
		if got := appendFloat(nil, f); string(got) != string(want) {
			t.Errorf("appendFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

func TestK8S_ENC_5_HumanDuration(t *testing.T) {
	// Compared with k8s.io/apimachinery/pkg/util/duration in humanduration_test.go.
	if got := age(time.Time{}, goldenNow); got != "<unknown>" {
		t.Errorf("zero time: %q", got)
	}
}
