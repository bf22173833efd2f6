package tutorials

// The exercises (LEARN-2) and the tracks (LEARN-3): their files' shape, checked
// strictly, and every exercise played by the page's checker in Node
// (replay.mjs, ui/src/exercise.js): its solution ticks every part, each wrong
// attempt leaves the parts it names unticked with their messages and hint.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

type exercise struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
	Cluster string `json:"cluster,omitempty"`
	// State names a share document in states/ the exercise starts from.
	State string    `json:"state,omitempty"`
	Goal  string    `json:"goal"`
	Parts []part    `json:"parts"`
	Hints []hint    `json:"hints"`
	Sol   solution  `json:"solution"`
	Wrong []attempt `json:"wrong"`
}

type part struct {
	ID       string            `json:"id"`
	Text     string            `json:"text"`
	Resource resourceRef       `json:"resource"`
	Expect   *expect           `json:"expect,omitempty"`
	Absent   string            `json:"absent"`
	Messages map[string]string `json:"messages,omitempty"`
}

type resourceRef struct {
	Group     *string `json:"group"`
	Version   string  `json:"version"`
	Resource  string  `json:"resource"`
	Namespace string  `json:"namespace,omitempty"`
	Name      *string `json:"name,omitempty"`
	Selector  *string `json:"selector,omitempty"`
}

type hint struct {
	Part string `json:"part"`
	Text string `json:"text"`
}

type solution struct {
	Kubectl []string `json:"kubectl"`
	Steps   []step   `json:"steps"`
}

type attempt struct {
	Title    string            `json:"title"`
	Steps    []step            `json:"steps"`
	Ticked   []string          `json:"ticked,omitempty"`
	Unticked map[string]string `json:"unticked"`
	Hint     string            `json:"hint"`
}

type track struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Level     string   `json:"level"`
	Minutes   int      `json:"minutes"`
	Summary   string   `json:"summary"`
	Tutorials []string `json:"tutorials"`
	Exercises []string `json:"exercises"`
}

var exerciseIDRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// validateExercise decodes an exercise file strictly and checks its shape;
// every error names the file and the field.
func validateExercise(file string, data []byte) (*exercise, []error) {
	var ex exercise
	if err := decodeStrict(data, &ex); err != nil {
		return nil, []error{fmt.Errorf("%s: %v", file, err)}
	}
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s: %s", file, field, fmt.Sprintf(format, args...)))
	}
	if want := strings.TrimSuffix(filepath.Base(file), ".json"); ex.ID != want || !exerciseIDRE.MatchString(ex.ID) {
		bad("id", "%q, want %q (the file's name, lower-case words and dashes)", ex.ID, want)
	}
	for field, v := range map[string]string{"title": ex.Title, "summary": ex.Summary, "goal": ex.Goal} {
		if strings.TrimSpace(v) == "" {
			bad(field, "required")
		}
	}
	if ex.Cluster != "" && ex.Cluster != "simulated" {
		bad("cluster", "%q, want \"simulated\" or absent", ex.Cluster)
	}
	if ex.State != "" {
		var doc struct {
			Kind    string `json:"kind"`
			Version int    `json:"version"`
			Objects []struct {
				Key    string          `json:"key"`
				Object json.RawMessage `json:"object"`
			} `json:"objects"`
		}
		data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "states", ex.State))
		switch {
		case err != nil || filepath.Base(ex.State) != ex.State:
			bad("state", "%q: a file of states/: %v", ex.State, err)
		case json.Unmarshal(data, &doc) != nil || doc.Kind != "KubeplayShare" || doc.Version != 1 || len(doc.Objects) == 0:
			bad("state", "%q: not a share document (GET /debug/kubeplay/share of a sandbox)", ex.State)
		}
	}
	if len(ex.Parts) == 0 {
		bad("parts", "required")
	}
	parts := map[string]bool{}
	for i, p := range ex.Parts {
		f := fmt.Sprintf("parts[%d]", i)
		if p.ID == "" || parts[p.ID] {
			bad(f+".id", "%q: required and unique", p.ID)
		}
		parts[p.ID] = true
		if p.Text == "" {
			bad(f+".text", "required")
		}
		if p.Absent == "" {
			bad(f+".absent", "required: the message when no object is there")
		}
		r := p.Resource
		if r.Group == nil {
			bad(f+".resource.group", "required (\"\" for the core group)")
		}
		if r.Version == "" {
			bad(f+".resource.version", "required")
		}
		if r.Resource == "" {
			bad(f+".resource.resource", "required")
		}
		if (r.Name == nil) == (r.Selector == nil) {
			bad(f+".resource", "exactly one of name and selector")
		}
		if p.Expect != nil {
			e := p.Expect
			if e.Status != nil || e.Contains != nil || e.Warnings != nil || e.Headers != nil || e.Events != nil || e.EventCount != nil {
				bad(f+".expect", "a part expects json, jsonPresent, jsonAbsent or atLeast only")
			}
		}
		known := map[string]bool{}
		if p.Expect != nil {
			for k := range p.Expect.JSON {
				known[k] = true
			}
			for _, k := range append(append([]string{}, p.Expect.JSONPresent...), p.Expect.JSONAbsent...) {
				known[k] = true
			}
			for k := range p.Expect.AtLeast {
				known[k] = true
			}
		}
		for k := range p.Messages {
			if !known[k] {
				bad(f+".messages."+k, "no expectation of the part has this path")
			}
		}
	}
	hinted := map[string]bool{}
	for i, h := range ex.Hints {
		if h.Text == "" {
			bad(fmt.Sprintf("hints[%d].text", i), "required")
		}
		if !parts[h.Part] {
			bad(fmt.Sprintf("hints[%d].part", i), "%q is not a part", h.Part)
		}
		hinted[h.Part] = true
	}
	for _, p := range ex.Parts {
		if !hinted[p.ID] {
			bad("hints", "no hint for part %q", p.ID)
		}
	}
	if len(ex.Sol.Kubectl) == 0 {
		bad("solution.kubectl", "required")
	}
	checkSteps := func(field string, steps []step) {
		if len(steps) == 0 {
			bad(field, "required")
		}
		// The steps are a tutorial's: check them as one.
		var st shapeErrors
		checkShape(&st, &tutorial{ID: file + " " + field, Summary: "-", Steps: steps})
		errs = append(errs, st...)
	}
	checkSteps("solution.steps", ex.Sol.Steps)
	if len(ex.Wrong) == 0 {
		bad("wrong", "at least one wrong attempt")
	}
	for i, w := range ex.Wrong {
		f := fmt.Sprintf("wrong[%d]", i)
		if w.Title == "" {
			bad(f+".title", "required")
		}
		checkSteps(f+".steps", w.Steps)
		if len(w.Unticked) == 0 {
			bad(f+".unticked", "required: the parts the attempt leaves unticked, with their messages")
		}
		for id := range w.Unticked {
			if !parts[id] {
				bad(f+".unticked."+id, "not a part")
			}
		}
		for _, id := range w.Ticked {
			if !parts[id] {
				bad(f+".ticked", "%q is not a part", id)
			}
		}
		if w.Hint == "" {
			bad(f+".hint", "required: the hint the checker offers after it")
		}
	}
	return &ex, errs
}

// shapeErrors collects checkShape's complaints as errors.
type shapeErrors []error

func (s *shapeErrors) Helper() {}

func (s *shapeErrors) Errorf(format string, args ...any) {
	*s = append(*s, fmt.Errorf(format, args...))
}

func exerciseFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("exercises", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func loadExercise(t *testing.T, file string) *exercise {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ex, errs := validateExercise(file, data)
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	return ex
}

// TestLEARN_2_ExercisesFormat checks every exercise file's shape.
func TestLEARN_2_ExercisesFormat(t *testing.T) {
	files := exerciseFiles(t)
	if len(files) == 0 {
		t.Fatal("no exercises in exercises/")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, errs := validateExercise(f, data); len(errs) > 0 {
			t.Error(errors.Join(errs...))
		}
	}
}

// TestLEARN_2_MalformedExerciseNamed shows a malformed exercise is refused
// with its file and field named.
func TestLEARN_2_MalformedExerciseNamed(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("exercises", "deployment-replicas.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"absent": "there is no namespace shop yet"`, `"absent": "there is no namespace shop yet", "colour": 1`, `exercises/deployment-replicas.json: json: unknown field "colour"`},
		{`"version": "v1", "resource": "namespaces"`, `"version": "", "resource": "namespaces"`, `exercises/deployment-replicas.json: parts[0].resource.version: required`},
		{`"atLeast": {"status.readyReplicas": 3}`, `"atLeast": {"status.readyReplicas": 3}, "status": 200`, `exercises/deployment-replicas.json: parts[2].expect: a part expects json`},
		{`"status.readyReplicas": "the Deployment`, `"status.readyReplica": "the Deployment`, `exercises/deployment-replicas.json: parts[2].messages.status.readyReplica: no expectation`},
		{`"unticked": {"image"`, `"unticked": {"imag"`, `exercises/deployment-replicas.json: wrong[0].unticked.imag: not a part`},
	} {
		bad := strings.Replace(string(data), c.from, c.to, 1)
		if bad == string(data) {
			t.Fatalf("%q is not in the exercise", c.from)
		}
		_, errs := validateExercise(filepath.Join("exercises", "deployment-replicas.json"), []byte(bad))
		if got := errors.Join(errs...); got == nil || !strings.Contains(got.Error(), c.want) {
			t.Errorf("with %s: got %v, want an error containing %q", c.to, got, c.want)
		}
	}
}

// TestLEARN_3_Tracks checks tracks.json: every tutorial of index.json and
// every exercise is in exactly one track, and each track says its level and
// time.
func TestLEARN_3_Tracks(t *testing.T) {
	var tracks []track
	loadStrict(t, "tracks.json", &tracks)
	tutorials := map[string]int{}
	for _, e := range loadIndex(t) {
		tutorials[e.ID] = 0
	}
	exercises := map[string]int{}
	for _, f := range exerciseFiles(t) {
		exercises[strings.TrimSuffix(filepath.Base(f), ".json")] = 0
	}
	levels := map[string]bool{"beginner": true, "intermediate": true, "advanced": true}
	for i, tr := range tracks {
		if tr.ID == "" || tr.Title == "" || tr.Summary == "" || tr.Minutes <= 0 || !levels[tr.Level] {
			t.Errorf("tracks.json: tracks[%d] (%q): id, title, summary, minutes and a level (beginner, intermediate, advanced) are required", i, tr.ID)
		}
		for _, id := range tr.Tutorials {
			if _, ok := tutorials[id]; !ok {
				t.Errorf("tracks.json: tracks[%d].tutorials: %q is not in index.json", i, id)
			}
			tutorials[id]++
		}
		for _, id := range tr.Exercises {
			if _, ok := exercises[id]; !ok {
				t.Errorf("tracks.json: tracks[%d].exercises: %q is not in exercises/", i, id)
			}
			exercises[id]++
		}
	}
	for id, n := range tutorials {
		if n != 1 {
			t.Errorf("tracks.json: tutorial %q is in %d tracks, want 1", id, n)
		}
	}
	for id, n := range exercises {
		if n != 1 {
			t.Errorf("tracks.json: exercise %q is in %d tracks, want 1", id, n)
		}
	}
}

// TestLEARN_2_ExercisesReplay plays every exercise's solution (its steps,
// and its kubectl lines typed in a terminal) and each of its wrong attempts,
// each on a fresh sandbox (with the simulated cluster when the
// exercise says so), with the page's checker following the API.
func TestLEARN_2_ExercisesReplay(t *testing.T) {
	player := startPlayer(t)
	for _, f := range exerciseFiles(t) {
		ex := loadExercise(t, f)
		attempts := []int{-1, -2}
		for i := range ex.Wrong {
			attempts = append(attempts, i)
		}
		for _, n := range attempts {
			name := "solution"
			switch {
			case n == -2:
				name = "solution-kubectl"
			case n >= 0:
				name = fmt.Sprintf("wrong-%d", n)
			}
			t.Run(ex.ID+"/"+name, func(t *testing.T) {
				t.Parallel()
				hs := newSandbox(t, ex.Cluster == "")
				res := player.play(map[string]any{"base": hs.URL, "exercise": f, "attempt": n})
				if !res.OK {
					t.Fatalf("exercise %s, %s: step %d (%q): %s\nstatus %d, body:\n%s\nchecker: %s", ex.ID, name, res.Step, res.Title,
						strings.Join(res.Failures, "\n  "), res.Status, res.Body, res.State)
				}
			})
		}
	}
}
