// Command realprinters writes ../golden/*.json: the columns, cells and row
// conditions that kube-apiserver v1.32.3's own table convertors give for the
// fixture objects in ../cases/*.json. It is a separate module because
// k8s.io/kubernetes cannot be a dependency of kubeplay; run it with
//
//	cd core/encoding/table/testdata/realprinters && go run .
//
// Timestamps in the fixtures are written "@now-5m" and the like; they are
// replaced with times relative to the real clock just before the printers run
// (the printers read time.Now themselves), and the test replaces them relative to
// its fixed now.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	"k8s.io/kubernetes/pkg/printers"
	"k8s.io/kubernetes/pkg/printers/internalversion"
	printerstorage "k8s.io/kubernetes/pkg/printers/storage"
)

type caseFile struct {
	Group      string `json:"group"`
	Resource   string `json:"resource"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Printer: "builtin" (the internalversion printers), "default"
	// (rest.NewDefaultTableConvertor) or "custom" (the CRD tableconvertor).
	Printer       string                                           `json:"printer"`
	CustomColumns []apiextensionsv1.CustomResourceColumnDefinition `json:"customColumns"`
	Cases         []struct {
		Name   string          `json:"name"`
		Object json.RawMessage `json:"object"`
	} `json:"cases"`
}

type goldenRow struct {
	Name       string                     `json:"name"`
	Cells      []any                      `json:"cells"`
	Conditions []metav1.TableRowCondition `json:"conditions,omitempty"`
}

type golden struct {
	Columns []metav1.TableColumnDefinition `json:"columns"`
	Rows    []goldenRow                    `json:"rows"`
}

var placeholder = regexp.MustCompile(`"@now([+-][0-9yhdms]+)?"`)

// offset parses "+1h", "-3d5h", "-2y": time.ParseDuration's units plus d (24h)
// and y (365d).
func offset(s string) time.Duration {
	sign := time.Duration(1)
	if s[0] == '-' {
		sign = -1
	}
	var d time.Duration
	n := 0
	for _, c := range s[1:] {
		switch c {
		case 'y':
			d, n = d+time.Duration(n)*365*24*time.Hour, 0
		case 'd':
			d, n = d+time.Duration(n)*24*time.Hour, 0
		case 'h':
			d, n = d+time.Duration(n)*time.Hour, 0
		case 'm':
			d, n = d+time.Duration(n)*time.Minute, 0
		case 's':
			d, n = d+time.Duration(n)*time.Second, 0
		default:
			n = n*10 + int(c-'0')
		}
	}
	return sign * d
}

// substitute writes each "@now±duration" as a timestamp relative to now, with
// microseconds so that it parses as both metav1.Time and metav1.MicroTime.
func substitute(raw []byte, now time.Time) []byte {
	return placeholder.ReplaceAllFunc(raw, func(m []byte) []byte {
		s := strings.Trim(string(m), `"`)[len("@now"):]
		var d time.Duration
		if s != "" {
			d = offset(s)
		}
		return []byte(`"` + now.Add(d).UTC().Format("2006-01-02T15:04:05.000000Z07:00") + `"`)
	})
}

func main() {
	files, err := filepath.Glob("../cases/*.json")
	if err != nil || len(files) == 0 {
		panic(fmt.Sprint("no cases: ", err))
	}
	generator := printers.NewTableGenerator().With(internalversion.AddHandlers)
	builtin := printerstorage.TableConvertor{TableGenerator: generator}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		var cf caseFile
		if err := json.Unmarshal(data, &cf); err != nil {
			panic(fmt.Sprint(f, ": ", err))
		}
		var convertor rest.TableConvertor
		switch cf.Printer {
		case "builtin":
			convertor = builtin
		case "default":
			convertor = rest.NewDefaultTableConvertor(schema.GroupResource{Group: cf.Group, Resource: cf.Resource})
		case "custom":
			convertor, err = tableconvertor.New(cf.CustomColumns)
			if err != nil {
				fmt.Fprintln(os.Stderr, f, "(falling back as kube does):", err)
			}
		default:
			panic(f + ": unknown printer " + cf.Printer)
		}
		var out golden
		for _, c := range cf.Cases {
			var typed map[string]any
			if err := json.Unmarshal(c.Object, &typed); err != nil {
				panic(err)
			}
			typed["apiVersion"], typed["kind"] = cf.APIVersion, cf.Kind
			raw, _ := json.Marshal(typed)
			raw = substitute(raw, time.Now())

			var obj runtime.Object
			if cf.Printer == "builtin" {
				// Decoding to the internal version applies defaults and the
				// v1 conversions, as reading from storage does.
				obj, _, err = legacyscheme.Codecs.UniversalDecoder().Decode(raw, nil, nil)
			} else {
				u := &unstructured.Unstructured{}
				err = u.UnmarshalJSON(raw)
				obj = u
			}
			if err != nil {
				panic(fmt.Sprint(f, " ", c.Name, ": ", err))
			}
			table, err := convertor.ConvertToTable(context.Background(), obj, nil)
			if err != nil {
				panic(fmt.Sprint(f, " ", c.Name, ": ", err))
			}
			out.Columns = table.ColumnDefinitions
			out.Rows = append(out.Rows, goldenRow{Name: c.Name, Cells: table.Rows[0].Cells, Conditions: table.Rows[0].Conditions})
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			panic(err)
		}
		dst := filepath.Join("..", "golden", filepath.Base(f))
		if err := os.WriteFile(dst, append(b, '\n'), 0o644); err != nil {
			panic(err)
		}
		fmt.Println("wrote", dst, len(out.Rows), "rows")
	}
}
