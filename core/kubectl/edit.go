package kubectl

// This file owns kubectl edit: the object fetched and written as kubectl
// writes its temporary file (its header comment, then the object as YAML
// without managedFields), handed to Env.Edit, and what comes back
// validated (apiVersion and kind, then the OpenAPI read kubectl's
// validation makes) and sent as the two-way patch from the object to the
// edit (strategic merge for kinds whose PATCH takes one, JSON merge for
// others), fieldManager kubectl-edit; an invalid edit reopens the file with
// the reasons in its header, as kubectl does, until it saves or is given
// back unchanged.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"
)

// editHeader is the comment kubectl's edit file starts with.
const editHeader = `# Please edit the object below. Lines beginning with a '#' will be ignored,
# and an empty file will abort the edit. If an error occurs while saving this file will be
# reopened with the relevant failures.
#
`

// editReason is one failure the reopened file's header names.
type editReason struct {
	head  string
	other []string
}

func init() {
	register("edit", func(fs *pflag.FlagSet) runFunc {
		var files filenameFlags
		files.add(fs, "Filename, directory, or URL to files to use to edit the resource")
		output := addPrintFlags(fs, false)
		validate := addValidate(fs)
		fieldManager := fs.String("field-manager", "kubectl-edit", "Name of the manager used to track field ownership.")
		return func(c *Cmd, args []string) error {
			if len(args) == 0 && len(files.Filenames) == 0 {
				return errors.New("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")
			}
			targets, errs, err := c.selectTargets(selection{files: files}, args)
			if err != nil {
				return err
			}
			if err := errs.reduce(); err != nil {
				return err
			}
			if len(targets) != 1 {
				return errors.New("this kubectl edits one object at a time")
			}
			v, err := validate()
			if err != nil {
				return err
			}
			return c.edit(targets[0], v, *fieldManager, output)
		}
	})
}

func (c *Cmd) edit(t *target, v validation, fieldManager string, output *printFlags) error {
	if c.Env.Edit == nil {
		return errors.New("there is no editor here")
	}
	obj, err := c.latest(t, "application/json")
	if err != nil {
		return err
	}
	if meta, ok := obj["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	body, err := yaml.JSONToYAML(data)
	if err != nil {
		return err
	}
	original := append([]byte(editHeader), body...)
	file := fmt.Sprintf("/tmp/kubectl-edit-%d.yaml", 1000000000+rand.Intn(3000000000))
	resource := t.Resource.GroupResource()
	content := original
	var previous []byte
	containsError := false
	for {
		edited, err := c.Env.Edit(c.Ctx, file, content)
		if err != nil {
			return err
		}
		if containsError && bytes.Equal(stripComments(previous), stripComments(edited)) {
			fmt.Fprintf(c.Stderr, "A copy of your changes has been stored to %q\n", file)
			return errors.New("Edit cancelled, no valid changes were saved.")
		}
		previous = edited
		var reasons []editReason
		fail := func(r editReason) {
			reasons = append(reasons, r)
			containsError = true
			fmt.Fprintf(c.Stderr, "error: %s %q is invalid\n", resource, t.Name)
		}
		edit, verr := editedObject(edited)
		if verr == nil && v != validateIgnore {
			apiVersion, _ := edit["apiVersion"].(string)
			kind, _ := edit["kind"].(string)
			verr = c.validateKind(apiVersion, kind)
		}
		switch {
		case verr != nil:
			fail(editReason{head: fmt.Sprintf("%s %q was not valid", resource, t.Name),
				other: []string{fmt.Sprintf("<nil>: Invalid value: %q: %v", "The edited file failed validation", verr)}})
		case bytes.Equal(stripComments(original), stripComments(edited)):
			fmt.Fprintln(c.Stderr, "Edit cancelled, no changes made.")
			return nil
		default:
			done, err := c.sendEdit(t, obj, edit, v, fieldManager, output)
			var se *StatusError
			switch {
			case errors.As(err, &se) && se.Status.Reason == "Invalid":
				r := editReason{head: fmt.Sprintf("%s %q was not valid", resource, t.Name)}
				if se.Status.Details != nil {
					for _, cause := range se.Status.Details.Causes {
						r.other = append(r.other, cause.Field+": "+cause.Message)
					}
				}
				fail(r)
			case err != nil:
				return err
			case done:
				return nil
			}
		}
		var b bytes.Buffer
		b.WriteString(editHeader)
		for _, r := range reasons {
			if len(r.other) > 0 {
				fmt.Fprintf(&b, "# %s:\n", commentLines(r.head))
			} else {
				fmt.Fprintf(&b, "# %s\n", commentLines(r.head))
			}
			for _, o := range r.other {
				fmt.Fprintf(&b, "# * %s\n", commentLines(o))
			}
			b.WriteString("#\n")
		}
		b.Write(manualStrip(edited))
		content = b.Bytes()
	}
}

// editedObject reads the edited file as kubectl's validation does: its
// JSON, an object with apiVersion and kind.
func editedObject(edited []byte) (map[string]any, error) {
	data := stripComments(edited)
	if !bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, err
		}
		data = j
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); !ok || m == nil {
		return nil, errors.New("invalid object to validate")
	}
	obj, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	return obj, checkTypeMeta(obj)
}

