package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// The generator makes random but well-formed sessions, and a share of bad
// input, from a seed: session i of seed s is always the same requests. It
// keeps a rough model of what exists (which names it created and deleted, the
// last body it sent for each) to make most requests meaningful; the servers'
// answers, not the model, are what is compared.

// Representations a step may ask for.
const (
	reprJSON     = "json"
	reprYAML     = "yaml"
	reprProtobuf = "protobuf"
	reprCBOR     = "cbor"
	reprTable    = "table"
	reprMeta     = "meta"
)

var accept = map[string]string{
	reprJSON:     "application/json",
	reprYAML:     "application/yaml",
	reprProtobuf: "application/vnd.kubernetes.protobuf",
	reprCBOR:     "application/cbor",
	reprTable:    "application/json;as=Table;v=v1;g=meta.k8s.io",
	reprMeta:     "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
}

var contentType = map[string]string{
	reprJSON:     "application/json",
	reprYAML:     "application/yaml",
	reprProtobuf: "application/vnd.kubernetes.protobuf",
	reprCBOR:     "application/cbor",
}

// sessionNamespace names session i of a run (replays of the minimizer use
// another letter), unique to the run so that runs can share servers; fixed
// width, so that no name is a prefix of another.
func sessionNamespace(letter string, i int) string {
	return fmt.Sprintf("fid%s-%s%05d", runID, letter, i)
}

// runID tells this run's namespaces from earlier runs' on the same servers.
var runID = strconv.FormatInt(1_000_000+time.Now().Unix()%(36*36*36*36-1_000_000), 36)

type generator struct {
	r      *rand.Rand
	s      *Session
	kinds  []*kindSpec
	live   map[*kindSpec][]string          // short names believed to exist
	bodies map[string]map[string]any       // "Kind/short" → the last full object sent
	gens   map[*kindSpec]int               // objects made from generateName
	rvSeen map[string]bool                 // objects written more than once (a stale rv exists)
	extra  map[*kindSpec]map[string]string // per kind: label app of each live object
}

// generate makes session index of seed with n steps (at least 2).
func generate(seed uint64, index, n int, ns string) Session {
	g := &generator{
		r:      rand.New(rand.NewPCG(seed, uint64(index))),
		s:      &Session{Seed: seed, Index: index, NS: ns},
		live:   map[*kindSpec][]string{},
		bodies: map[string]map[string]any{},
		gens:   map[*kindSpec]int{},
		rvSeen: map[string]bool{},
		extra:  map[*kindSpec]map[string]string{},
	}
	g.add(Step{Verb: "create", Kind: "Namespace", Repr: reprJSON, Method: "POST", Path: "/api/v1/namespaces",
		Header: [][2]string{{"Content-Type", "application/json"}},
		Body:   `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"{{ns}}","labels":{"fid-session":"{{ns}}"}}}`})
	g.kinds = g.pickKinds(2 + g.r.IntN(3))
	for len(g.s.Steps) < n {
		g.step()
	}
	g.s.Steps = g.s.Steps[:n]
	return *g.s
}

func (g *generator) add(s Step) { g.s.Steps = append(g.s.Steps, s) }

func (g *generator) pickKinds(n int) []*kindSpec {
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	var out []*kindSpec
	for len(out) < n {
		x := g.r.IntN(total)
		for _, k := range kinds {
			if x -= k.weight; x < 0 {
				if !slices.Contains(out, k) {
					out = append(out, k)
				}
				break
			}
		}
	}
	return out
}

func (g *generator) pct(p int) bool { return g.r.IntN(100) < p }

func pick[T any](r *rand.Rand, list ...T) T { return list[r.IntN(len(list))] }

// step adds one or two steps.
func (g *generator) step() {
	k := g.kinds[g.r.IntN(len(g.kinds))]
	switch x := g.r.IntN(100); {
	case x < 18:
		g.create(k)
	case x < 32:
		g.get(k)
	case x < 45:
		g.list(k)
	case x < 51:
		g.watch(k)
	case x < 60:
		g.update(k)
	case x < 72:
		g.patch(k)
	case x < 78:
		g.delete(k)
	case x < 81:
		g.deleteCollection(k)
	default:
		g.bad(k)
	}
}

// name picks the short name of an object: mostly one that exists.
func (g *generator) name(k *kindSpec) string {
	live := g.live[k]
	if len(live) > 0 && g.pct(85) {
		return live[g.r.IntN(len(live))]
	}
	return pick(g.r, "a", "b", "c", "d", "e")
}

