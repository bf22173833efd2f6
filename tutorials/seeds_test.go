package tutorials

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// seeds.json lists the sections of the source documents the tutorials
// teach from (PLAY-7: a tutorial for every section): each seed's file, its
// language, the translations of it that have the same sections, and its
// sections in order, each taught by the tutorials that name it in their
// "seeds" or given a reason why none does. docs/seed-coverage.md is the
// table made from them.

type seedFile struct {
	File         string        `json:"file"`
	Language     string        `json:"language"`
	Translations []string      `json:"translations,omitempty"`
	Sections     []seedSection `json:"sections"`
}

type seedSection struct {
	Section string `json:"section"`
	Reason  string `json:"reason,omitempty"`
}

// seedsDir is where the seeds are beside the repository on a developer's
// machine (../shared/seeds); a clean clone has none.
const seedsDir = "../../shared/seeds"

const coverageDoc = "../docs/seed-coverage.md"

func loadSeeds(t *testing.T) []seedFile {
	t.Helper()
	var seeds []seedFile
	loadStrict(t, "seeds.json", &seeds)
	return seeds
}

var mdHeading = regexp.MustCompile(`^#{2,3} (.*?)\s*(?:[{(]#[^)}]*[)}])?\s*$`)

// seedSections reads a seed's sections from its file: a Markdown seed's
// ## and ### headings; for a plain-text one, which has no markup, the
// sections listed are checked to be lines of the file, in that order. A
// translation listed with a seed has the same sections in its language,
// and is not read.
func seedSections(path string, listed []seedSection) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	if strings.HasSuffix(path, ".md") {
		// Headings in HTML comments are not the page's (a translation keeps
		// the original's there).
		var heads []string
		comment := false
		for _, l := range lines {
			if strings.Contains(l, "<!--") {
				comment = true
			}
			if m := mdHeading.FindStringSubmatch(l); m != nil && !comment {
				heads = append(heads, m[1])
			}
			if strings.Contains(l, "-->") {
				comment = false
			}
		}
		return heads, nil
	}
	var found []string
	at := 0
	for _, s := range listed {
		i := slices.IndexFunc(lines[at:], func(l string) bool { return strings.TrimPrefix(strings.TrimSpace(l), ".") == s.Section })
		if i < 0 {
			return found, fmt.Errorf("section %q is not a line of %s after %q", s.Section, path, strings.Join(found[max(0, len(found)-1):], ""))
		}
		found = append(found, s.Section)
		at += i + 1
	}
	return found, nil
}

// TestPLAY_7_SeedCoverage checks that every section of every seed is taught
// by a tutorial or says why not, that every tutorial's seeds name real
// sections, that seeds.json lists the seeds' own sections (where the seeds
// are at hand), and that docs/seed-coverage.md is the table they make
// (KUBEPLAY_WRITE_COVERAGE=1 writes it).
func TestPLAY_7_SeedCoverage(t *testing.T) {
	seeds := loadSeeds(t)
	taught := map[string][]string{} // FILE#SECTION → tutorial ids
	known := map[string]bool{}
	for _, sf := range seeds {
		if sf.File == "" || sf.Language == "" || len(sf.Sections) == 0 {
			t.Errorf("seeds.json: %q needs a file, a language and sections", sf.File)
		}
		for _, s := range sf.Sections {
			key := sf.File + "#" + s.Section
			if known[key] {
				t.Errorf("seeds.json: %s listed twice", key)
			}
			known[key] = true
		}
		// The seeds themselves, where they are (beside the repository).
		path := filepath.Join(seedsDir, sf.File)
		got, err := seedSections(path, sf.Sections)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			t.Logf("%s is not at hand: seeds.json's sections of it are taken as listed", path)
		case err != nil:
			t.Error(err)
		default:
			var want []string
			for _, s := range sf.Sections {
				want = append(want, s.Section)
			}
			if !slices.Equal(got, want) {
				t.Errorf("seeds.json's sections of %s are not the file's:\n got  %q\n want %q", sf.File, want, got)
			}
		}
	}
	for _, e := range loadIndex(t) {
		tut := loadTutorial(t, e.File)
		for _, ref := range tut.Seeds {
			if !known[ref] {
				t.Errorf("%s: seeds names %q, which is no section of seeds.json", e.File, ref)
				continue
			}
			taught[ref] = append(taught[ref], tut.ID)
		}
	}
	var doc bytes.Buffer
	doc.WriteString("# Seed coverage (PLAY-7)\n\nEvery section of the source documents the tutorials teach from, with the tutorials\nthat teach it or why none does. Made by `go test ./tutorials/ -run TestPLAY_7_SeedCoverage`\nfrom `tutorials/seeds.json` and each tutorial's `seeds` (`KUBEPLAY_WRITE_COVERAGE=1`\nwrites it); the test fails when a section has neither.\n")
	total, covered := 0, 0
	for _, sf := range seeds {
		fmt.Fprintf(&doc, "\n## %s (%s)\n\n", sf.File, sf.Language)
		if len(sf.Translations) > 0 {
			fmt.Fprintf(&doc, "Its translations %s have the same sections.\n\n", strings.Join(sf.Translations, " and "))
		}
		doc.WriteString("| section | tutorials |\n|---|---|\n")
		for _, s := range sf.Sections {
			key := sf.File + "#" + s.Section
			tuts := taught[key]
			total++
			switch {
			case len(tuts) > 0 && s.Reason != "":
				t.Errorf("seeds.json: %s is taught by %v and has a reason why not", key, tuts)
			case len(tuts) == 0 && s.Reason == "":
				t.Errorf("%s: no tutorial teaches it (name it in a tutorial's seeds) and seeds.json gives no reason", key)
			}
			cell := "— " + s.Reason
			if len(tuts) > 0 {
				covered++
				cell = strings.Join(tuts, ", ")
			}
			fmt.Fprintf(&doc, "| %s | %s |\n", strings.ReplaceAll(s.Section, "|", "\\|"), cell)
		}
	}
	fmt.Fprintf(&doc, "\n%d of %d sections taught by a tutorial.\n", covered, total)
	t.Logf("%d of %d sections taught by a tutorial", covered, total)
	if os.Getenv("KUBEPLAY_WRITE_COVERAGE") != "" {
		if err := os.WriteFile(coverageDoc, doc.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if old, err := os.ReadFile(coverageDoc); err != nil || !bytes.Equal(old, doc.Bytes()) {
		t.Errorf("%s is not the table seeds.json and the tutorials make (%v): run KUBEPLAY_WRITE_COVERAGE=1 go test ./tutorials/ -run TestPLAY_7_SeedCoverage", coverageDoc, err)
	}
}