// sendEdit patches the object with the edit; done is false when there was
// nothing to send.
func (c *Cmd) sendEdit(t *target, original, edited map[string]any, v validation, fieldManager string, output *printFlags) (bool, error) {
	before, _ := json.Marshal(original)
	after, _ := json.Marshal(edited)
	var b, a map[string]any
	json.Unmarshal(before, &b)
	json.Unmarshal(after, &a)
	for _, k := range []string{"apiVersion", "kind"} {
		if b[k] != a[k] {
			return false, errors.New("At least one of apiVersion, kind and name was changed")
		}
	}
	if str(b, "metadata", "name") != str(a, "metadata", "name") {
		return false, errors.New("At least one of apiVersion, kind and name was changed")
	}
	if string(before) == string(after) {
		return true, c.printResult(output, t.Resource, original, t.Name, "skipped", dryRunNone)
	}
	schema, strategic, err := c.patchSchemaFor(t.Resource)
	if err != nil {
		return false, err
	}
	var diff map[string]any
	contentType := "application/strategic-merge-patch+json"
	if strategic {
		if diff, err = diffObjects(b, a, schema, diffOptions{}); err != nil {
			return false, err
		}
	} else {
		contentType = "application/merge-patch+json"
		diff = mergeDiff(b, a)
	}
	patch, _ := json.Marshal(diff)
	data, err := c.Do(&Request{Method: "PATCH", Path: t.Resource.Path(t.Namespace, t.Name), Query: dryRunNone.query(fieldManager, v),
		Header: [][2]string{{"Accept", "application/json"}, {"Content-Type", contentType}}, Body: patch})
	if err != nil {
		return false, err
	}
	result, err := decodeObject(data)
	if err != nil {
		return false, err
	}
	return true, c.printResult(output, t.Resource, result, t.Name, "edited", dryRunNone)
}

// stripComments is the file as JSON (apimachinery's yaml.ToJSON), or
// without its comment lines when it is not YAML (kubectl's StripComments).
func stripComments(file []byte) []byte {
	if bytes.HasPrefix(bytes.TrimLeft(file, " \t\r\n"), []byte("{")) {
		return file
	}
	if j, err := yaml.YAMLToJSON(file); err == nil {
		return j
	}
	return manualStrip(file)
}

// manualStrip drops the comment lines ("#", not "#!").
func manualStrip(file []byte) []byte {
	var out []byte
	lines := bytes.Split(file, []byte("\n"))
	for i, line := range lines {
		trim := bytes.TrimSpace(line)
		if bytes.HasPrefix(trim, []byte("#")) && !bytes.HasPrefix(trim, []byte("#!")) {
			continue
		}
		out = append(out, line...)
		if i < len(lines)-1 {
			out = append(out, '\n')
		}
	}
	return out
}

// commentLines continues a multi-line text as comment lines.
func commentLines(s string) string { return strings.ReplaceAll(s, "\n", "\n# ") }
