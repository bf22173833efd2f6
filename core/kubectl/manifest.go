package kubectl

// This file owns reading manifests (-f FILE, -f DIR, -f -) as kubectl's
// resource builder does: a stream of YAML documents split on "---" lines
// (apimachinery's YAMLReader), or of concatenated JSON objects when the
// stream starts with "{"; each document converted with sigs.k8s.io/yaml
// (YAML 1.1, kubectl's own), empty and null documents skipped, Lists
// flattened, and kubectl's errors for what it cannot read.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"
)

// manifest is one object read from a file, with the source kubectl names
// in its errors ("error when creating \"dep.yaml\": ...").
type manifest struct {
	Source string
	Object map[string]any
	// InList: the object came in a List, which kubectl validates on the
	// client (the OpenAPI v2 document), not by asking for its kind.
	InList bool
}

// stdinSource is what kubectl calls the standard input.
const stdinSource = "STDIN"

// manifestExtensions are the files of a directory kubectl reads.
var manifestExtensions = []string{".json", ".yaml", ".yml"}

// filenameFlags are -f, -R and -k-less kubectl's FilenameOptions.
type filenameFlags struct {
	Filenames []string
	Recursive bool
}

func (f *filenameFlags) add(fs *pflag.FlagSet, usage string) {
	fs.StringSliceVarP(&f.Filenames, "filename", "f", nil, usage)
	fs.BoolVarP(&f.Recursive, "recursive", "R", false, "Process the directory used in -f, --filename recursively. Useful when you want to manage related manifests organized within the same directory.")
}

// readManifests reads every object the -f arguments name, in order. A path
// that does not exist is an error before anything is read; a document that
// cannot be read ends its file, and its error (in streamErrs) comes after
// those of the objects, as kubectl's ContinueOnError visitor reports it.
// Each document is checked for apiVersion and kind as kubectl's validation
// does before anything is sent.
func (c *Cmd) readManifests(f filenameFlags) (objs []manifest, streamErrs []error, err error) {
	var sources []string
	for _, name := range f.Filenames {
		if name == "-" {
			sources = append(sources, name)
			continue
		}
		files, err := c.expandPath(name, f.Recursive)
		if err != nil {
			return nil, nil, err
		}
		sources = append(sources, files...)
	}
	for _, name := range sources {
		var r io.Reader = c.Stdin
		source := stdinSource
		if name != "-" {
			data, err := c.readFile(name)
			if err != nil {
				return nil, nil, err
			}
			r, source = bytes.NewReader(data), name
		}
		read, err := c.readStream(r, source)
		objs = append(objs, read...)
		if err != nil {
			streamErrs = append(streamErrs, err)
		}
	}
	return objs, streamErrs, nil
}

