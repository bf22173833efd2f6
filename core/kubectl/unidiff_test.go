package kubectl

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLEARN_1_UnifiedDiffAsGNUDiff: kubectl diff's text is `diff -u -N`'s;
// ours must be GNU diff's, byte for byte, on edits of YAML-like files
// (changed, inserted, deleted lines, near and far apart, a new file) whose
// lines are distinct, so that one shortest edit script exists: where
// several do, GNU diff's choice (its middle-snake recursion after
// discarding confusing lines) and Myers's greedy one may differ.
func TestLEARN_1_UnifiedDiffAsGNUDiff(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("needs GNU diff")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(1))
	base := make([]string, 60)
	for i := range base {
		base[i] = strings.Repeat("  ", rng.Intn(3)) + "field" + strconv.Itoa(i) + ": value\n"
	}
	for n := 0; n < 200; n++ {
		a := append([]string(nil), base[:rng.Intn(len(base))+1]...)
		b := append([]string(nil), a...)
		for e := rng.Intn(6); e > 0; e-- {
			i := rng.Intn(len(b) + 1)
			switch rng.Intn(3) {
			case 0:
				b = append(b[:i], append([]string{"inserted: " + strconv.Itoa(n) + "." + strconv.Itoa(e) + "\n"}, b[i:]...)...)
			case 1:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			case 2:
				if i < len(b) {
					b[i] = "changed: " + strconv.Itoa(n) + "." + strconv.Itoa(e) + "\n"
				}
			}
		}
		from, to := strings.Join(a, ""), strings.Join(b, "")
		if n%20 == 0 {
			from = ""
		}
		pa, pb := filepath.Join(dir, "LIVE"), filepath.Join(dir, "MERGED")
		os.WriteFile(pa, []byte(from), 0o600)
		os.WriteFile(pb, []byte(to), 0o600)
		out, _ := exec.Command("diff", "-u", "-N", pa, pb).Output()
		want := string(out)
		var ta, tb string
		if lines := strings.SplitN(want, "\n", 3); len(lines) == 3 {
			ta, tb = lines[0][strings.IndexByte(lines[0], '\t')+1:], lines[1][strings.IndexByte(lines[1], '\t')+1:]
		}
		got := unifiedDiff(diffFile{pa, ta, from}, diffFile{pb, tb, to})
		if want != "" {
			want = "diff -u -N " + pa + " " + pb + "\n" + want
		}
		if got != want {
			t.Fatalf("case %d:\n--- from\n%s--- to\n%s--- want\n%s--- got\n%s", n, from, to, want, got)
		}
	}
}

// TestLEARN_1_DiffPrintsAsKubectl: kubectl diff's output for live and
// merged objects is `diff -u -N` over its LIVE and MERGED directories of
// YAML files (managedFields omitted, a Secret's data masked, a new object's
// live file empty), exit 1 when they differ; identical objects print
// nothing and exit 0.
func TestLEARN_1_DiffPrintsAsKubectl(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("needs GNU diff")
	}
	deploy := func(replicas int64, image string) map[string]any {
		return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "default",
			"managedFields": []any{map[string]any{"manager": "kubectl"}}, "generation": replicas},
			"spec": map[string]any{"replicas": replicas, "template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "nginx", "image": image}}}}}}
	}
	secret := func(pw string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "namespace": "default"},
			"data": map[string]any{"password": pw, "user": "YWRtaW4="}}
	}
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "new", "namespace": "default"}, "data": map[string]any{"a": "b"}}
	objs := []diffedObject{
		{"v1.Secret.default.s", secret("b2xk"), secret("bmV3")},
		{"apps.v1.Deployment.default.web", deploy(2, "nginx"), deploy(3, "nginx:1.27")},
		{"v1.ConfigMap.default.new", nil, cm},
		{"v1.ConfigMap.default.same", cm, cm},
	}
	dir := t.TempDir()
	live, merged := filepath.Join(dir, "LIVE"), filepath.Join(dir, "MERGED")
	os.Mkdir(live, 0o700)
	os.Mkdir(merged, 0o700)
	write := func(d, name, text string) { os.WriteFile(filepath.Join(d, name), []byte(text), 0o600) }
	write(live, "v1.Secret.default.s", "apiVersion: v1\ndata:\n  password: '*** (before)'\n  user: '***'\nkind: Secret\nmetadata:\n  name: s\n  namespace: default\n")
	write(merged, "v1.Secret.default.s", "apiVersion: v1\ndata:\n  password: '*** (after)'\n  user: '***'\nkind: Secret\nmetadata:\n  name: s\n  namespace: default\n")
	for _, o := range objs[1:] {
		a, _ := yamlText(withoutManagedFields(o.live))
		b, _ := yamlText(withoutManagedFields(o.merged))
		write(live, o.name, a)
		write(merged, o.name, b)
	}
	out, _ := exec.Command("diff", "-u", "-N", live, merged).Output()
	var stdout bytes.Buffer
	c := &Cmd{Env: &Env{Stdout: &stdout}}
	err := c.printDiff(objs, false)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("printDiff: %v, want exit 1", err)
	}
	norm := regexp.MustCompile(`(/tmp/LIVE-\d+|` + regexp.QuoteMeta(live) + `)|(/tmp/MERGED-\d+|` + regexp.QuoteMeta(merged) + `)|\t\d{4}-.*`)
	clean := func(s string) string {
		return norm.ReplaceAllStringFunc(s, func(m string) string {
			switch {
			case strings.HasPrefix(m, "\t"):
				return "\tTIME"
			case strings.Contains(m, "LIVE"):
				return "LIVE"
			}
			return "MERGED"
		})
	}
	if got, want := clean(stdout.String()), clean(string(out)); got != want {
		t.Errorf("kubectl diff's text:\n%s\nwant (diff -u -N):\n%s", got, want)
	}
	stdout.Reset()
	if err := c.printDiff(objs[3:], false); err != nil || stdout.Len() != 0 {
		t.Errorf("identical objects: %v %q, want no output and exit 0", err, stdout.String())
	}
}
