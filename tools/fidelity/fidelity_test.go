package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kubeplay/core/auth"
	"kubeplay/core/sandbox"
	"kubeplay/internal/launch"
)

// newKubeplay serves a sandbox as the playground command assembles it,
// knowing refapi's token, through wrap (which may change its answers).
func newKubeplay(t *testing.T, name string, wrap func(http.Handler) http.Handler) *target {
	t.Helper()
	tokens, err := auth.ParseTokens("tokens.csv", strings.NewReader(launch.RefapiTokenLine))
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Config{Tokens: tokens, APIOnly: true}) // as the reference: no controllers
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(wrap(sb))
	t.Cleanup(func() {
		hs.Close()
		sb.Close()
	})
	tg := newTarget(name, hs.URL, launch.RefapiToken)
	if err := tg.loadAPFNames(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tg
}

func same(h http.Handler) http.Handler { return h }

// notFoundIsForbidden is the planted difference: a copy of the server whose
// GETs of a missing object answer 403 where they answer 404.
func notFoundIsForbidden(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "GET" && r.URL.Query().Get("watch") == "" {
			w = &flipStatus{ResponseWriter: w, from: 404, to: 403}
		}
		h.ServeHTTP(w, r)
	})
}

type flipStatus struct {
	http.ResponseWriter
	from, to int
}

func (f *flipStatus) WriteHeader(code int) {
	if code == f.from {
		code = f.to
	}
	f.ResponseWriter.WriteHeader(code)
}

// TestK8S_FID_1_SameServerIsIdentical plays generated sessions against two
// kubeplay servers: everything the normalization must cover (uids,
// timestamps, resourceVersions, generated names, namespaces, continue tokens,
// APF uids) differs between them, and every answer must still compare equal.
func TestK8S_FID_1_SameServerIsIdentical(t *testing.T) {
	p := &player{targets: [2]*target{newKubeplay(t, "a", same), newKubeplay(t, "b", same)}}
	tl := newTally()
	p.playAll(context.Background(), 7, 12, 25, 4, tl.add)
	if tl.all.total != 12*25 {
		t.Fatalf("%d answers, want %d", tl.all.total, 12*25)
	}
	for _, g := range tl.sortedGroups() {
		t.Errorf("difference between two kubeplay servers (%d answers): %s\n%s", g.count, g.sig, renderStep(g.result.Step))
		for _, d := range g.result.Diffs {
			t.Errorf("  %s", d)
		}
	}
}

// TestK8S_FID_1_FindsPlantedDifference plays sessions against kubeplay and a
// copy of it that answers 403 for 404 on GET: the harness reports the
// difference, as a difference of status, and minimizes it to the namespace
// and the GET.
func TestK8S_FID_1_FindsPlantedDifference(t *testing.T) {
	p := &player{targets: [2]*target{newKubeplay(t, "planted", notFoundIsForbidden), newKubeplay(t, "kube", same)}}
	tl := newTally()
	p.playAll(context.Background(), 3, 6, 25, 3, tl.add)
	var found *group
	for _, g := range tl.sortedGroups() {
		if !strings.HasSuffix(g.sig, " @ status") || g.result.Step.Method != "GET" {
			t.Errorf("a difference that was not planted: %s", g.sig)
		} else if found == nil {
			found = g
		}
	}
	if found == nil {
		t.Fatal("the planted 403 was not reported")
	}
	if d := found.result.Diffs[0]; d.Path != "status" || d.Kubeplay != "403" || d.Kube != "404" {
		t.Fatalf("reported as %s", d)
	}
	m := p.minimize(context.Background(), found.session, found.index, found.sig, 30)
	if !m.Reproduced || len(m.Session.Steps) > 2 {
		t.Fatalf("%s; steps:\n%v", m.summary(), m.Session.Steps)
	}
	if got := signature(m.Results[len(m.Results)-1]); got != found.sig {
		t.Fatalf("the minimized session shows %q, not %q", got, found.sig)
	}
}