// objectPath is the path of object short of kind k.
func objectPath(k *kindSpec, short string) string {
	return k.collection() + "/" + k.objectName(short)
}

// ref is the placeholder key of object short of kind k.
func ref(k *kindSpec, short string) string { return k.Kind + "/" + k.objectName(short) }

// newObject is a valid object of kind k named short (or from generateName).
func (g *generator) newObject(k *kindSpec, short, generateName string) map[string]any {
	app := pick(g.r, "x", "y")
	labels := map[string]any{"fid-session": "{{ns}}", "app": app}
	if g.pct(50) {
		labels["tier"] = pick(g.r, "a", "b")
	}
	meta := map[string]any{"labels": labels}
	if generateName != "" {
		meta["generateName"] = generateName
	} else {
		meta["name"] = k.objectName(short)
	}
	if k.Namespaced && g.pct(30) {
		meta["namespace"] = "{{ns}}"
	}
	if g.pct(20) {
		meta["annotations"] = map[string]any{"example.com/note": "hello"}
	}
	obj := map[string]any{"apiVersion": k.apiVersion(), "kind": k.Kind, "metadata": meta}
	k.spec(g.r, obj)
	return obj
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// encodeBody writes obj as repr's request body: JSON or YAML text, or JSON to
// be encoded as protobuf or CBOR when sent.
func encodeBody(s *Step, obj any, repr string) {
	j := mustJSON(obj)
	switch repr {
	case reprYAML:
		y, err := yaml.JSONToYAML([]byte(j))
		if err != nil {
			panic(err)
		}
		s.Body = string(y)
	case reprProtobuf, reprCBOR:
		s.Body, s.BodyAs = j, repr
	default:
		repr, s.Body = reprJSON, j
	}
	s.Header = append(s.Header, [2]string{"Content-Type", contentType[repr]})
}

// responseRepr picks the representation of a write's answer.
func (g *generator) responseRepr() string {
	return pick(g.r, reprJSON, reprJSON, reprJSON, reprJSON, reprYAML, reprProtobuf, reprCBOR)
}

// bodyRepr picks the encoding of a request body.
func (g *generator) bodyRepr() string {
	return pick(g.r, reprJSON, reprJSON, reprJSON, reprJSON, reprJSON, reprYAML, reprProtobuf, reprCBOR)
}

func (g *generator) accept(s *Step, repr string) {
	s.Repr = repr
	if repr == reprJSON && g.pct(30) {
		return // no Accept: JSON
	}
	s.Header = append(s.Header, [2]string{"Accept", accept[repr]})
}

// writeOptions adds a write's usual options: dry run, field validation, field
// manager, pretty.
func (g *generator) writeOptions(s *Step) (dryRun bool) {
	if g.pct(12) {
		s.Query = append(s.Query, [2]string{"dryRun", "All"})
		dryRun = true
	}
	if g.pct(20) {
		s.Query = append(s.Query, [2]string{"fieldValidation", pick(g.r, "Strict", "Warn", "Ignore")})
	}
	if g.pct(15) {
		s.Query = append(s.Query, [2]string{"fieldManager", pick(g.r, "fid-one", "fid-two")})
	}
	if g.pct(5) {
		s.Query = append(s.Query, [2]string{"pretty", "true"})
	}
	return dryRun
}

// withUnknownFields adds what fieldValidation judges: an unknown field, or a
// duplicate one (a JSON body only).
func (g *generator) withUnknownFields(obj map[string]any) {
	switch g.r.IntN(3) {
	case 0:
		obj["bogus"] = "x"
	case 1:
		meta := obj["metadata"].(map[string]any)
		meta["bogusMeta"] = 1
	default:
		if spec, ok := obj["spec"].(map[string]any); ok {
			spec["bogusSpec"] = true
		} else {
			obj["alsoBogus"] = []any{1}
		}
	}
}

func (g *generator) create(k *kindSpec) {
	s := Step{Verb: "create", Kind: k.Kind, Method: "POST", Path: k.collection()}
	short, genName := g.newName(k)
	obj := g.newObject(k, short, genName)
	if genName != "" {
		s.GenPrefix = genName
	}
	dry := g.writeOptions(&s)
	if g.pct(15) {
		g.withUnknownFields(obj)
	}
	repr := g.bodyRepr()
	if g.pct(8) && repr == reprJSON {
		// a duplicate field, which only a JSON or YAML body can carry
		j := mustJSON(obj)
		s.Body = `{"kind":"` + k.Kind + `",` + j[1:]
		s.Header = append(s.Header, [2]string{"Content-Type", "application/json"})
	} else {
		encodeBody(&s, obj, repr)
	}
	g.accept(&s, g.responseRepr())
	g.add(s)
	if !dry && genName == "" && !slices.Contains(g.live[k], short) {
		g.live[k] = append(g.live[k], short)
		g.bodies[ref(k, short)] = obj
	}
	if genName != "" && !dry {
		g.gens[k]++
	}
}

// newName picks a name for a create: a new one, an existing one (409), or a
// generateName.
func (g *generator) newName(k *kindSpec) (short, generateName string) {
	if g.pct(12) {
		return "", k.objectName("gen-")
	}
	return pick(g.r, "a", "b", "c", "d", "e"), ""
}

// getRepr picks the representation of a read's answer.
func (g *generator) getRepr() string {
	return pick(g.r, reprJSON, reprJSON, reprJSON, reprJSON, reprYAML, reprProtobuf, reprCBOR, reprTable, reprTable, reprMeta)
}

func (g *generator) tableOptions(s *Step) {
	if s.Repr == reprTable && g.pct(40) {
		s.Query = append(s.Query, [2]string{"includeObject", pick(g.r, "None", "Metadata", "Object")})
	}
	if s.Repr == reprTable && g.pct(25) {
		// kubectl's Accept: Table, falling back to JSON
		s.Header[len(s.Header)-1][1] += ",application/json"
	}
}

func (g *generator) get(k *kindSpec) {
	short := g.name(k)
	if g.gens[k] > 0 && g.pct(15) {
		short = fmt.Sprintf("{{gen:%s:%d}}", g.genPrefix(k), g.r.IntN(g.gens[k]))
	}
	s := Step{Verb: "get", Kind: k.Kind, Method: "GET", Path: k.collection() + "/" + g.fullName(k, short)}
	switch g.r.IntN(6) {
	case 0:
		s.Query = append(s.Query, [2]string{"resourceVersion", "0"})
	case 1:
		s.Query = append(s.Query, [2]string{"resourceVersion", "{{rv:" + k.Kind + "/" + g.fullName(k, short) + "}}"})
	}
	g.accept(&s, g.getRepr())
	g.tableOptions(&s)
	g.add(s)
}

// genPrefix is the generateName of kind k's generated objects.
func (g *generator) genPrefix(k *kindSpec) string { return k.objectName("gen-") }

// fullName is an object's name as sent: a generated one's placeholder as it
// is, another's with its session prefix.
func (g *generator) fullName(k *kindSpec, short string) string {
	if strings.HasPrefix(short, "{{gen:") {
		return short
	}
	return k.objectName(short)
}

// selector picks a label selector; cluster-scoped and all-namespaces lists
// always select the session's objects.
func (g *generator) selector(session bool) string {
	var parts []string
	if session {
		parts = append(parts, "fid-session={{ns}}")
	}
	if g.pct(50) {
		parts = append(parts, pick(g.r, "app=x", "app in (x,y)", "app!=y", "tier", "!tier", "tier notin (a)", "app=x,tier=b"))
	}
	return strings.Join(parts, ",")
}

func (g *generator) fieldSelector(k *kindSpec) string {
	options := [][2]string{{"metadata.name", k.objectName(g.name(k))}}
	if k.Namespaced {
		options = append(options, [2]string{"metadata.namespace", "{{ns}}"})
	}
	options = append(options, k.fields...)
	f := options[g.r.IntN(len(options))]
	op := "="
	if g.pct(25) {
		op = "!="
	}
	return f[0] + op + f[1]
}

func (g *generator) list(k *kindSpec) {
	s := Step{Verb: "list", Kind: k.Kind, Method: "GET", Path: k.collection()}
	all := k.Namespaced && g.pct(15)
	if all {
		s.Path = k.allNamespaces()
	}
	if sel := g.selector(!k.Namespaced || all); sel != "" {
		s.Query = append(s.Query, [2]string{"labelSelector", sel})
	}
	if g.pct(20) {
		s.Query = append(s.Query, [2]string{"fieldSelector", g.fieldSelector(k)})
	}
	limited := g.pct(30)
	if limited {
		s.Query = append(s.Query, [2]string{"limit", fmt.Sprint(1 + g.r.IntN(3))})
	}
	switch g.r.IntN(8) {
	case 0:
		s.Query = append(s.Query, [2]string{"resourceVersion", "0"})
	case 1:
		s.Query = append(s.Query, [2]string{"resourceVersion", "{{listrv:" + k.Kind + "}}"}, [2]string{"resourceVersionMatch", "Exact"})
	case 2:
		s.Query = append(s.Query, [2]string{"resourceVersion", "{{write:-1}}"}, [2]string{"resourceVersionMatch", "NotOlderThan"})
	case 3:
		s.Query = append(s.Query, [2]string{"resourceVersion", "{{write:-2}}"})
		if g.pct(50) {
			s.Query = append(s.Query, [2]string{"resourceVersionMatch", "Exact"})
		}
	}
	g.accept(&s, pick(g.r, reprJSON, reprJSON, reprJSON, reprJSON, reprYAML, reprProtobuf, reprCBOR, reprTable, reprTable, reprMeta))
	if s.Repr == reprMeta {
		s.Header[len(s.Header)-1][1] = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
	}
	g.tableOptions(&s)
	g.add(s)
	if limited && g.pct(70) {
		next := s
		next.Query = nil
		for _, q := range s.Query {
			if q[0] != "resourceVersion" && q[0] != "resourceVersionMatch" {
				next.Query = append(next.Query, q)
			}
		}
		next.Query = append(next.Query, [2]string{"continue", "{{continue:" + k.Kind + "}}"})
		g.add(next)
	}
}

func (g *generator) watch(k *kindSpec) {
	s := Step{Verb: "watch", Kind: k.Kind, Method: "GET", Path: k.collection(), Watch: true}
	s.Query = append(s.Query, [2]string{"watch", pick(g.r, "1", "true")})
	if sel := g.selector(!k.Namespaced); sel != "" {
		s.Query = append(s.Query, [2]string{"labelSelector", sel})
	}
	if g.pct(15) {
		s.Query = append(s.Query, [2]string{"fieldSelector", g.fieldSelector(k)})
	}
	switch g.r.IntN(6) {
	case 0, 1:
		s.Query = append(s.Query, [2]string{"resourceVersion", fmt.Sprintf("{{write:-%d}}", 1+g.r.IntN(4))})
	case 2:
		s.Query = append(s.Query, [2]string{"resourceVersion", "0"})
	case 3:
		s.Query = append(s.Query, [2]string{"sendInitialEvents", "true"}, [2]string{"resourceVersionMatch", "NotOlderThan"},
			[2]string{"allowWatchBookmarks", "true"})
		if g.pct(50) {
			s.Query = append(s.Query, [2]string{"resourceVersion", "{{write:-1}}"})
		}
	}
	if g.pct(30) {
		s.Query = append(s.Query, [2]string{"allowWatchBookmarks", "true"})
	}
	if g.pct(5) {
		s.Query = append(s.Query, [2]string{"timeoutSeconds", "1"})
	}
	repr := pick(g.r, reprJSON, reprJSON, reprJSON, reprJSON, reprProtobuf, reprCBOR, reprTable)
	g.accept(&s, repr)
	g.add(s)
}

// current is the object the model last sent for short, or a new one.
func (g *generator) current(k *kindSpec, short string) map[string]any {
	if b := g.bodies[ref(k, short)]; b != nil {
		return deepCopy(b)
	}
	return g.newObject(k, short, "")
}

func deepCopy(v map[string]any) map[string]any {
	var out map[string]any
	if err := json.Unmarshal([]byte(mustJSON(v)), &out); err != nil {
		panic(err)
	}
	return out
}

// merge applies a merge patch to obj (the model's own bookkeeping).
func merge(obj, patch map[string]any) {
	for k, v := range patch {
		if pm, ok := v.(map[string]any); ok {
			if om, ok := obj[k].(map[string]any); ok {
				merge(om, pm)
				continue
			}
		}
		obj[k] = v
	}
}

func (g *generator) update(k *kindSpec) {
	short := g.name(k)
	obj := g.current(k, short)
	if g.pct(70) {
		merge(obj, k.change(g.r))
	}
	if g.pct(30) {
		merge(obj, map[string]any{"metadata": map[string]any{"labels": map[string]any{"tier": pick(g.r, "a", "b")}}})
	}
	meta := obj["metadata"].(map[string]any)
	key := ref(k, short)
	switch x := g.r.IntN(10); {
	case x < 6:
		meta["resourceVersion"] = "{{rv:" + key + "}}"
	case x < 8 && g.rvSeen[key]:
		meta["resourceVersion"] = "{{oldrv:" + key + "}}"
	}
	s := Step{Verb: "update", Kind: k.Kind, Method: "PUT", Path: objectPath(k, short)}
	dry := g.writeOptions(&s)
	if g.pct(8) {
		g.withUnknownFields(obj)
	}
	encodeBody(&s, obj, g.bodyRepr())
	g.accept(&s, g.responseRepr())
	g.add(s)
	if !dry {
		delete(meta, "resourceVersion")
		g.bodies[key] = obj
		g.rvSeen[key] = true
	}
}

func (g *generator) patch(k *kindSpec) {
	short := g.name(k)
	key := ref(k, short)
	s := Step{Verb: "patch", Kind: k.Kind, Method: "PATCH", Path: objectPath(k, short)}
	dry := g.writeOptions(&s)
	var body any
	switch x := g.r.IntN(10); {
	case x < 3: // JSON merge patch
		body = g.mergePatch(k, key)
		s.Header = append(s.Header, [2]string{"Content-Type", "application/merge-patch+json"})
	case x < 5: // strategic merge patch
		p := g.mergePatch(k, key).(map[string]any)
		if _, ok := p["spec"]; !ok && (k.Kind == "Deployment" || k.Kind == "ReplicaSet" || k.Kind == "StatefulSet") && g.pct(50) {
			p["spec"] = map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx:1.28"}}}}}
		}
		body = p
		s.Header = append(s.Header, [2]string{"Content-Type", "application/strategic-merge-patch+json"})
	case x < 7: // JSON patch
		body = g.jsonPatch(k, key)
		s.Header = append(s.Header, [2]string{"Content-Type", "application/json-patch+json"})
	default: // server-side apply
		obj := g.current(k, short)
		if g.pct(50) {
			merge(obj, k.change(g.r))
		}
		meta := obj["metadata"].(map[string]any)
		delete(meta, "resourceVersion")
		if !hasQuery(s.Query, "fieldManager") && g.pct(90) {
			s.Query = append(s.Query, [2]string{"fieldManager", pick(g.r, "fid-applier", "fid-other")})
		}
		if g.pct(30) {
			s.Query = append(s.Query, [2]string{"force", "true"})
		}
		if g.pct(15) {
			s.Header = append(s.Header, [2]string{"Content-Type", "application/apply-patch+cbor"})
			s.Body, s.BodyAs = mustJSON(obj), reprCBOR
		} else if g.pct(50) {
			y, _ := yaml.JSONToYAML([]byte(mustJSON(obj)))
			s.Header = append(s.Header, [2]string{"Content-Type", "application/apply-patch+yaml"})
			s.Body = string(y)
		} else {
			s.Header = append(s.Header, [2]string{"Content-Type", "application/apply-patch+yaml"})
			s.Body = mustJSON(obj)
		}
		if !dry {
			g.bodies[key] = obj
			if !slices.Contains(g.live[k], short) {
				g.live[k] = append(g.live[k], short)
			}
		}
	}
	if body != nil {
		s.Body = mustJSON(body)
	}
	g.accept(&s, g.responseRepr())
	g.add(s)
	if !dry {
		g.rvSeen[key] = true
	}
}

func hasQuery(q [][2]string, key string) bool {
	return slices.ContainsFunc(q, func(kv [2]string) bool { return kv[0] == key })
}

// mergePatch is a merge patch changing labels, content or both, sometimes
// with a resourceVersion (fresh or stale) that makes it conditional.
func (g *generator) mergePatch(k *kindSpec, key string) any {
	p := map[string]any{}
	if g.pct(60) {
		p = k.change(g.r)
	}
	if len(p) == 0 || g.pct(40) {
		labels := map[string]any{"tier": pick(g.r, "a", "b")}
		if g.pct(20) {
			labels["app"] = nil // removes it
		}
		merge(p, map[string]any{"metadata": map[string]any{"labels": labels}})
	}
	if g.pct(15) {
		rv := "{{rv:" + key + "}}"
		if g.rvSeen[key] && g.pct(50) {
			rv = "{{oldrv:" + key + "}}"
		}
		merge(p, map[string]any{"metadata": map[string]any{"resourceVersion": rv}})
	}
	return p
}

func (g *generator) jsonPatch(k *kindSpec, key string) any {
	ops := []any{}
	switch g.r.IntN(6) {
	case 0:
		ops = append(ops, map[string]any{"op": "replace", "path": "/metadata/labels/app", "value": pick(g.r, "x", "y")})
	case 1:
		ops = append(ops, map[string]any{"op": "add", "path": "/metadata/labels/added", "value": "yes"})
	case 2:
		ops = append(ops, map[string]any{"op": "test", "path": "/metadata/labels/app", "value": pick(g.r, "x", "y")},
			map[string]any{"op": "add", "path": "/metadata/annotations", "value": map[string]any{"tested": "true"}})
	case 3:
		ops = append(ops, map[string]any{"op": "remove", "path": "/metadata/labels/tier"})
	case 4:
		ops = append(ops, map[string]any{"op": "test", "path": "/metadata/resourceVersion", "value": "{{rv:" + key + "}}"},
			map[string]any{"op": "replace", "path": "/metadata/labels/app", "value": "y"})
	default: // a merge patch's first top-level key, replaced whole
		change := k.change(g.r)
		keys := slices.Sorted(maps.Keys(change))
		ops = append(ops, map[string]any{"op": "add", "path": "/" + keys[0], "value": change[keys[0]]})
	}
	return ops
}

func (g *generator) deleteOptions(k *kindSpec, key string) (map[string]any, bool) {
	opts := map[string]any{}
	dry := false
	if g.pct(30) {
		opts["gracePeriodSeconds"] = pick(g.r, 0, 5, 30)
	}
	if g.pct(30) {
		opts["propagationPolicy"] = pick(g.r, "Background", "Orphan", "Foreground")
	}
	if g.pct(15) {
		opts["dryRun"] = []any{"All"}
		dry = true
	}
	if g.pct(25) {
		pre := map[string]any{}
		switch g.r.IntN(4) {
		case 0:
			pre["uid"] = "{{uid:" + key + "}}"
		case 1:
			pre["uid"] = "11111111-2222-3333-4444-555555555555"
		case 2:
			pre["resourceVersion"] = "{{rv:" + key + "}}"
		default:
			pre["resourceVersion"] = "{{oldrv:" + key + "}}"
		}
		opts["preconditions"] = pre
	}
	if len(opts) > 0 && g.pct(70) {
		opts["kind"], opts["apiVersion"] = "DeleteOptions", "v1"
	}
	return opts, dry
}

func (g *generator) delete(k *kindSpec) {
	short := g.name(k)
	key := ref(k, short)
	s := Step{Verb: "delete", Kind: k.Kind, Method: "DELETE", Path: objectPath(k, short)}
	opts, dry := g.deleteOptions(k, key)
	if len(opts) > 0 {
		if g.pct(75) {
			s.Body = mustJSON(opts)
			s.Header = append(s.Header, [2]string{"Content-Type", "application/json"})
		} else {
			dry = false
			if v, ok := opts["gracePeriodSeconds"]; ok {
				s.Query = append(s.Query, [2]string{"gracePeriodSeconds", fmt.Sprint(v)})
			}
			if v, ok := opts["propagationPolicy"]; ok {
				s.Query = append(s.Query, [2]string{"propagationPolicy", fmt.Sprint(v)})
			}
			if _, ok := opts["dryRun"]; ok {
				s.Query = append(s.Query, [2]string{"dryRun", "All"})
				dry = true
			}
		}
	}
	g.accept(&s, pick(g.r, reprJSON, reprJSON, reprJSON, reprYAML, reprProtobuf, reprCBOR))
	g.add(s)
	if !dry {
		g.forget(k, short)
	}
}

func (g *generator) forget(k *kindSpec, short string) {
	live := g.live[k][:0]
	for _, n := range g.live[k] {
		if n != short {
			live = append(live, n)
		}
	}
	g.live[k] = live
	delete(g.bodies, ref(k, short))
}

func (g *generator) deleteCollection(k *kindSpec) {
	s := Step{Verb: "deletecollection", Kind: k.Kind, Method: "DELETE", Path: k.collection()}
	sel := g.selector(!k.Namespaced)
	if sel == "" && g.pct(60) {
		sel = pick(g.r, "app=x", "tier=a")
	}
	if sel != "" {
		s.Query = append(s.Query, [2]string{"labelSelector", sel})
	}
	dry := false
	if g.pct(20) {
		s.Query = append(s.Query, [2]string{"dryRun", "All"})
		dry = true
	}
	if g.pct(10) {
		s.Query = append(s.Query, [2]string{"fieldSelector", g.fieldSelector(k)})
	}
	g.accept(&s, pick(g.r, reprJSON, reprJSON, reprJSON, reprYAML, reprProtobuf, reprCBOR))
	g.add(s)
	if !dry {
		for _, n := range append([]string(nil), g.live[k]...) {
			g.forget(k, n)
		}
	}
}
