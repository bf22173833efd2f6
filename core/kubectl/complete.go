package kubectl

// This file owns the terminal's tab completion: what may follow a partial
// command line (command words, the command's flags, -o's formats, resource
// types from discovery, and object or namespace names from one list
// request).

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// resourceCommands take TYPE [NAME...] arguments: their first argument
// completes to resource types, the next to object names. explain takes
// types only.
var resourceCommands = map[string]bool{
	"get": true, "describe": true, "delete": true, "edit": true, "label": true, "annotate": true, "patch": true,
	"scale": true, "wait": true, "rollout status": true, "rollout history": true, "rollout restart": true,
	"rollout undo": true, "rollout pause": true, "rollout resume": true, "explain": true,
}

// podCommands take a pod's name first (or TYPE/NAME).
var podCommands = map[string]bool{"logs": true, "exec": true, "attach": true, "port-forward": true}

// Complete is the words that may complete line's last word (or follow it,
// if line ends in a space), sorted. line is what the terminal holds, with
// or without a leading "kubectl".
func Complete(ctx context.Context, env *Env, line string) []string {
	words := strings.Fields(line)
	if len(words) > 0 && words[0] == "kubectl" {
		words = words[1:]
	}
	partial := ""
	if len(words) > 0 && !strings.HasSuffix(line, " ") {
		partial, words = words[len(words)-1], words[:len(words)-1]
	}
	c := &Cmd{Env: env, Ctx: ctx}
	if len(words) > 0 {
		switch words[len(words)-1] {
		case "-o", "--output":
			return withPrefix(append(append([]string(nil), printerFormats...), tableFormats...), partial)
		case "-n", "--namespace":
			return withPrefix(c.objectNames("namespaces"), partial)
		}
	}
	var pos []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") {
			pos = append(pos, w)
			continue
		}
		if v, ok := strings.CutPrefix(w, "--namespace="); ok {
			c.Namespace = v
		}
		if takesValue(w) && i+1 < len(words) {
			i++
			if w == "-n" || w == "--namespace" {
				c.Namespace = words[i]
			}
		}
	}
	var cmd *command
	n := len(pos)
	for ; n > 0; n-- {
		if cm, ok := commands[strings.Join(pos[:n], " ")]; ok {
			cmd = cm
			break
		}
	}
	if strings.HasPrefix(partial, "-") {
		return withPrefix(flagNames(c, cmd), partial)
	}
	args := pos[n:]
	var out []string
	if len(args) == 0 {
		out = append(out, nextWords(pos)...)
	}
	switch {
	case cmd == nil:
	case len(args) == 0 && (podCommands[cmd.path] || resourceCommands[cmd.path]) && strings.Contains(partial, "/"):
		typ, _, _ := strings.Cut(partial, "/")
		for _, name := range c.objectNames(typ) {
			out = append(out, typ+"/"+name)
		}
	case podCommands[cmd.path] && len(args) == 0:
		out = append(out, c.objectNames("pods")...)
	case resourceCommands[cmd.path]:
		switch {
		case len(args) == 0:
			out = append(out, c.resourceNames()...)
		case cmd.path != "explain" && !strings.Contains(args[0], "/"):
			out = append(out, c.objectNames(strings.Split(args[0], ",")[0])...)
		}
	}
	return withPrefix(out, partial)
}

// nextWords are the words that follow pos in the registered commands.
func nextWords(pos []string) []string {
	prefix := strings.Join(pos, " ")
	var out []string
	for p := range commands {
		rest := p
		if prefix != "" {
			var ok bool
			if rest, ok = strings.CutPrefix(p, prefix+" "); !ok {
				continue
			}
		}
		out = append(out, strings.Fields(rest)[0])
	}
	return out
}

// flagNames are cmd's flags and the global ones, as --name.
func flagNames(c *Cmd, cmd *command) []string {
	fs := pflag.NewFlagSet("complete", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.globalFlags(fs)
	if cmd != nil {
		cmd.flags(fs)
	}
	var out []string
	fs.VisitAll(func(f *pflag.Flag) { out = append(out, "--"+f.Name) })
	return out
}

// resourceNames are the resources discovery lists, by plural and short
// names, and their categories ("all").
func (c *Cmd) resourceNames() []string {
	d, err := c.Discovery()
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range d.Resources() {
		if !d.preferred(r) || !r.HasVerb("get") {
			continue
		}
		out = append(out, r.Resource)
		out = append(out, r.ShortNames...)
		out = append(out, r.Categories...)
	}
	return out
}

// objectNames are the names of typ's objects in the command line's
// namespace: one list request.
func (c *Cmd) objectNames(typ string) []string {
	r, err := c.Resolve(typ)
	if err != nil || !r.HasVerb("list") {
		return nil
	}
	data, err := c.Do(&Request{Method: "GET", Path: r.Path(c.NamespaceOrDefault(), ""), Query: url.Values{"limit": {"500"}},
		Header: [][2]string{{"Accept", "application/json"}}})
	if err != nil {
		return nil
	}
	var list struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if json.Unmarshal(data, &list) != nil {
		return nil
	}
	out := make([]string, len(list.Items))
	for i, it := range list.Items {
		out[i] = it.Metadata.Name
	}
	return out
}

// withPrefix is words that start with prefix, sorted, without duplicates.
func withPrefix(words []string, prefix string) []string {
	sort.Strings(words)
	var out []string
	for i, w := range words {
		if strings.HasPrefix(w, prefix) && (i == 0 || w != words[i-1]) {
			out = append(out, w)
		}
	}
	return out
}
