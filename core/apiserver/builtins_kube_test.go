package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"sort"
	"testing"

	"kubeplay/core/encoding/protobuf"
	"kubeplay/core/object"
	"kubeplay/core/types"
	"kubeplay/internal/refapi"
)

// builtinsKubeFile holds kube-apiserver's answers to defaultsCases and
// validationCases (see its comment).
const builtinsKubeFile = "testdata/builtins-kube-1.32.13.json"

// kubeAnswer is one recorded answer: its code and body.
type kubeAnswer struct {
	Code int             `json:"code"`
	Body json.RawMessage `json:"body"`
}

// stepContentType is what a step's body is sent as.
func stepContentType(s kubeStep) string {
	if s.method == "PATCH" {
		return "application/merge-patch+json"
	}
	return "application/json"
}

// TestRecordBuiltinsKube writes builtinsKubeFile from a real kube-apiserver:
// start the refapi kit (REFAPI_HOME=/work/refapi/work-defaults NO_SA_ADMISSION=1
// /work/refapi/start.sh 8043) and run
//
//	KUBEPLAY_REFAPI=https://127.0.0.1:8043 go test -run TestRecordBuiltinsKube ./core/apiserver
//
// on a fresh instance (the cases create objects of fixed names).
func TestRecordBuiltinsKube(t *testing.T) {
	recordKube(t, builtinsKubeFile, "the requests of defaultsCases and validationCases in builtins_cases_test.go",
		append(append([]kubeCase{}, defaultsCases...), validationCases...))
}

// recordKube writes file with the answers of the kube-apiserver that
// KUBEPLAY_REFAPI names to the cases' steps, each case's steps sent in order;
// what names the requests they answer.
// askKube sends step to kube, with header (see refapi.Server.Do) besides
// its Content-Type, and returns kube's answer, its body compacted.
func askKube(t *testing.T, kube *refapi.Server, step kubeStep, header map[string]string) kubeAnswer {
	t.Helper()
	h := map[string]string{"Content-Type": stepContentType(step)}
	maps.Copy(h, header)
	resp, body := kube.Do(step.method, step.path, h, []byte(step.body))
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		t.Fatalf("%s %s: %v: %s", step.method, step.path, err, body)
	}
	return kubeAnswer{resp.StatusCode, compact.Bytes()}
}

func recordKube(t *testing.T, file, what string, cases []kubeCase) {
	kube := refapi.Connect(t)
	var ids []string
	var answers [][]kubeAnswer
	for _, c := range cases {
		var got []kubeAnswer
		for _, s := range c.steps {
			got = append(got, askKube(t, kube, s, nil))
		}
		ids, answers = append(ids, c.id), append(answers, got)
	}
	writeKubeAnswers(t, file, "Answers of kube-apiserver v1.32.13 (the refapi kit: etcd 3.5.16, --service-cluster-ip-range=10.0.0.0/24, the ServiceAccount admission plugin off) to "+what+", each case's steps sent in order (bodies as JSON, PATCH as a JSON merge patch) to a fresh instance; recorded by "+t.Name()+".", ids, answers)
}

// writeKubeAnswers writes each case's answers, by its id, to file, one case
// a line, in the form loadKube reads.
func writeKubeAnswers(t *testing.T, file, comment string, ids []string, answers [][]kubeAnswer) {
	var out bytes.Buffer
	head, err := json.Marshal(comment)
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString(`{"comment": ` + string(head) + ",\n" + `"answers": {`)
	for i, id := range ids {
		line, err := json.Marshal(answers[i])
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			out.WriteString(",")
		}
		fmt.Fprintf(&out, "\n%q: %s", id, line)
	}
	out.WriteString("\n}}\n")
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadKube reads the answers recorded in file.
func loadKube(t *testing.T, file string) map[string][]kubeAnswer {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Answers map[string][]kubeAnswer }
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f.Answers
}

// TestK8S_URI_3_BuiltinDefaultsAsKube: what kube stores for minimal and fuller
// objects of every served built-in kind, created, replaced and patched, is what
// kubeplay stores: the same defaults (a Pod's and a Deployment's template's
// containers alike), the same conversions (serviceAccount mirrors
// serviceAccountName), the same admission (tolerations, priority) and the same
// generation. Compared after what neither side decides: uid, timestamps,
// resourceVersion, managedFields and generated names; and after what kubeplay
// does not simulate (ignoredByKubeplay).
func TestK8S_URI_3_BuiltinDefaultsAsKube(t *testing.T) {
	replayBuiltinsKube(t, defaultsCases)
}

// TestK8S_WRITE_5_BuiltinValidationAsKube: the built-in kinds' own validation
// refuses what kube refuses, with kube's Status: code, reason, the message
// listing every error in kube's order, and details.causes; updates kube allows
// (a Pod's image, a ConfigMap's labels) are stored as kube stores them.
func TestK8S_WRITE_5_BuiltinValidationAsKube(t *testing.T) {
	replayBuiltinsKube(t, validationCases)
}

