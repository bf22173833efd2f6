package apply

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"

	"kubeplay/core/object"
)

// managed is an object's metadata.managedFields as the field manager works on
// them: each manager's set of fields, and the time of its entry.
type managed struct {
	fields fieldpath.ManagedFields
	times  map[string]string // by manager identifier; RFC 3339, "" for none
}

func newManaged() managed {
	return managed{fields: fieldpath.ManagedFields{}, times: map[string]string{}}
}

// managerID is a manager's identifier, the JSON of its entry without fields and
// time (and, for an applier, apiVersion): the key a manager's fields are kept
// under, as kube builds it. Entries with the same identifier are one manager.
type managerID struct {
	Manager     string `json:"manager,omitempty"`
	Operation   string `json:"operation,omitempty"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

// The operations of managedFields entries.
const (
	opApply  = "Apply"
	opUpdate = "Update"
)

func (id managerID) String() string {
	if id.Operation == opApply {
		id.APIVersion = ""
	}
	b, _ := json.Marshal(id)
	return string(b)
}

func parseManagerID(s string) managerID {
	var id managerID
	_ = json.Unmarshal([]byte(s), &id)
	return id
}

// decodeManaged reads metadata.managedFields (entries as the typed decoding
// wrote them) as kube's DecodeManagedFields does: an entry with another
// operation, no apiVersion or a fieldsType other than FieldsV1 makes them all
// invalid.
func decodeManaged(meta map[string]any) (managed, error) {
	m := newManaged()
	entries, _ := meta["managedFields"].([]any)
	for i, e := range entries {
		entry, _ := e.(map[string]any)
		str := func(k string) string { s, _ := entry[k].(string); return s }
		id := managerID{Manager: str("manager"), Operation: str("operation"), APIVersion: str("apiVersion"), Subresource: str("subresource")}
		switch {
		case id.Operation != opApply && id.Operation != opUpdate:
			return managed{}, errors.New("operation must be `Apply` or `Update`")
		case id.APIVersion == "":
			return managed{}, errors.New("apiVersion must not be empty")
		case str("fieldsType") == "":
			return managed{}, fmt.Errorf("missing fieldsType in managed fields entry %d", i)
		case str("fieldsType") != "FieldsV1":
			return managed{}, fmt.Errorf("invalid fieldsType %q in managed fields entry %d", str("fieldsType"), i)
		}
		set, err := readFields(entry["fieldsV1"])
		if err != nil {
			return managed{}, fmt.Errorf("error decoding versioned set: %v", err)
		}
		key := id.String()
		m.fields[key] = fieldpath.NewVersionedSet(set, fieldpath.APIVersion(id.APIVersion), id.Operation == opApply)
		m.times[key] = str("time")
	}
	return m, nil
}

// encode writes m into meta as kube's encodeManagedFields does: one entry per
// manager, ordered by operation (Apply first), time, manager, apiVersion and
// subresource; none at all when no manager is left.
func (m managed) encode(meta map[string]any) error {
	if len(m.fields) == 0 {
		delete(meta, "managedFields")
		return nil
	}
	type entry struct {
		id      managerID
		seconds int64
		obj     map[string]any
	}
	entries := make([]entry, 0, len(m.fields))
	for key, vs := range m.fields {
		id := parseManagerID(key)
		id.APIVersion = string(vs.APIVersion())
		if vs.Applied() {
			id.Operation = opApply
		}
		fields, err := writeFields(vs.Set())
		if err != nil {
			return err
		}
		obj := map[string]any{"apiVersion": id.APIVersion, "fieldsType": "FieldsV1", "fieldsV1": fields}
		for k, v := range map[string]string{"manager": id.Manager, "operation": id.Operation, "subresource": id.Subresource, "time": m.times[key]} {
			if v != "" {
				obj[k] = v
			}
		}
		e := entry{id: id, obj: obj}
		if t, err := time.Parse(time.RFC3339, m.times[key]); err == nil {
			e.seconds = t.Unix()
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool {
		p, q := entries[i], entries[j]
		switch {
		case p.id.Operation != q.id.Operation:
			return p.id.Operation < q.id.Operation
		case p.seconds != q.seconds:
			return p.seconds < q.seconds
		case p.id.Manager != q.id.Manager:
			return p.id.Manager < q.id.Manager
		case p.id.APIVersion != q.id.APIVersion:
			return p.id.APIVersion < q.id.APIVersion
		}
		return p.id.Subresource < q.id.Subresource
	})
	list := make([]any, len(entries))
	for i, e := range entries {
		list[i] = e.obj
	}
	meta["managedFields"] = list
	return nil
}

// readFields is the set of fields a FieldsV1 value (in core/object's form)
// holds, as structured-merge-diff reads it from its JSON.
func readFields(v any) (*fieldpath.Set, error) {
	set := &fieldpath.Set{}
	doc := []byte("{}")
	switch v := v.(type) {
	case nil:
	case map[string]any:
		var err error
		if doc, err = object.Encode(v); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("fieldsV1 is no object: %v", v)
	}
	return set, set.FromJSON(bytes.NewReader(doc))
}

// writeFields is a set as FieldsV1 (in core/object's form), as
// structured-merge-diff's Set.ToJSON writes it.
func writeFields(set *fieldpath.Set) (map[string]any, error) {
	out := map[string]any{}
	var err error
	set.Members.Iterate(func(pe fieldpath.PathElement) {
		if key, e := fieldpath.SerializePathElement(pe); e != nil {
			err = e
		} else {
			out[key] = map[string]any{}
		}
	})
	set.Children.Iterate(func(pe fieldpath.PathElement) {
		key, e := fieldpath.SerializePathElement(pe)
		if e != nil {
			err = e
			return
		}
		child, _ := set.Children.Get(pe)
		fields, e := writeFields(child)
		if e != nil {
			err = e
			return
		}
		if _, member := out[key]; member && len(fields) > 0 {
			fields["."] = map[string]any{}
		}
		out[key] = fields
	})
	return out, err
}

// isReset says whether a client's managedFields ask to clear them: an empty
// list, or a list of one empty entry.
func isReset(meta map[string]any) bool {
	v, ok := meta["managedFields"]
	if !ok || v == nil {
		return false
	}
	entries, _ := v.([]any)
	switch len(entries) {
	case 0:
		return true
	case 1:
		e, _ := entries[0].(map[string]any)
		return len(e) == 0
	}
	return false
}

// maxUpdateManagers is how many Update entries kube keeps; past it the oldest
// are merged into one "ancient-changes" entry per apiVersion.
const maxUpdateManagers = 10

// capUpdateManagers merges the oldest Update entries until at most
// maxUpdateManagers are left, as kube's capManagersManager does.
func (m managed) capUpdateManagers() {
	var updaters []string
	for key, vs := range m.fields {
		if !vs.Applied() {
			updaters = append(updaters, key)
		}
	}
	if len(updaters) <= maxUpdateManagers {
		return
	}
	seconds := func(key string) int64 {
		t, err := time.Parse(time.RFC3339, m.times[key])
		if err != nil {
			return 0
		}
		return t.Unix()
	}
	sort.Slice(updaters, func(i, j int) bool {
		if si, sj := seconds(updaters[i]), seconds(updaters[j]); si != sj {
			return si < sj
		}
		return updaters[i] < updaters[j]
	})
	firstOfVersion := map[fieldpath.APIVersion]string{}
	for i, n := 0, len(updaters); i < len(updaters) && n > maxUpdateManagers; i++ {
		key := updaters[i]
		vs := m.fields[key]
		bucket := managerID{Manager: "ancient-changes", Operation: opUpdate, APIVersion: string(vs.APIVersion())}.String()
		first, seen := firstOfVersion[vs.APIVersion()]
		if !seen {
			firstOfVersion[vs.APIVersion()] = key
			continue
		}
		if _, ok := m.fields[bucket]; !ok {
			m.fields[bucket] = m.fields[first]
			delete(m.fields, first)
		}
		m.fields[bucket] = fieldpath.NewVersionedSet(vs.Set().Union(m.fields[bucket].Set()), vs.APIVersion(), vs.Applied())
		m.times[bucket] = m.times[key]
		delete(m.fields, key)
		n--
	}
}
