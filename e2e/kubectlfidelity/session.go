// Package kubectlfidelity is the differential harness of the page's kubectl
// (LEARN-1): each scripted session (testdata/sessions/*.txt) is played by the
// real kubectl 1.32 against one fresh native sandbox and by core/kubectl,
// in-process, against a second one configured alike; per command it compares
// the exit code, stdout and stderr byte for byte and the requests kubectl
// sent, after normalizing only what two runs must make differently (ages,
// generated names, uids, resourceVersions, times, the client's build). `make
// kubectl-fidelity` plays every session (tools/kubectlfidelity); the commands
// already identical (the gate, gate.go) are kept so by `make test`.
//
// This file owns the session format:
//
//	# a comment
//	@cluster simulated        api-only (the default) or simulated: the sandboxes' kind
//	kubectl get pods -o wide  one command line, split as a shell splits (quotes, backslashes; no expansion)
//	kubectl apply -f - <<EOF  a heredoc: the lines up to the terminator are the command's stdin
//	...
//	EOF
//	@setup kubectl apply -f - <<EOF   a command the real kubectl runs on both sides, not compared:
//	                          the state the commands under test read (heredocs as above)
//	@sleep 2s                 both sandboxes settle (a simulated cluster's Pods start) before the next command
//	@interrupt 1500ms         the next command is interrupted after that long: Ctrl-C (SIGINT
//	                          to kubectl, ctx cancelled for ours), for -w and logs -f
package kubectlfidelity

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A Session is one scripted terminal session.
type Session struct {
	Name      string // the file's name without .txt
	Simulated bool   // a simulated cluster (nodes, kubelets, controllers); else API-only
	Steps     []Step
}

// A Step is one command line, or a pause between two.
type Step struct {
	Line      int           // where it starts in the file
	Args      []string      // the words after "kubectl"; nil for a pause
	Text      string        // the command line as written (without the heredoc)
	Stdin     string        // a heredoc's lines
	Sleep     time.Duration // a pause: both sides wait this long
	Interrupt time.Duration // Ctrl-C after this long (0: run to the end)
	Setup     bool          // run by the real kubectl on both sides, not compared
}

// Mode is the sandboxes' kind as the report shows it.
func (s *Session) Mode() string {
	if s.Simulated {
		return "simulated"
	}
	return "api-only"
}

// Commands counts the session's compared command lines.
func (s *Session) Commands() int {
	n := 0
	for _, st := range s.Steps {
		if st.Args != nil && !st.Setup {
			n++
		}
	}
	return n
}

// LoadSessions parses every dir/*.txt, in name order.
func LoadSessions(dir string) ([]*Session, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no sessions in %s", dir)
	}
	var out []*Session
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		s, err := ParseSession(strings.TrimSuffix(filepath.Base(f), ".txt"), string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// ParseSession parses a session's text.
func ParseSession(name, text string) (*Session, error) {
	s := &Session{Name: name}
	lines := strings.Split(text, "\n")
	var interrupt time.Duration
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		lineNo := i + 1
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "@"):
			word, arg, _ := strings.Cut(line[1:], " ")
			arg = strings.TrimSpace(arg)
			switch word {
			case "cluster":
				if arg != "api-only" && arg != "simulated" {
					return nil, fmt.Errorf("line %d: @cluster %q: want api-only or simulated", lineNo, arg)
				}
				s.Simulated = arg == "simulated"
			case "setup":
				st := Step{Line: lineNo, Setup: true}
				var err error
				if i, err = st.parseCommand(arg, lines, i); err != nil {
					return nil, err
				}
				s.Steps = append(s.Steps, st)
			case "sleep", "interrupt":
				d, err := time.ParseDuration(arg)
				if err != nil || d <= 0 {
					return nil, fmt.Errorf("line %d: @%s %q: want a positive duration", lineNo, word, arg)
				}
				if word == "sleep" {
					s.Steps = append(s.Steps, Step{Line: lineNo, Sleep: d})
				} else {
					interrupt = d
				}
			default:
				return nil, fmt.Errorf("line %d: unknown directive @%s", lineNo, word)
			}
		default:
			st := Step{Line: lineNo, Interrupt: interrupt}
			interrupt = 0
			var err error
			if i, err = st.parseCommand(line, lines, i); err != nil {
				return nil, err
			}
			s.Steps = append(s.Steps, st)
		}
	}
	if interrupt != 0 {
		return nil, fmt.Errorf("@interrupt with no command after it")
	}
	if s.Commands() == 0 {
		return nil, fmt.Errorf("no command")
	}
	return s, nil
}

// parseCommand reads the command line at lines[i] (text, without a
// directive) and its heredoc, and returns the index of its last line.
func (st *Step) parseCommand(text string, lines []string, i int) (int, error) {
	cmdText, marker, heredoc := strings.Cut(text, "<<")
	if heredoc {
		marker = strings.Trim(strings.TrimSpace(marker), `'"`)
		if marker == "" {
			return i, fmt.Errorf("line %d: << without a terminator", st.Line)
		}
		var body []string
		for i++; i < len(lines) && strings.TrimRight(lines[i], " \t\r") != marker; i++ {
			body = append(body, lines[i])
		}
		if i == len(lines) {
			return i, fmt.Errorf("line %d: heredoc not ended by %s", st.Line, marker)
		}
		st.Stdin = strings.Join(body, "\n") + "\n"
	}
	words, err := splitWords(cmdText)
	if err != nil {
		return i, fmt.Errorf("line %d: %w", st.Line, err)
	}
	if len(words) == 0 || words[0] != "kubectl" {
		return i, fmt.Errorf("line %d: a command line starts with kubectl", st.Line)
	}
	st.Args = append([]string{}, words[1:]...)
	st.Text = strings.TrimSpace(cmdText)
	return i, nil
}

// splitWords splits a command line as a POSIX shell does, quotes and
// backslashes only.
func splitWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated '")
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i == len(line) {
				return nil, fmt.Errorf("unterminated \"")
			}
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
