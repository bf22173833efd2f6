package sim

import (
	"path"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/controllers"
)

// run is what a started container's process does, as the simulated kubelet
// reads it from the container's image and command (no process runs): it
// runs until stopped, or exits with exit after a while.
type run struct {
	exit    int64
	after   time.Duration
	forever bool
}

// files is what the Pod's volumes hold, as the simulated commands see them:
// a file's presence, by the volume's key (an emptyDir lives as long as its
// Pod, a hostPath as long as its node) and the path inside it.
type files map[string]bool

// program is what container c of Pod p does when it starts: the command the
// container runtime would exec (the container's command and args, with
// kubelet's $(VAR) references expanded; the image's own when it sets none),
// followed as far as the e2e images' well-known commands go:
//
//   - the image's own entrypoint: busybox's is a shell that exits at once,
//     an image tagged crash (busybox:crash) exits with 1 after a second,
//     every other image runs a server until stopped;
//   - `sleep N` runs N seconds (`sleep infinity` forever), `pause`
//     (agnhost's or the pause image's) and agnhost's servers until stopped,
//     `true` and `false` (`/bin/false`) exit with 0 and 1, any other
//     program with 0 after a second;
//   - `sh -c SCRIPT` runs the script's statements: the above, `exit N`,
//     `&&` and `||`, `if … then … else … fi`, `while true` (forever),
//     `touch FILE` and the file tests `[ -r FILE ]` (`-e`, `-f`, `test`),
//     FILE in the container's volumes (fs) or its own filesystem.
func program(p *pod, c *controllers.Container, id string, fs files) run {
	env := containerEnv(p, c)
	words := append(expandAll(c.Command, env), expandAll(c.Args, env)...)
	env["HOSTNAME"] = p.Metadata.Name
	if p.Spec.Hostname != "" {
		env["HOSTNAME"] = p.Spec.Hostname
	}
	if strings.HasSuffix(c.Image, ":crash") {
		return run{exit: 1, after: runTime}
	}
	if len(c.Command) == 0 && !isBusybox(c.Image) {
		if len(c.Args) == 0 || !isAgnhost(c.Image) {
			return run{forever: true}
		}
		words = append([]string{"agnhost"}, words...)
	}
	if len(words) == 0 { // busybox's sh: it reads its standard input, if open
		return run{after: runTime, forever: c.Stdin}
	}
	sh := &shell{pod: p, c: c, id: id, env: env, fs: fs}
	if isShell(words[0]) && len(words) > 2 && words[1] == "-c" {
		sh.script(words[2])
	} else {
		sh.status = sh.command(words)
	}
	r := run{exit: sh.status, after: sh.slept, forever: sh.forever}
	if r.after == 0 {
		r.after = runTime
	}
	return r
}

func isBusybox(image string) bool {
	name, _, _ := strings.Cut(path.Base(image), ":")
	return name == "busybox"
}

func isAgnhost(image string) bool {
	name, _, _ := strings.Cut(path.Base(image), ":")
	return name == "agnhost"
}

func isShell(word string) bool {
	switch path.Base(word) {
	case "sh", "bash", "ash", "dash":
		return true
	}
	return false
}

// finiteAgnhost are agnhost's subcommands that do their work and exit; its
// others serve until stopped.
var finiteAgnhost = map[string]bool{"mounttest": true, "entrypoint-tester": true, "dns-suffix": true,
	"dns-server-list": true, "etc-hosts": true, "connect": true, "nslookup": true}

// containerEnv is c's environment as kubelet gives it: values, and the Pod's
// fields a fieldRef names.
func containerEnv(p *pod, c *controllers.Container) map[string]string {
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
			env[e.Name] = fieldValue(p, e.ValueFrom.FieldRef.FieldPath)
		default:
			env[e.Name] = expandKube(e.Value, env)
		}
	}
	return env
}

// fieldValue is a Pod's field as the downward API reads it.
func fieldValue(p *pod, field string) string {
	switch field {
	case "metadata.name":
		return p.Metadata.Name
	case "metadata.namespace":
		return p.Metadata.Namespace
	case "metadata.uid":
		return p.Metadata.UID
	case "spec.nodeName":
		return p.Spec.NodeName
	case "status.podIP":
		return p.Status.PodIP
	case "status.hostIP":
		return p.Status.HostIP
	}
	if k, ok := strings.CutPrefix(field, "metadata.annotations['"); ok {
		return p.Metadata.Annotations[strings.TrimSuffix(k, "']")]
	}
	if k, ok := strings.CutPrefix(field, "metadata.labels['"); ok {
		return p.Metadata.Labels[strings.TrimSuffix(k, "']")]
	}
	return ""
}