// expandPath is the files a -f path names: itself, or a directory's
// manifests (its subdirectories' with -R), in lexical order.
func (c *Cmd) expandPath(name string, recursive bool) ([]string, error) {
	fsys, rel := c.fileSystem(name)
	info, err := fs.Stat(fsys, rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("the path %q does not exist", name)
		}
		return nil, err
	}
	if !info.IsDir() {
		return []string{name}, nil
	}
	var files []string
	err = fs.WalkDir(fsys, rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != rel && !recursive {
				return fs.SkipDir
			}
			return nil
		}
		for _, ext := range manifestExtensions {
			if filepath.Ext(p) == ext {
				files = append(files, filepath.Join(name, strings.TrimPrefix(strings.TrimPrefix(p, rel), "/")))
				break
			}
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// fileSystem is where a path is read: the Env's Files (the page's), else
// the machine's.
func (c *Cmd) fileSystem(name string) (fs.FS, string) {
	if c.Files != nil {
		return c.Files, path.Clean(strings.TrimPrefix(filepath.ToSlash(name), "/"))
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		abs = name
	}
	return os.DirFS("/"), strings.TrimPrefix(filepath.ToSlash(abs), "/")
}

func (c *Cmd) readFile(name string) ([]byte, error) {
	fsys, rel := c.fileSystem(name)
	return fs.ReadFile(fsys, rel)
}

// readStream reads a stream's documents as kubectl's StreamVisitor does.
func (c *Cmd) readStream(r io.Reader, source string) ([]manifest, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var docs [][]byte
	if bytes.HasPrefix(bytes.TrimLeftFunc(data, unicode.IsSpace), []byte("{")) {
		docs, err = jsonDocuments(data)
	} else {
		docs, err = yamlDocuments(data)
	}
	// docs are those before the one that could not be read (err).
	var out []manifest
	for _, doc := range docs {
		doc = bytes.TrimSpace(doc)
		if len(doc) == 0 || string(doc) == "null" {
			continue
		}
		obj, err := decodeObject(doc)
		if err != nil {
			return out, fmt.Errorf("error parsing %s: %v", source, err)
		}
		if err := checkTypeMeta(obj); err != nil {
			return out, fmt.Errorf("error validating %q: error validating data: %v; if you choose to ignore these errors, turn validation off with --validate=false", source, err)
		}
		out = append(out, flattenList(obj, source)...)
	}
	if err != nil {
		return out, fmt.Errorf("error parsing %s: %v", source, err)
	}
	return out, nil
}

// yamlDocuments splits a YAML stream on its "---" lines (a comment may
// follow one) and converts each document to JSON, up to the first it cannot
// read.
func yamlDocuments(data []byte) ([][]byte, error) {
	var docs [][]byte
	var doc bytes.Buffer
	flush := func() error {
		if doc.Len() == 0 {
			return nil
		}
		j, err := yaml.YAMLToJSON(doc.Bytes())
		if err != nil {
			return fmt.Errorf("error converting YAML to JSON: %v", err)
		}
		docs = append(docs, j)
		doc.Reset()
		return nil
	}
	rd := bufio.NewReader(bytes.NewReader(data))
	for {
		line, err := rd.ReadBytes('\n')
		if bytes.HasPrefix(line, []byte("---")) {
			rest := strings.TrimSpace(string(line[3:]))
			if rest != "" && rest[0] != '#' {
				return docs, fmt.Errorf("invalid Yaml document separator: %s", rest)
			}
			if ferr := flush(); ferr != nil {
				return docs, ferr
			}
		} else {
			doc.Write(line)
		}
		if err != nil {
			break
		}
	}
	return docs, flush()
}

// jsonDocuments splits a stream of JSON values, up to the first it cannot
// read.
func jsonDocuments(data []byte) ([][]byte, error) {
	var docs [][]byte
	d := json.NewDecoder(bytes.NewReader(data))
	for {
		var raw json.RawMessage
		if err := d.Decode(&raw); err == io.EOF {
			return docs, nil
		} else if err != nil {
			return docs, err
		}
		docs = append(docs, raw)
	}
}

// decodeObject reads a JSON object as kubectl's unstructured decoding
// does: whole numbers as int64, others as float64.
func decodeObject(data []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		return nil, err
	}
	numbers(obj)
	return obj, nil
}

// numbers replaces json.Numbers with int64 or float64.
func numbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

// checkTypeMeta is the check kubectl's validation makes of every document
// before anything else: apiVersion and kind set, as strings.
func checkTypeMeta(obj map[string]any) error {
	var errs []string
	for _, k := range []string{"apiVersion", "kind"} {
		switch v, ok := obj[k]; {
		case !ok || v == nil || v == "":
			errs = append(errs, k+" not set")
		case !isString(v):
			errs = append(errs, k+" isn't string type")
		}
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errors.New(errs[0])
	}
	return errors.New("[" + strings.Join(errs, ", ") + "]")
}

func isString(v any) bool { _, ok := v.(string); return ok }

// flattenList is a List's items (kind "List" or any kind ending in
// "List" with items), else the object itself.
func flattenList(obj map[string]any, source string) []manifest {
	kind, _ := obj["kind"].(string)
	items, ok := obj["items"].([]any)
	if !ok || !strings.HasSuffix(kind, "List") {
		return []manifest{{Source: source, Object: obj}}
	}
	var out []manifest
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			for _, item := range flattenList(m, source) {
				item.InList = true
				out = append(out, item)
			}
		}
	}
	return out
}