// TestK8S_FID_1_GeneratorIsSeeded: a seed and index give the same session
// every time, other seeds other sessions.
func TestK8S_FID_1_GeneratorIsSeeded(t *testing.T) {
	a := generate(42, 3, 40, "ns")
	b := generate(42, 3, 40, "ns")
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed and index made two sessions")
	}
	if c := generate(43, 3, 40, "ns"); reflect.DeepEqual(a.Steps, c.Steps) {
		t.Fatal("another seed made the same session")
	}
	if len(a.Steps) != 40 || a.Steps[0].Kind != "Namespace" || a.Steps[0].Verb != "create" {
		t.Fatalf("a session is its namespace and then its steps: %d steps, first %s", len(a.Steps), a.Steps[0].Label())
	}
}

// TestK8S_FID_1_GeneratorCovers: over a run's sessions, every verb, kind,
// representation, PATCH type, kind of bad input and the query options the
// issue lists appear.
func TestK8S_FID_1_GeneratorCovers(t *testing.T) {
	seen := map[string]bool{}
	for i := range 200 {
		for _, s := range generate(1, i, 25, "ns").Steps {
			c := categories(s)
			seen["verb "+c[0]], seen["kind "+c[1]], seen["repr "+c[2]], seen["input "+c[3]] = true, true, true, true
			for _, h := range s.Header {
				if h[0] == "Content-Type" && s.Method == "PATCH" {
					seen["patch "+h[1]] = true
				}
			}
			if s.BodyAs != "" {
				seen["body "+s.BodyAs] = true
			}
			for _, q := range s.Query {
				seen["query "+q[0]] = true
			}
			if strings.Contains(s.Body, `"preconditions"`) {
				seen["preconditions"] = true
			}
		}
	}
	var want []string
	for _, v := range []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"} {
		want = append(want, "verb "+v)
	}
	for _, k := range kinds {
		want = append(want, "kind "+k.Kind)
	}
	for _, r := range []string{reprJSON, reprYAML, reprProtobuf, reprCBOR, reprTable, reprMeta} {
		want = append(want, "repr "+r)
	}
	for _, b := range []string{badBody, badType, badQuery, badKind, badName, badMedia, badPath, badLabels, badOptions} {
		want = append(want, "input bad: "+b)
	}
	for _, p := range []string{"application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json",
		"application/apply-patch+yaml", "application/apply-patch+cbor"} {
		want = append(want, "patch "+p)
	}
	for _, q := range []string{"labelSelector", "fieldSelector", "limit", "continue", "resourceVersion", "resourceVersionMatch",
		"sendInitialEvents", "allowWatchBookmarks", "timeoutSeconds", "dryRun", "fieldValidation", "fieldManager", "force",
		"includeObject", "gracePeriodSeconds", "propagationPolicy"} {
		want = append(want, "query "+q)
	}
	want = append(want, "body protobuf", "body cbor", "preconditions")
	for _, w := range want {
		if !seen[w] {
			t.Errorf("never generated: %s", w)
		}
	}
}

// TestK8S_FID_1_NormalizesOnlyWhatMustDiffer: two answers that differ only in
// what two servers must make differently normalize alike; any other
// difference stays.
func TestK8S_FID_1_NormalizesOnlyWhatMustDiffer(t *testing.T) {
	const a = `{"kind":"ConfigMap","metadata":{"name":"gen-x7k2p","namespace":"ns-a","uid":"0a0b0c0d-1111-2222-3333-444455556666",` +
		`"resourceVersion":"105","creationTimestamp":"2026-01-01T10:00:00Z","managedFields":[{"time":"2026-01-01T10:00:00Z"}]},"data":{"k":"v","l":"w"}}`
	const b = `{"kind":"ConfigMap","metadata":{"name":"gen-b9qzr","namespace":"ns-b","uid":"99999999-8888-7777-6666-555544443333",` +
		`"resourceVersion":"2207","creationTimestamp":"2031-05-05T23:59:59Z","managedFields":[{"time":"2031-05-05T23:59:59Z"}]},"data":{"k":"v","l":"w"}}`
	step := Step{Verb: "create", Kind: "ConfigMap", GenPrefix: "gen-"}
	norm := func(ns, body string) *object {
		n := newNormalizer(newServerState(ns, []string{"gen-"}), nil)
		h := http.Header{"Content-Type": {"application/json"}, "Audit-Id": {ns}}
		return n.answer(step, raw{status: 201, header: h, body: []byte(body)})
	}
	if d := compare(norm("ns-a", a), norm("ns-b", b)); len(d) > 0 {
		t.Fatalf("answers differing only in generated values compare as different: %v", d)
	}
	for _, c := range []struct{ name, from, to string }{
		{"a value", `"k":"v"`, `"k":"w"`},
		{"a field", `"data":{`, `"immutable":false,"data":{`},
		{"key order", `"k":"v","l":"w"`, `"l":"w","k":"v"`},
		{"time precision", `"creationTimestamp":"2031-05-05T23:59:59Z"`, `"creationTimestamp":"2031-05-05T23:59:59.000000Z"`},
		{"a name", `"gen-b9qzr"`, `"gen-b9qzrq"`},
	} {
		changed := strings.Replace(b, c.from, c.to, 1)
		if changed == b {
			t.Fatalf("%s: nothing replaced", c.name)
		}
		if d := compare(norm("ns-a", a), norm("ns-b", changed)); len(d) == 0 {
			t.Errorf("%s: a real difference was normalized away", c.name)
		}
	}
}

