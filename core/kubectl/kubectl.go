// Package kubectl is kubectl 1.32's command line as the page runs it
// (LEARN-1): the commands people use in workshops, sending the requests
// kubectl sends, in its order, with its headers and query parameters, and
// printing what it prints, byte for byte. It is an API client and nothing
// else: every answer comes over Env.Handler (the page's own client path in
// the browser's module, wasm/kubectl; a server's handler or an HTTP client
// natively, where the differential tests run it beside the real kubectl).
//
// It is written for a 2 MiB module: pflag for the flags (cobra's
// text/template would keep every method of every type alive), no
// client-go, encoding/json for objects as maps.
package kubectl

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"kubeplay/core/version"
	"kubeplay/core/web"
)

// Version is the kubectl release this package answers as (`kubectl
// version`'s client version), and UserAgent what it sends: kubectl's
// "kubectl/VERSION (GOOS/GOARCH) kubernetes/COMMIT", with kubeplay in place
// of a Kubernetes commit it was not built from.
const Version = version.Kubernetes

// UserAgent is the User-Agent header of every request made with env.
func (env *Env) UserAgent() string {
	return "kubectl/" + Version + " (" + env.Platform + ") kubernetes/kubeplay"
}

// Env is what a command line runs against and prints to. One Env is one
// terminal: what kubectl keeps between runs on disk (the discovery cache, the
// kubeconfig's namespace) it keeps in the Env.
type Env struct {
	// Handler answers the requests: the API server, as the kubeconfig's
	// cluster names it.
	Handler web.Handler
	// Server is that cluster's URL as the kubeconfig names it (cluster-info
	// and config view print it; -v's request lines start with it).
	Server string
	// Namespace is the current context's namespace; "" is "default".
	Namespace string
	// Platform is the user agent's GOOS/GOARCH; "" is this program's.
	Platform string
	// Kubeconfig is the path -v=6 says the kubeconfig was loaded from
	// ("" says nothing).
	Kubeconfig string

	// Files, if set, is where -f reads files (the page's); nil is the
	// machine's file system.
	Files fs.FS

	Stdin          io.Reader
	Stdout, Stderr io.Writer

	// Exchange, if set, is told of each HTTP exchange once its answer is
	// read (or its stream ends): the page's list beside the terminal.
	Exchange func(Exchange)
	// Edit, if set, is kubectl edit's editor: it returns what the user saved
	// from content (the same bytes: no change; an error: cancelled).
	Edit func(ctx context.Context, filename string, content []byte) ([]byte, error)

	session session
}

// Exchange is one request and its answer, as -v=8 shows them.
type Exchange struct {
	Method, URL     string
	RequestHeader   [][2]string
	RequestBody     []byte
	Status          int
	ResponseHeader  [][2]string
	ResponseBody    []byte // up to a bound; a stream's first bytes
	Milliseconds    float64
	Err             string // the transport's error, if there was no answer
	ResponseStarted bool
}

// session is what kubectl keeps between command lines.
type session struct {
	discovery *discoveryCache
	// openAPI is the OpenAPI v3 group version documents read, by their
	// address (with its hash): immutable, so kubectl's HTTP cache keeps
	// them on disk and asks for them once.
	openAPI map[string][]byte
}

// Cmd is one command line being run: the Env, the global flags' values and
// the context that Ctrl-C cancels.
type Cmd struct {
	*Env
	Ctx context.Context
	// Path is the command's words ("get", "rollout status").
	Path string
	// Global flags.
	Namespace     string // -n; "" is the context's
	Verbosity     int    // -v
	As            string
	AsGroups      []string
	RequestTimout string
	fs            *pflag.FlagSet
	configLogged  bool            // -v=6's kubeconfig line is written
	openapi       *openAPICache   // the OpenAPI v3 documents read so far
	warned        map[string]bool // the server's warnings printed so far
	// resultPrinter is -o's printer for the objects a write command
	// prints, one for the command line as kubectl's (yaml's "---").
	resultPrinter *printer
}

// runFunc runs a command with its positional arguments.
type runFunc func(c *Cmd, args []string) error

// command is one kubectl command: its words, and how it declares its flags
// on a new FlagSet, returning what runs with their values.
type command struct {
	path  string
	flags func(fs *pflag.FlagSet) runFunc
}

var commands = map[string]*command{}

// register adds a command; each command's file registers its own.
func register(path string, flags func(fs *pflag.FlagSet) runFunc) {
	if _, dup := commands[path]; dup {
		panic("kubectl: command registered twice: " + path)
	}
	commands[path] = &command{path: path, flags: flags}
}

// exitError is an error with kubectl's exit code other than 1.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