// replayBuiltinsKube sends each case's steps to one server and compares every
// answer with kube's.
func replayBuiltinsKube(t *testing.T, cases []kubeCase) {
	replayKube(t, newTestServer(t, testConfig{ServiceIPRange: "10.0.0.0/24"}), builtinsKubeFile, cases) // the refapi kit's service range
}

// replayKube sends each case's steps to s, with the headers given (name,
// value, ...), and compares every answer with the one recorded in file.
func replayKube(t *testing.T, s *testServer, file string, cases []kubeCase, headers ...string) {
	answers := loadKube(t, file)
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			replayKubeSteps(t, s, c.id, answers[c.id], c.steps, func(int) []string { return headers })
		})
	}
}

// replayKubeSteps sends steps to s, step i with the headers headers(i)
// gives besides its Content-Type, and compares each answer with kube's.
func replayKubeSteps(t *testing.T, s *testServer, id string, want []kubeAnswer, steps []kubeStep, headers func(i int) []string) {
	t.Helper()
	if len(want) != len(steps) {
		t.Fatalf("%d answers recorded for %d steps: record again", len(want), len(steps))
	}
	for i, step := range steps {
		r := s.do(step.method, step.path, step.body, append([]string{"Content-Type", stepContentType(step)}, headers(i)...)...)
		if err := compareKubeAnswer(id, step, r, want[i]); err != nil {
			t.Errorf("%s %s (step %d): %v", step.method, step.path, i, err)
		}
	}
}

// podUpdateDiff is how kube's message for a forbidden Pod update (or a
// change of an ephemeral container) goes on: with a go-cmp diff of its
// internal PodSpec (EphemeralContainer), indented with spaces or
// non-breaking spaces (go-cmp varies them on purpose). kubeplay's message
// leaves it out.
var podUpdateDiff = regexp.MustCompile(`(?s)\n[\x{a0} ]{2}core\.(PodSpec|EphemeralContainer)\{.*?\n[\x{a0} ]{2}\}\n`)

// compareKubeAnswer compares kubeplay's answer r with kube's.
func compareKubeAnswer(id string, step kubeStep, r *response, want kubeAnswer) error {
	var kube map[string]any
	if err := json.Unmarshal(want.Body, &kube); err != nil {
		return err
	}
	if r.Code != want.Code {
		return fmt.Errorf("code %d, kube %d\n got %s\nkube %s", r.Code, want.Code, r.Body, want.Body)
	}
	got := r.Obj
	if r.Code >= 300 {
		got = undecidedInMessages(got)
		kube = undecidedInMessages(kube)
		cutPodUpdateDiff(kube)
	} else {
		var err error
		apiVersion, _ := r.Obj["apiVersion"].(string)
		kind, _ := r.Obj["kind"].(string)
		if got, err = typedForm(r.Obj); err != nil && r.Obj["kind"] != "Status" && r.Obj["items"] == nil && types.Known(apiVersion, kind) {
			return err
		} else if err != nil {
			got = r.Obj // a Status, a list or a custom object: no typed form to fill
		}
		ignoreUndecided(got, kube)
		ignoredByKubeplay(got, kube)
	}
	if !reflect.DeepEqual(got, kube) {
		g, _ := json.MarshalIndent(got, "", "  ")
		k, _ := json.MarshalIndent(kube, "", "  ")
		return fmt.Errorf("differs from kube at %v\n got %s\nkube %s", jsonDiff("", got, kube), g, k)
	}
	return nil
}