func expandAll(words []string, env map[string]string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = expandKube(w, env)
	}
	return out
}

// expandKube expands kubelet's $(VAR) references to env: a reference to an
// unknown variable stays as it is.
func expandKube(s string, env map[string]string) string {
	return expand(s, func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	})
}

// expand expands $(VAR) references as kubelet does (k8s.io's
// third_party/forked/golang/expansion): $$ is a $, and a reference lookup
// does not know stays as it is.
func expand(s string, lookup func(string) (string, bool)) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "$$"):
			b.WriteByte('$')
			i++
		case strings.HasPrefix(s[i:], "$("):
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			if v, ok := lookup(s[i+2 : i+end]); ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+end+1])
			}
			i += end
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// shell follows a script's statements as far as the model goes.
type shell struct {
	pod     *pod
	c       *controllers.Container
	id      string // the container's ID: its own filesystem
	env     map[string]string
	fs      files
	status  int64
	slept   time.Duration
	forever bool
	exited  bool
}

// script runs a script; tokens are words and the separators ; && || and
// newlines.
func (sh *shell) script(src string) {
	toks := tokenize(src)
	sh.list(toks)
}

// tokenize splits a script into words (quotes removed) and separators.
func tokenize(src string) []string {
	var toks []string
	var cur strings.Builder
	word := false
	flush := func() {
		if word {
			toks = append(toks, cur.String())
			cur.Reset()
			word = false
		}
	}
	for i := 0; i < len(src); i++ {
		ch := src[i]
		switch {
		case ch == '\'' || ch == '"':
			end := strings.IndexByte(src[i+1:], ch)
			if end < 0 {
				end = len(src) - i - 1
			}
			cur.WriteString(src[i+1 : i+1+end])
			word = true
			i += end + 1
		case ch == '\n' || ch == ';':
			flush()
			toks = append(toks, ";")
		case strings.HasPrefix(src[i:], "&&") || strings.HasPrefix(src[i:], "||"):
			flush()
			toks = append(toks, src[i:i+2])
			i++
		case ch == ' ' || ch == '\t':
			flush()
		default:
			cur.WriteByte(ch)
			word = true
		}
	}
	flush()
	return toks
}

// list runs statements until the tokens end or the script stops.
func (sh *shell) list(toks []string) {
	run := true // whether the next command runs (after && or ||)
	for len(toks) > 0 && !sh.exited && !sh.forever {
		var stmt []string
		stmt, toks = sh.statement(toks)
		if run && len(stmt) > 0 {
			sh.status = sh.command(stmt)
		}
		if len(toks) == 0 {
			break
		}
		sep := toks[0]
		toks = toks[1:]
		switch sep {
		case "&&":
			run = sh.status == 0
		case "||":
			run = sh.status != 0
		default:
			run = true
		}
	}
}

// statement splits off the next simple command, running a compound one
// (if, while) itself.
func (sh *shell) statement(toks []string) (stmt, rest []string) {
	if len(toks) > 0 && (toks[0] == "if" || toks[0] == "while") {
		end := matching(toks)
		sh.compound(toks[:end])
		return nil, toks[end:]
	}
	i := 0
	for i < len(toks) && toks[i] != ";" && toks[i] != "&&" && toks[i] != "||" {
		i++
	}
	return toks[:i], toks[i:]
}