// TestK8S_FID_1_ResourceVersionsByOrder: resourceVersions compare by the step
// that first showed them, lists' by the newest object revision before them;
// a server that reuses a revision, or shows an older one, differs.
func TestK8S_FID_1_ResourceVersionsByOrder(t *testing.T) {
	label := func(rvs ...string) []string {
		st := newServerState("ns", nil)
		var out []string
		for i, rv := range rvs[:len(rvs)-1] {
			st.step = i
			st.labelRV(rv)
		}
		for _, rv := range rvs {
			out = append(out, st.rvLabel(rv, false))
		}
		return out
	}
	kubeplay := label("5", "6", "9", "7") // a list at 7: after the write that made 6
	kube := label("1040", "1100", "1107", "1102")
	if !slices.Equal(kubeplay, kube) {
		t.Fatalf("kubeplay %v, kube %v", kubeplay, kube)
	}
	if other := label("5", "5", "9", "7"); slices.Equal(other, kubeplay) {
		t.Fatalf("a revision shown twice labels as two: %v", other)
	}
}

// TestK8S_FID_1_UIDsByObject: a uid is labelled by its object's kind and
// name, so that an object only one server made shifts no other's label.
func TestK8S_FID_1_UIDsByObject(t *testing.T) {
	cm := func(name, uid string) raw {
		return raw{status: 201, header: http.Header{"Content-Type": {"application/json"}},
			body: []byte(`{"kind":"ConfigMap","metadata":{"name":"` + name + `","uid":"` + uid + `"}}`)}
	}
	step := Step{Verb: "create", Kind: "ConfigMap"}
	a := newNormalizer(newServerState("ns", nil), nil)
	a.answer(step, cm("x", "0a0b0c0d-1111-2222-3333-444455556666"))
	got := a.answer(step, cm("y", "0a0b0c0d-1111-2222-3333-444455557777"))
	b := newNormalizer(newServerState("ns", nil), nil)
	want := b.answer(step, cm("y", "99999999-8888-7777-6666-555544443333"))
	if d := compare(got, want); len(d) > 0 {
		t.Fatalf("the same object's uid labelled apart: %v", d)
	}
	if again := b.answer(step, cm("y", "99999999-8888-7777-6666-000000000000")); len(compare(again, want)) == 0 {
		t.Fatal("a new incarnation of an object was labelled as the old one")
	}
}

// TestK8S_FID_1_PodUpdateDiffExplained: kube's go-cmp diff after a forbidden
// Pod update is a known difference, also when the message lists other errors
// after it; a message differing otherwise is not.
func TestK8S_FID_1_PodUpdateDiffExplained(t *testing.T) {
	const forbidden = "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`"
	diff := "\n\u00a0\u00a0core.PodSpec{\n-\u00a0\tVolumes: nil,\n\u00a0\u00a0}\n"
	step := Step{Verb: "update", Kind: "Pod"}
	for _, c := range []struct {
		kubeplay, kube string
		known          bool
	}{
		{forbidden, forbidden + diff, true},
		{"[a: Invalid value, " + forbidden + "]", "[a: Invalid value, " + forbidden + diff + "]", true},
		{"[a: Invalid value, " + forbidden + "]", "[b: Invalid value, " + forbidden + diff + "]", false},
	} {
		d := Diff{Path: "body.message", values: [2]any{c.kubeplay, c.kube}}
		if got := explain(step, []Diff{d}, [2]*object{{}, {}}) != nil; got != c.known {
			t.Errorf("%q against %q: known %v, want %v", c.kubeplay, c.kube, got, c.known)
		}
	}
}