// Run runs one command line (the words after "kubectl") and returns its exit
// code. Cancelling ctx is Ctrl-C: a watch or a follow ends, as kubectl's do.
func Run(ctx context.Context, env *Env, args []string) int {
	if env.Platform == "" {
		env.Platform = runtime.GOOS + "/" + runtime.GOARCH
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	cmd, rest := findCommand(args)
	if cmd == nil {
		word := firstWord(args)
		switch {
		case word == "":
			fmt.Fprint(env.Stdout, rootHelp)
			return 0
		case strings.HasPrefix(args[0], "-"):
			// An unknown word is a plugin's name to kubectl, which refuses
			// flags before one.
			fmt.Fprintf(env.Stderr, "Error: flags cannot be placed before plugin name: %s\n", args[0])
		default:
			fmt.Fprintf(env.Stderr, "Error: unknown command %q for %q\n", word, "kubectl")
		}
		return 1
	}
	c := &Cmd{Env: env, Ctx: ctx, Path: cmd.path}
	fs := pflag.NewFlagSet("kubectl "+cmd.path, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	c.globalFlags(fs)
	run := cmd.flags(fs)
	c.fs = fs
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintf(env.Stdout, "%s\n", strings.TrimSpace(fs.FlagUsages()))
			return 0
		}
		fmt.Fprintf(env.Stderr, "Error: %s\nSee 'kubectl %s --help' for usage.\n", err, cmd.path)
		return 1
	}
	err := run(c, fs.Args())
	if ctx.Err() != nil {
		// Ctrl-C: kubectl's interrupt handler exits 1, whatever was
		// under way (a watch, a follow, a wait), and prints nothing.
		return 1
	}
	if err != nil {
		return c.fail(err)
	}
	return 0
}

// fail prints err as kubectl's CheckErr does and returns the exit code.
func (c *Cmd) fail(err error) int {
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code, err = ee.code, ee.err
	}
	if errors.Is(err, errSilent) {
		return code
	}
	var list errorList
	var se *StatusError
	switch {
	case errors.As(err, &list):
		for _, e := range list {
			if errors.As(e, &se) {
				c.logStatusError(se)
			}
		}
	case errors.As(err, &se):
		c.logStatusError(se)
	}
	// kubectl's fatal adds a newline only if the message has none.
	msg := errorText(err)
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	fmt.Fprint(c.Stderr, msg)
	return code
}

// errSilent ends a command whose output already said why.
var errSilent = errors.New("")

// globalFlags are kubectl's persistent flags, accepted by every command.
func (c *Cmd) globalFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&c.Namespace, "namespace", "n", "", "If present, the namespace scope for this CLI request")
	fs.IntVarP(&c.Verbosity, "v", "v", 0, "number for the log level verbosity")
	fs.StringVar(&c.As, "as", "", "Username to impersonate for the operation.")
	fs.StringArrayVar(&c.AsGroups, "as-group", nil, "Group to impersonate for the operation.")
	fs.StringVar(&c.RequestTimout, "request-timeout", "0", "The length of time to wait before giving up on a single server request.")
}

// NamespaceOrDefault is the namespace a namespaced request goes to: -n, else
// the context's, else "default".
func (c *Cmd) NamespaceOrDefault() string {
	switch {
	case c.Namespace != "":
		return c.Namespace
	case c.Env.Namespace != "":
		return c.Env.Namespace
	}
	return "default"
}

// findCommand finds the longest registered command path among args' words
// before the first flag-looking argument that is not a global flag's value,
// and returns it with the remaining arguments (flags included).
func findCommand(args []string) (*command, []string) {
	var words []int // indexes of the non-flag words
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			if takesValue(a) {
				i++
			}
			continue
		}
		words = append(words, i)
		if len(words) == 3 {
			break
		}
	}
	for n := len(words); n > 0; n-- {
		parts := make([]string, n)
		for j := 0; j < n; j++ {
			parts[j] = args[words[j]]
		}
		if cmd, ok := commands[strings.Join(parts, " ")]; ok {
			// Contiguous words only: "get pods create" is "get".
			if words[n-1]-words[0] != 0 && !contiguousWords(args, words[:n]) {
				continue
			}
			rest := make([]string, 0, len(args)-n)
			skip := map[int]bool{}
			for _, w := range words[:n] {
				skip[w] = true
			}
			for i, a := range args {
				if !skip[i] {
					rest = append(rest, a)
				}
			}
			return cmd, rest
		}
	}
	return nil, nil
}

// contiguousWords says whether the words at idx follow one another in args,
// with only flags (and their values) between them.
func contiguousWords(args []string, idx []int) bool {
	for j := 1; j < len(idx); j++ {
		for i := idx[j-1] + 1; i < idx[j]; i++ {
			if !strings.HasPrefix(args[i], "-") && (i == 0 || !takesValue(args[i-1])) {
				return false
			}
		}
	}
	return true
}

// valueFlags are the global flags whose value may be the next argument.
var valueFlags = map[string]bool{"-n": true, "--namespace": true, "-v": true, "--v": true, "--as": true, "--as-group": true,
	"--request-timeout": true, "-s": true, "--server": true, "--context": true, "--kubeconfig": true, "--token": true,
	"--cluster": true, "--user": true, "--cache-dir": true}

func takesValue(flag string) bool { return !strings.Contains(flag, "=") && valueFlags[flag] }

func firstWord(args []string) string {
	for i := 0; i < len(args); i++ {
		if strings.HasPrefix(args[i], "-") {
			if takesValue(args[i]) {
				i++
			}
			continue
		}
		return args[i]
	}
	return ""
}

// Commands are the registered command paths, sorted: what the terminal
// completes.
func Commands() []string {
	out := make([]string, 0, len(commands))
	for p := range commands {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// rootHelp is what kubectl prints when given no command: its command list.
//
//go:embed help.txt
var rootHelp string