// matching is the index just past the fi or done that closes toks[0].
func matching(toks []string) int {
	depth := 0
	for i, t := range toks {
		if i > 0 && toks[i-1] != ";" && toks[i-1] != "&&" && toks[i-1] != "||" && toks[i-1] != "then" &&
			toks[i-1] != "else" && toks[i-1] != "do" {
			continue // only a command's first word is a keyword
		}
		switch t {
		case "if", "while":
			depth++
		case "fi", "done":
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(toks)
}

// compound runs an if or a while statement.
func (sh *shell) compound(toks []string) {
	body := toks[1 : len(toks)-1]
	if toks[0] == "while" {
		cond, _ := split(body, "do")
		c := trim(cond)
		if len(c) == 1 && (c[0] == "true" || c[0] == ":") {
			sh.forever = true
		}
		return
	}
	cond, rest := split(body, "then")
	sh.list(cond)
	then, otherwise := split(rest, "else")
	if sh.status == 0 {
		sh.list(then)
	} else {
		sh.list(otherwise)
	}
}

// split cuts toks at the first keyword word at depth 0.
func split(toks []string, keyword string) (before, after []string) {
	depth := 0
	for i, t := range toks {
		switch t {
		case "if", "while":
			depth++
		case "fi", "done":
			depth--
		case keyword:
			if depth == 0 {
				return toks[:i], toks[i+1:]
			}
		}
	}
	return toks, nil
}

func trim(toks []string) []string {
	var out []string
	for _, t := range toks {
		if t != ";" {
			out = append(out, t)
		}
	}
	return out
}

// command runs a simple command and is its exit status.
func (sh *shell) command(words []string) int64 {
	for i := range words {
		words[i] = sh.expand(words[i])
	}
	if len(words) == 0 {
		return 0
	}
	name := path.Base(words[0])
	switch name {
	case "exit":
		sh.exited = true
		if len(words) < 2 {
			return sh.status
		}
		n, err := strconv.ParseInt(words[1], 10, 64)
		if err != nil {
			return 2
		}
		return n & 0xff
	case "sleep":
		if len(words) > 1 {
			if words[1] == "infinity" {
				sh.forever = true
				return 0
			}
			if d, err := strconv.ParseFloat(strings.TrimSuffix(words[1], "s"), 64); err == nil {
				sh.slept += time.Duration(d * float64(time.Second))
			}
		}
		return 0
	case "true", ":":
		return 0
	case "false":
		return 1
	case "pause", "nginx", "httpd", "redis-server":
		sh.forever = true
		return 0
	case "agnhost":
		if len(words) < 2 || !finiteAgnhost[words[1]] {
			sh.forever = true
		}
		return 0
	case "tail":
		if len(words) > 1 && words[1] == "-f" {
			sh.forever = true
		}
		return 0
	case "touch":
		for _, f := range words[1:] {
			sh.fs[sh.file(f)] = true
		}
		return 0
	case "test", "[", "[[":
		return sh.test(words[1:])
	}
	return 0
}

// test is `test`, `[` and `[[` on a file: -e, -f and -r say whether it is there.
func (sh *shell) test(args []string) int64 {
	if n := len(args); n > 0 && (args[n-1] == "]" || args[n-1] == "]]") {
		args = args[:n-1]
	}
	negate := len(args) > 0 && args[0] == "!"
	if negate {
		args = args[1:]
	}
	ok := false
	if len(args) == 2 && (args[0] == "-e" || args[0] == "-f" || args[0] == "-r") {
		ok = sh.fs[sh.file(args[1])]
	}
	if ok != negate {
		return 0
	}
	return 1
}

// expand expands the shell's $VAR and ${VAR}.
func (sh *shell) expand(w string) string {
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		if w[i] != '$' || i+1 == len(w) {
			b.WriteByte(w[i])
			continue
		}
		j := i + 1
		var name string
		if w[j] == '{' {
			end := strings.IndexByte(w[j:], '}')
			if end < 0 {
				b.WriteString(w[i:])
				break
			}
			name, i = w[j+1:j+end], j+end
		} else {
			for j < len(w) && (w[j] == '_' || w[j] >= 'A' && w[j] <= 'Z' || w[j] >= 'a' && w[j] <= 'z' || w[j] >= '0' && w[j] <= '9') {
				j++
			}
			if j == i+1 {
				b.WriteByte('$')
				continue
			}
			name, i = w[i+1:j], j-1
		}
		b.WriteString(sh.env[name])
	}
	return b.String()
}

// file is a path's key among the files: in the volume mounted over it (an
// emptyDir by its Pod, a hostPath by its node's path), else in the
// container's own filesystem.
func (sh *shell) file(name string) string {
	name = path.Clean("/" + name)
	best := -1
	for i, m := range sh.c.VolumeMounts {
		mp := path.Clean(m.MountPath)
		if (name == mp || strings.HasPrefix(name, strings.TrimSuffix(mp, "/")+"/")) &&
			(best < 0 || len(mp) > len(sh.c.VolumeMounts[best].MountPath)) {
			best = i
		}
	}
	if best < 0 {
		return "container:" + sh.pod.Metadata.Key() + "/" + sh.id + name
	}
	m := sh.c.VolumeMounts[best]
	rel := strings.TrimPrefix(name, path.Clean(m.MountPath))
	for _, v := range sh.pod.Spec.Volumes {
		if v.Name == m.Name && v.HostPath != nil {
			return "host:" + path.Clean(v.HostPath.Path) + rel
		}
	}
	return "volume:" + sh.pod.Metadata.Key() + "/" + m.Name + rel
}
