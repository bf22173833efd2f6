package apiserver

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"kubeplay/core/field"
	"kubeplay/core/fieldvalidation"
	"kubeplay/core/warning"
	"kubeplay/internal/refapi"
)

// Field validation (K8S-WRITE-4), replayed from kube-apiserver's recorded
// answers: TestRecordKubeFieldValidation sends fieldValidationCases to a
// kube-apiserver and writes what it answered.

const fieldValidationFile = "testdata/fieldvalidation-kube-1.32.13.json"

// fieldValidationCase is one write: to a kind's collection (POST) or to an
// object created first (PUT, PATCH, DELETE), with the body in JSON, YAML, CBOR
// (converted from JSON as recordedCBOR does) or cborhex; a PATCH's encoding is
// its type: json (a merge patch), strategic or jsonpatch.
type fieldValidationCase struct {
	ID, Kind, Method, Encoding, Query, Body string
}

// A body's NAME is the object's name; U130 is 130 unknown fields, LONG20 twenty
// of 250 characters (more warnings than kube's headers hold).
var fieldValidationCases = []fieldValidationCase{
	{"mixed-default", "cm", "POST", "json", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME","foo":1,"labels":{"a":"1","a":"2"},"name":"NAME"},"data":{"x":"1"},"zzz":{"q":1},"aaa":2,"data":{"y":"2"}}`},
	{"mixed-warn", "cm", "POST", "json", "fieldValidation=Warn", `{"metadata":{"name":"NAME","foo":1},"zzz":{"q":1},"data":{"y":"2"},"data":{"y":"3"}}`},
	{"mixed-strict", "cm", "POST", "json", "fieldValidation=Strict", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME","foo":1,"labels":{"a":"1","a":"2"},"name":"NAME"},"data":{"x":"1"},"zzz":{"q":1},"aaa":2,"data":{"y":"2"}}`},
	{"mixed-ignore", "cm", "POST", "json", "fieldValidation=Ignore", `{"metadata":{"name":"NAME","foo":1},"zzz":1,"data":{"y":"2"},"data":{"y":"3"}}`},
	{"type-error-wins", "cm", "POST", "json", "fieldValidation=Strict", `{"metadata":{"name":"NAME","foo":1},"data":{"x":1},"zzz":{"q":1}}`},
	{"type-error-wins-warn", "cm", "POST", "json", "", `{"metadata":{"name":"NAME","foo":1},"data":{"x":true}}`},
	{"clean-strict", "cm", "POST", "json", "fieldValidation=Strict", `{"metadata":{"name":"NAME"},"data":{"x":"1"}}`},
	{"lowercase-directive", "cm", "POST", "json", "fieldValidation=strict", `{"metadata":{"name":"NAME"}}`},
	{"bad-directive-and-dryrun", "cm", "POST", "json", "fieldValidation=bad&dryRun=bad", `{"metadata":{"name":"NAME"}}`},
	{"first-directive", "cm", "POST", "json", "fieldValidation=Ignore&fieldValidation=Strict", `{"metadata":{"name":"NAME"},"zzz":1}`},
	{"dry-run-strict", "cm", "POST", "json", "dryRun=All&fieldValidation=Strict", `{"metadata":{"name":"NAME"},"zzz":1}`},
	{"dry-run-warn", "cm", "POST", "json", "dryRun=All", `{"metadata":{"name":"NAME"},"zzz":1}`},
	{"case-sensitive", "cm", "POST", "json", "", `{"Metadata":{"name":"x"},"metadata":{"name":"NAME","Name":"y"},"DATA":{}}`},
	{"kind-twice", "cm", "POST", "json", "fieldValidation=Strict", `{"kind":"ConfigMap","kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"NAME"}}`},
	{"escaped-key", "cm", "POST", "json", "", `{"metadata":{"name":"NAME"},"\u00fc\t\"x\"":1,"\ud83d\ude00":2}`},
	{"many-unknown-warn", "cm", "POST", "json", "", `{"metadata":{"name":"NAME"},U130}`},
	{"many-unknown-strict", "cm", "POST", "json", "fieldValidation=Strict", `{"metadata":{"name":"NAME"},U130}`},
	{"long-warnings", "cm", "POST", "json", "", `{"metadata":{"name":"NAME"},LONG20}`},
	{"yaml-default", "cm", "POST", "yaml", "", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\n  foo: 1\n  labels:\n    a: \"1\"\n    a: \"2\"\ndata:\n  x: \"1\"\nzzz: 1\ndata:\n  y: \"2\"\n"},
	{"yaml-strict", "cm", "POST", "yaml", "fieldValidation=Strict", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: NAME\n  foo: 1\n  labels:\n    a: \"1\"\n    a: \"2\"\ndata:\n  x: \"1\"\nzzz: 1\ndata:\n  y: \"2\"\n"},
	{"yaml-type-error-wins", "cm", "POST", "yaml", "fieldValidation=Strict", "metadata:\n  name: NAME\ndata:\n  x: 1\n  x: 2\n"},
	{"yaml-flow-duplicates", "cm", "POST", "yaml", "", "{metadata: {name: NAME, name: NAME}, data: {a: b, a: c}, zzz: [1, {q: 1, q: 2}]}\n"},
	{"cbor-default", "cm", "POST", "cbor", "", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME","foo":1},"zzz":1}`},
	{"cbor-strict", "cm", "POST", "cbor", "fieldValidation=Strict", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME","foo":1},"data":{"a":"b"}}`},
	{"cbor-root-wins", "cm", "POST", "cbor", "fieldValidation=Strict", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME","foo":1},"a":1}`},
	{"cbor-ignore", "cm", "POST", "cbor", "fieldValidation=Ignore", `{"metadata":{"name":"NAME","foo":1},"a":1}`},
	{"cbor-type-error-wins", "cm", "POST", "cbor", "fieldValidation=Strict", `{"metadata":{"name":"NAME"},"data":{"a":1},"zzz":1}`},
	{"cbor-duplicate-key", "cm", "POST", "cborhex", "fieldValidation=Ignore", "d9d9f7a2686d65746164617461a2646e616d65644e414d45646e616d65644e414d45646b696e6469436f6e6669674d6170"},
	{"pod-nested", "pod", "POST", "json", "fieldValidation=Strict", `{"metadata":{"name":"NAME"},"spec":{"containers":[{"name":"c","image":"nginx","foo":1,"ports":[{"containerPort":80,"bar":2}],"resources":{"limits":{"cpu":"1","cpu":"2"}}}],"nodeSelector":{"k":"v","k":"w"},"volumes":[{"name":"v","configMap":{"name":"cm","x":1}}]}}`},
	{"pod-nested-cbor", "pod", "POST", "cbor", "fieldValidation=Strict", `{"metadata":{"name":"NAME"},"spec":{"containers":[{"name":"c","image":"nginx"},{"name":"d","image":"nginx","foo":1}]}}`},
	{"deploy-template", "deploy", "POST", "json", "", `{"metadata":{"name":"NAME"},"spec":{"replicas":1,"replica":2,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"nginx","imagePullPolicy":"Always","imagePullPolicy":"Never"}],"restartPolicy":"Always","foo":{}}}}}`},
	{"put-strict", "cm", "PUT", "json", "fieldValidation=Strict", `{"metadata":{"name":"NAME","foo":1},"data":{"k":"v"}}`},
	{"put-default", "cm", "PUT", "json", "", `{"metadata":{"name":"NAME","foo":1},"data":{"k":"v"},"data":{"k":"w"}}`},
	{"put-yaml-strict", "cm", "PUT", "yaml", "fieldValidation=Strict", "metadata:\n  name: NAME\n  name: NAME\n  foo: 1\n"},
	{"patch-default", "cm", "PATCH", "json", "", `{"metadata":{"foo":1,"labels":{"b":"1","b":"2"}},"zzz":1,"data":{"q":"1"},"data":{"r":"2"}}`},
	{"patch-strict", "cm", "PATCH", "json", "fieldValidation=Strict", `{"metadata":{"foo":1,"labels":{"b":"1","b":"2"}},"zzz":1,"data":{"q":"1"},"data":{"r":"2"}}`},
	{"patch-type-error-wins", "cm", "PATCH", "json", "fieldValidation=Strict", `{"metadata":{"foo":1},"data":{"q":1},"data":{"r":"2"}}`},
	{"patch-ignore", "cm", "PATCH", "json", "fieldValidation=Ignore", `{"metadata":{"foo":1},"data":{"q":"1"},"data":{"r":"2"}}`},
	{"patch-bad-directive", "cm", "PATCH", "json", "fieldValidation=no", `{"data":{"q":"1"}}`},
	{"patch-nested-duplicates", "cm", "PATCH", "json", "", `{"metadata":{"annotations":{"a":"1","a":"2"},"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u","uid":"u","x":1}]}}`},
	{"delete-ignores-it", "cm", "DELETE", "json", "fieldValidation=bad", ``},
	{"strategic-default", "cm", "PATCH", "strategic", "", `{"metadata":{"foo":1,"labels":{"b":"1","b":"2"}},"zzz":1,"data":{"q":"1"},"data":{"r":"2"}}`},
	{"strategic-strict", "cm", "PATCH", "strategic", "fieldValidation=Strict", `{"metadata":{"foo":1,"labels":{"b":"1","b":"2"}},"zzz":1,"data":{"q":"1"},"data":{"r":"2"}}`},
	{"strategic-type-error-wins", "cm", "PATCH", "strategic", "fieldValidation=Strict", `{"data":{"q":1},"zzz":1}`},
	{"strategic-sorted-unquoted", "deploy", "PATCH", "strategic", "", `{"spec":{"template":{"spec":{"containers":[{"name":"c","foo":1,"env":[{"name":"A","value":"1","x\"y":2}]}]}}},"b":1,"a\"b":1}`},
	{"strategic-ignore", "cm", "PATCH", "strategic", "fieldValidation=Ignore", `{"zzz":1,"data":{"q":"1"},"data":{"r":"2"}}`},
	{"json-patch-default", "cm", "PATCH", "jsonpatch", "", `[{"op":"add","path":"/data/x","value":"1","valu":2},{"op":"add","path":"/zzz","value":{"a":1,"a":2}},{"op":"add","op":"add","path":"/metadata/foo","value":[{"b":1,"b":1}]}]`},
	{"json-patch-strict", "cm", "PATCH", "jsonpatch", "fieldValidation=Strict", `[{"op":"add","path":"/data/x","value":"1","valu":2},{"op":"add","path":"/zzz","value":{"a":1,"a":2}}]`},
	{"json-patch-type-error-wins", "cm", "PATCH", "jsonpatch", "fieldValidation=Strict", `[{"op":"add","path":"/data/x","value":1,"valu":2}]`},
}

// expandBody fills a case's body in: its name and the generated fields.
func expandBody(body, name string) string {
	var many, long []string
	for i := range 130 {
		many = append(many, fmt.Sprintf(`"u%d":%d`, i, i))
	}
	for i := range 20 {
		long = append(long, fmt.Sprintf(`"%03d%s":1`, i, strings.Repeat("x", 247)))
	}
	body = strings.ReplaceAll(body, "U130", strings.Join(many, ","))
	body = strings.ReplaceAll(body, "LONG20", strings.Join(long, ","))
	return strings.ReplaceAll(body, "NAME", name)
}

// fieldValidationAnswer is what kube answered a case: the status code, the
// Status's reason and message for a failure, and the warnings (decoded).
type fieldValidationAnswer struct {
	ID       string   `json:"id"`
	Code     int      `json:"code"`
	Reason   string   `json:"reason,omitempty"`
	Message  string   `json:"message,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// fieldValidationRequest is a case as sent: path, Content-Type and body; and
// the object to create first (its path and body), if any.
func fieldValidationRequest(t testing.TB, c fieldValidationCase, name string) (method, path, contentType string, body []byte, createPath, create string) {
	body = []byte(expandBody(c.Body, name))
	contentType = map[string]string{"json": "application/json", "yaml": "application/yaml", "cbor": "application/cbor", "cborhex": "application/cbor"}[c.Encoding]
	switch c.Encoding {
	case "cbor":
		body = recordedCBOR(t.(*testing.T), string(body), false)
	case "cborhex":
		var err error
		if body, err = hex.DecodeString(c.Body); err != nil {
			t.Fatal(err)
		}
	}
	path = wrongTypeCollections[c.Kind]
	if c.Method != "POST" {
		createPath, create = path, strings.ReplaceAll(wrongTypeValid[c.Kind], "NAME", name)
		path += "/" + name
	}
	if c.Method == "PATCH" {
		contentType = map[string]string{"json": "application/merge-patch+json", "strategic": "application/strategic-merge-patch+json",
			"jsonpatch": "application/json-patch+json"}[c.Encoding]
	}
	if c.Method == "DELETE" {
		body, contentType = nil, ""
	}
	if c.Query != "" {
		path += "?" + c.Query
	}
	return c.Method, path, contentType, body, createPath, create
}

// answerOf reads an answer: code, Status, decoded warnings.
func answerOf(id string, code int, header http.Header, body []byte) fieldValidationAnswer {
	a := fieldValidationAnswer{ID: id, Code: code}
	if code >= 300 {
		var st struct{ Reason, Message string }
		_ = json.Unmarshal(body, &st)
		a.Reason, a.Message = st.Reason, st.Message
	}
	for _, w := range header.Values("Warning") {
		text, ok := strings.CutPrefix(w, "299 - ")
		if s, err := unquote(text); ok && err == nil {
			text = s
		}
		a.Warnings = append(a.Warnings, text)
	}
	return a
}

func unquote(s string) (string, error) {
	var out string
	err := json.Unmarshal([]byte(s), &out)
	if err != nil {
		return s, err
	}
	return out, nil
}

// TestRecordKubeFieldValidation records kube's answers to fieldValidationCases
// from a running kube-apiserver (see internal/refapi).
func TestRecordKubeFieldValidation(t *testing.T) {
	kube := refapi.Connect(t)
	send := func(method, path, contentType string, body []byte) (int, http.Header, []byte) {
		header := map[string]string{}
		if contentType != "" {
			header["Content-Type"] = contentType
		}
		res, b := kube.Do(method, path, header, body)
		return res.StatusCode, res.Header, b
	}
	stamp := time.Now().Unix()
	out := struct {
		Comment string                  `json:"comment"`
		Answers []fieldValidationAnswer `json:"answers"`
	}{Comment: "Answers of kube-apiserver v1.32.13 (the refapi kit: --feature-gates=CBORServingAndStorage=true, the ServiceAccount admission plugin off) to the writes of fieldValidationCases (core/apiserver/fieldvalidation_test.go), recorded on " +
		time.Now().UTC().Format("2006-01-02") + " by TestRecordKubeFieldValidation: code, the Status's reason and message for a failure, and the Warning headers' texts in order. " +
		"In the message of an invalid patch, kube shows the patched object, which holds what kubeplay does not store (managedFields); the replay compares what follows it."}
	for i, c := range fieldValidationCases {
		name := fmt.Sprintf("fv-%d-%d", stamp, i)
		method, path, contentType, body, createPath, create := fieldValidationRequest(t, c, name)
		if createPath != "" {
			if code, _, b := send("POST", createPath, "application/json", []byte(create)); code != 201 {
				t.Fatalf("%s: creating %s: %d %s", c.ID, name, code, b)
			}
		}
		code, header, b := send(method, path, contentType, body)
		a := answerOf(c.ID, code, header, b)
		a.Message = strings.ReplaceAll(a.Message, name, "NAME")
		out.Answers = append(out.Answers, a)
	}
	data, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fieldValidationFile, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestK8S_WRITE_4_FieldValidationAsKube replays kube's recorded answers: the
// same code, reason, message and warnings, in order; and a rejected write
// changes nothing.
func TestK8S_WRITE_4_FieldValidationAsKube(t *testing.T) {
	data, err := os.ReadFile(fieldValidationFile)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct{ Answers []fieldValidationAnswer }
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Answers) != len(fieldValidationCases) {
		t.Fatalf("%d recorded answers for %d cases: record them again", len(rec.Answers), len(fieldValidationCases))
	}
	s := newTestServer(t, testConfig{})
	for i, c := range fieldValidationCases {
		want := rec.Answers[i]
		t.Run(c.ID, func(t *testing.T) {
			if want.ID != c.ID {
				t.Fatalf("recorded answer %d is %s's: record them again", i, want.ID)
			}
			name := fmt.Sprintf("fv-%d", i)
			method, path, contentType, body, createPath, create := fieldValidationRequest(t, c, name)
			if createPath != "" {
				s.do("POST", createPath, create).must(t, 201)
			}
			// The object the write is about: a rejected write leaves it as it
			// was (other writers, the server's controllers, may write meanwhile).
			object, _, _ := strings.Cut(path, "?")
			if method == "POST" {
				object += "/" + name
			}
			before := s.do("GET", object, nil)
			r := s.do(method, path, body, "Content-Type", contentType)
			got := answerOf(c.ID, r.Code, r.Header, r.Body)
			got.Message = strings.ReplaceAll(got.Message, name, "NAME")
			if strings.HasPrefix(want.Message, ` "" is invalid: patch: Invalid value: "{`) {
				// Compare what follows the patched object.
				cut := func(m string) string { _, after, _ := strings.Cut(m, `}": `); return after }
				if !strings.HasPrefix(got.Message, ` "" is invalid: patch: Invalid value: "{`) || cut(got.Message) != cut(want.Message) {
					t.Fatalf("message\n got %q\nwant %q", got.Message, want.Message)
				}
				got.Message = want.Message
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
				t.Fatalf("\n got %+v\nwant %+v", got, want)
			}
			if after := s.do("GET", object, nil); r.Code >= 300 && (after.Code != before.Code || after.str("metadata", "resourceVersion") != before.str("metadata", "resourceVersion")) {
				t.Fatalf("a rejected write changed %s: %d %s, then %d %s", object, before.Code, before.Body, after.Code, after.Body)
			}
		})
	}
}

// TestK8S_WRITE_4_Directive: fieldValidation's values, and what each does.
func TestK8S_WRITE_4_Directive(t *testing.T) {
	for v, want := range map[string]fieldvalidation.Directive{"": "Warn", "Warn": "Warn", "Ignore": "Ignore", "Strict": "Strict"} {
		if d, err := fieldvalidation.Parse(v); d != want || err != nil {
			t.Errorf("%q: %v %v", v, d, err)
		}
	}
	if _, err := fieldvalidation.Parse("warn"); err == nil || err.Type != field.ErrorTypeNotSupported {
		t.Errorf("warn: %v", err)
	}
	errs := []error{fmt.Errorf(`unknown field "a"`), fmt.Errorf("yaml: unmarshal errors:\n  line 2: key \"b\" already set in map\n  line 3: key \"c\" already set in map")}
	if err := fieldvalidation.Strict.Apply(t.Context(), errs); err == nil ||
		err.Error() != "strict decoding error: unknown field \"a\", yaml: unmarshal errors:\n  line 2: key \"b\" already set in map\n  line 3: key \"c\" already set in map" {
		t.Errorf("Strict: %v", err)
	}
	rec := httptest.NewRecorder()
	warning.Filter(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fieldvalidation.Warn.Apply(r.Context(), errs); err != nil {
			t.Error(err)
		}
		if err := fieldvalidation.Ignore.Apply(r.Context(), []error{fmt.Errorf("ignored")}); err != nil {
			t.Error(err)
		}
	})).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if got := fmt.Sprint(rec.Header().Values("Warning")); got != `[299 - "unknown field \"a\"" 299 - "line 2: key \"b\" already set in map" 299 - "line 3: key \"c\" already set in map"]` {
		t.Errorf("Warn: %s", got)
	}
}