// TestK8S_FID_1_WatchCacheLagExplained: a read kube's watch cache serves
// that kube answers at an older revision than kubeplay is a known
// difference; the same answer at the same revision, kube at a newer one, or
// a read the cache does not serve is not. A watch whose initial events kube
// ended before an event it sent next is known; other events are not.
func TestK8S_FID_1_WatchCacheLagExplained(t *testing.T) {
	answer := func(rv string, labels string) *object {
		v, err := parseJSON(json.NewDecoder(strings.NewReader(`{"status":200,"body":{"metadata":{"resourceVersion":"` + rv +
			`","labels":{` + labels + `}}}}`)))
		if err != nil {
			t.Fatal(err)
		}
		return v.(*object)
	}
	get := Step{Verb: "get", Kind: "ConfigMap", Query: [][2]string{{"resourceVersion", "0"}}}
	list := Step{Verb: "list", Kind: "ConfigMap", Query: [][2]string{{"resourceVersion", "{{write:-1}}"}, {"resourceVersionMatch", "NotOlderThan"}}}
	exact := Step{Verb: "list", Kind: "ConfigMap", Query: [][2]string{{"resourceVersion", "{{write:-1}}"}, {"resourceVersionMatch", "Exact"}}}
	consistent := Step{Verb: "get", Kind: "ConfigMap"}
	for _, c := range []struct {
		name           string
		step           Step
		kubeplay, kube *object
		known          bool
	}{
		{"a get at 0, kube older", get, answer("rv@20", `"tier":"a"`), answer("rv@14", ""), true},
		{"a list not older than, kube older", list, answer("rv@15", `"tier":"a"`), answer("rv@-", ""), true},
		{"the same revision", get, answer("rv@14", `"tier":"a"`), answer("rv@14", ""), false},
		{"kube newer", get, answer("rv@14", `"tier":"a"`), answer("rv@20", ""), false},
		{"an exact list", exact, answer("rv@20", `"tier":"a"`), answer("rv@14", ""), false},
		{"a consistent get", consistent, answer("rv@20", `"tier":"a"`), answer("rv@14", ""), false},
	} {
		a := [2]*object{c.kubeplay, c.kube}
		if got := explain(c.step, compare(c.kubeplay, c.kube), a) != nil; got != c.known {
			t.Errorf("%s: known %v, want %v", c.name, got, c.known)
		}
	}

	watch := func(events string) *object {
		v, err := parseJSON(json.NewDecoder(strings.NewReader(`{"status":200,"events":[` + events + `]}`)))
		if err != nil {
			t.Fatal(err)
		}
		return v.(*object)
	}
	const added = `{"type":"ADDED","object":{"metadata":{"name":"d","resourceVersion":"rv@18"}}}`
	end := func(rv string) string {
		return `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"` + rv + `","annotations":{"k8s.io/initial-events-end":"true"}}}}`
	}
	step := Step{Verb: "watch", Kind: "ConfigMap", Watch: true}
	for _, c := range []struct {
		name           string
		kubeplay, kube *object
		known          bool
	}{
		{"kube ended its initial events before d", watch(added + "," + end("rv@18")), watch(end("rv@17") + "," + added), true},
		{"kube never sent d", watch(added + "," + end("rv@18")), watch(end("rv@17")), false},
		{"kube ended them later", watch(end("rv@17") + "," + added), watch(added + "," + end("rv@18")), false},
	} {
		a := [2]*object{c.kubeplay, c.kube}
		if got := explain(step, compare(c.kubeplay, c.kube), a) != nil; got != c.known {
			t.Errorf("%s: known %v, want %v", c.name, got, c.known)
		}
	}
}