// undecidedValues are the values a Status's messages may quote that differ
// between servers: uids, the resourceVersion a precondition compares with,
// the addresses of the pointers in a Go value kube prints, and the names
// kube gives a CEL rule's self type (after the time it compiles it).
var undecidedValues = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|ResourceVersion in record \(\d+\)|\)\(0x[0-9a-f]+\)|selfType\d+`)

// undecidedInMessages is status with the undecided values it quotes written
// as X.
func undecidedInMessages(status map[string]any) map[string]any {
	var out map[string]any
	_ = json.Unmarshal(undecidedValues.ReplaceAll(mustJSON(status), []byte("X")), &out)
	return out
}

// cutPodUpdateDiff takes the diff out of a forbidden Pod update's messages.
func cutPodUpdateDiff(status map[string]any) {
	cut := func(m map[string]any) {
		if s, ok := m["message"].(string); ok {
			m["message"] = podUpdateDiff.ReplaceAllString(s, "")
		}
	}
	cut(status)
	if causes, ok := object.Path(status, "details", "causes").([]any); ok {
		for _, c := range causes {
			if m, ok := c.(map[string]any); ok {
				cut(m)
			}
		}
	}
}

// typedForm is obj with what kube's typed JSON always shows (empty structs,
// nulls), which kubeplay's served JSON does not reproduce yet, filled in from
// the kind's protobuf message.
func typedForm(obj map[string]any) (map[string]any, error) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	o, err := object.Decode(mustJSON(obj))
	if err != nil {
		return nil, err
	}
	raw, err := protobuf.Marshal(nil, apiVersion, kind, o)
	if err != nil {
		return nil, err
	}
	typed, err := protobuf.Unmarshal(apiVersion, kind, raw)
	if err != nil {
		return nil, err
	}
	var filled, full map[string]any
	if err := json.Unmarshal(mustJSON(obj), &filled); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(mustJSON(typed), &full); err != nil {
		return nil, err
	}
	fillAbsent(filled, full)
	return filled, nil
}

// fillAbsent adds to v what typed has and v lacks, in maps and in lists of the
// same length.
func fillAbsent(v, typed any) {
	switch t := v.(type) {
	case map[string]any:
		full, _ := typed.(map[string]any)
		for k, e := range full {
			if cur, ok := t[k]; ok {
				fillAbsent(cur, e)
			} else {
				t[k] = e
			}
		}
	case []any:
		if full, ok := typed.([]any); ok && len(full) == len(t) {
			for i := range t {
				fillAbsent(t[i], full[i])
			}
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ignoreUndecided drops what differs between any two servers (or runs): the
// uid, timestamps, resourceVersion and managedFields (of an object, of a
// list's items, the uid of a Status's details), writes the time a status
// phase changed as TIME, and writes a generated name
// (wherever it shows, as in a namespace's name label) as NAME, and the
// object's own uid wherever else it shows as UID.
func ignoreUndecided(got, kube map[string]any) {
	for _, obj := range []map[string]any{got, kube} {
		if details, ok := obj["details"].(map[string]any); ok {
			delete(details, "uid")
		}
		items, _ := obj["items"].([]any)
		for _, o := range append(items, obj) {
			meta, _ := object.Path(o, "metadata").(map[string]any)
			if uid, ok := meta["uid"].(string); ok && uid != "" {
				replaceString(o, uid, "UID") // wherever it shows, as in a Job's controller-uid labels
			}
			for _, f := range []string{"uid", "creationTimestamp", "deletionTimestamp", "resourceVersion", "managedFields"} {
				delete(meta, f)
			}
			status, _ := object.Path(o, "status").(map[string]any)
			if status["lastPhaseTransitionTime"] != nil {
				status["lastPhaseTransitionTime"] = "TIME" // a PersistentVolume's
			}
			for _, c := range object.Objects(status, "conditions") {
				if _, ok := c["lastTransitionTime"].(string); ok {
					c["lastTransitionTime"] = "TIME" // the write's time
				}
			}
			if _, ok := meta["generateName"]; ok {
				replaceString(obj, meta["name"].(string), "NAME")
			}
			nameTokenVolumes(o)
		}
	}
}

// replaceString replaces the string from with to in every value of v.
func replaceString(v any, from, to string) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if s, ok := e.(string); ok && s == from {
				t[k] = to
			} else {
				replaceString(e, from, to)
			}
		}
	case []any:
		for i, e := range t {
			if s, ok := e.(string); ok && s == from {
				t[i] = to
			} else {
				replaceString(e, from, to)
			}
		}
	}
}

// ignoredByKubeplay takes kube's answer where both chose at random: a
// Service's allocated spec.clusterIP and spec.clusterIPs (from the same
// range), its ports' allocated nodePort and its healthCheckNodePort.
func ignoredByKubeplay(got, kube map[string]any) {
	gotSpec, _ := got["spec"].(map[string]any)
	kubeSpec, _ := kube["spec"].(map[string]any)
	if gotSpec == nil || kubeSpec == nil {
		return
	}
	switch got["kind"] {
	case "Service":
		for _, f := range []string{"clusterIP", "clusterIPs", "healthCheckNodePort"} {
			if _, ok := gotSpec[f]; ok && kubeSpec[f] != nil && gotSpec[f] != "None" {
				gotSpec[f] = kubeSpec[f]
			}
		}
		gotPorts, _ := gotSpec["ports"].([]any)
		kubePorts, _ := kubeSpec["ports"].([]any)
		for i := range min(len(gotPorts), len(kubePorts)) {
			gp, _ := gotPorts[i].(map[string]any)
			kp, _ := kubePorts[i].(map[string]any)
			if _, ok := gp["nodePort"]; ok && kp != nil && kp["nodePort"] != nil {
				gp["nodePort"] = kp["nodePort"]
			}
		}
	}
}

// jsonDiff lists the paths where a and b differ.
func jsonDiff(path string, a, b any) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		var out []string
		for k := range keys {
			out = append(out, jsonDiff(path+"."+k, am[k], bm[k])...)
		}
		sort.Strings(out)
		return out
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		var out []string
		for i := range al {
			out = append(out, jsonDiff(fmt.Sprintf("%s[%d]", path, i), al[i], bl[i])...)
		}
		return out
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	return []string{fmt.Sprintf("%s: %s ≠ kube %s", path, mustJSON(a), mustJSON(b))}
}
