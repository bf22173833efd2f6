package main

import (
	"fmt"
	"strings"
)

// Classes of bad input, the score's "bad" categories.
const (
	badBody    = "malformed-body" // bodies that are not an object of any kind
	badType    = "wrong-type"     // a field of the wrong type
	badQuery   = "bad-query"      // query parameters with values kube refuses
	badKind    = "wrong-kind"     // a well-formed object of another kind, version, namespace or name
	badName    = "bad-name"       // names kube's rules refuse: too long, wrong characters, none
	badMedia   = "bad-media"      // Content-Type or Accept nothing serves
	badPath    = "bad-path"       // resources, versions and methods that do not exist
	badLabels  = "bad-labels"     // labels kube's rules refuse
	badOptions = "bad-options"    // DeleteOptions kube refuses
)

// bad adds a request carrying one kind of bad input.
func (g *generator) bad(k *kindSpec) {
	switch g.r.IntN(9) {
	case 0:
		g.badBody(k)
	case 1:
		g.badType(k)
	case 2, 3:
		g.badQuery(k)
	case 4:
		g.badKind(k)
	case 5:
		g.badName(k)
	case 6:
		g.badMedia(k)
	case 7:
		g.badPath(k)
	default:
		if g.pct(50) {
			g.badLabels(k)
		} else {
			g.badOptions(k)
		}
	}
}

func (g *generator) badBody(k *kindSpec) {
	s := Step{Verb: pick(g.r, "create", "create", "update"), Kind: k.Kind, Bad: badBody}
	s.Method, s.Path = "POST", k.collection()
	if s.Verb == "update" {
		s.Method, s.Path = "PUT", objectPath(k, g.name(k))
	}
	valid := mustJSON(g.newObject(k, "bad", ""))
	type body struct{ ct, text string }
	b := pick(g.r,
		body{"application/json", valid[:len(valid)/2]},
		body{"application/json", "not json at all"},
		body{"application/json", "[]"},
		body{"application/json", "null"},
		body{"application/json", ""},
		body{"application/json", `{"apiVersion":"` + k.apiVersion() + `"}`},
		body{"application/json", `{"kind":"` + k.Kind + `"}`},
		body{"application/json", `"a string"`},
		body{"application/json", valid + " trailing"},
		body{"application/yaml", "kind: [unclosed\n  : : :"},
		body{"application/yaml", "- a\n- b\n"},
		body{"application/vnd.kubernetes.protobuf", "k8s\x00garbage that is not protobuf"},
		body{"application/vnd.kubernetes.protobuf", "not even the envelope"},
		body{"application/cbor", "\xd9\xd9\xf7\xa1\x64kind"},
		body{"application/cbor", "\xff\xff"},
	)
	s.Header = [][2]string{{"Content-Type", b.ct}}
	s.Body = b.text
	g.accept(&s, reprJSON)
	g.add(s)
}

func (g *generator) badType(k *kindSpec) {
	obj := g.newObject(k, pick(g.r, "a", "typed"), "")
	meta := obj["metadata"].(map[string]any)
	switch g.r.IntN(7) {
	case 0:
		meta["labels"] = "not-a-map"
	case 1:
		meta["name"] = 7
	case 2:
		meta["annotations"] = map[string]any{"n": 5}
	case 3:
		obj["kind"] = 5
	case 4:
		meta["finalizers"] = "example.com/f"
	case 5:
		if spec, ok := obj["spec"].(map[string]any); ok {
			for _, f := range []string{"replicas", "containers", "holderIdentity", "type", "unschedulable", "clusterIP", "matchingPrecedence", "limited"} {
				if _, ok := spec[f]; ok {
					spec[f] = map[string]any{"wrong": true}
					break
				}
			}
		} else {
			obj["data"] = 5
		}
	default:
		meta["creationTimestamp"] = "yesterday"
	}
	s := Step{Verb: "create", Kind: k.Kind, Bad: badType, Method: "POST", Path: k.collection()}
	if g.pct(30) {
		s.Verb, s.Method, s.Path = "update", "PUT", objectPath(k, "a")
	}
	if g.pct(25) {
		s.Query = append(s.Query, [2]string{"fieldValidation", pick(g.r, "Strict", "Ignore")})
	}
	encodeBody(&s, obj, pick(g.r, reprJSON, reprJSON, reprYAML, reprCBOR))
	g.accept(&s, reprJSON)
	g.add(s)
}

// badQuery sends a read or write with one query parameter kube refuses.
func (g *generator) badQuery(k *kindSpec) {
	type q struct {
		verb   string
		params [][2]string
	}
	c := pick(g.r,
		q{"list", [][2]string{{"limit", "abc"}}},
		q{"list", [][2]string{{"limit", "-1"}}},
		q{"list", [][2]string{{"timeoutSeconds", "abc"}}},
		q{"list", [][2]string{{"resourceVersion", "abc"}}},
		q{"get", [][2]string{{"resourceVersion", "abc"}}},
		q{"list", [][2]string{{"resourceVersionMatch", "Bogus"}, {"resourceVersion", "1"}}},
		q{"list", [][2]string{{"resourceVersionMatch", "Exact"}}},
		q{"list", [][2]string{{"resourceVersionMatch", "NotOlderThan"}}},
		q{"list", [][2]string{{"resourceVersionMatch", "Exact"}, {"resourceVersion", "0"}}},
		q{"list", [][2]string{{"labelSelector", "app in (x"}}},
		q{"list", [][2]string{{"labelSelector", "a=b=c"}}},
		q{"list", [][2]string{{"labelSelector", "Bad Key=x"}}},
		q{"list", [][2]string{{"fieldSelector", "spec.bogus=x"}}},
		q{"list", [][2]string{{"fieldSelector", "metadata.name"}}},
		q{"list", [][2]string{{"continue", "garbage-token"}}},
		q{"list", [][2]string{{"continue", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhXHUwMDAwIn0"}, {"resourceVersion", "5"}}},
		q{"list", [][2]string{{"limit", "1"}, {"resourceVersion", "{{write:-1}}"}, {"resourceVersionMatch", "Exact"}, {"continue", "{{continue:" + k.Kind + "}}"}}},
		q{"watch", [][2]string{{"watch", "1"}, {"resourceVersion", "abc"}}},
		q{"watch", [][2]string{{"watch", "1"}, {"sendInitialEvents", "true"}}},
		q{"watch", [][2]string{{"watch", "1"}, {"sendInitialEvents", "true"}, {"resourceVersionMatch", "Exact"}, {"resourceVersion", "1"}}},
		q{"watch", [][2]string{{"watch", "1"}, {"allowWatchBookmarks", "maybe"}, {"timeoutSeconds", "1"}}},
		q{"watch", [][2]string{{"watch", "maybe"}}},
		q{"watch", [][2]string{{"watch", "1"}, {"timeoutSeconds", "-5"}}},
		q{"list", [][2]string{{"resourceVersion", "99999999"}, {"resourceVersionMatch", "NotOlderThan"}}},
		q{"create", [][2]string{{"dryRun", "Bogus"}}},
		q{"create", [][2]string{{"fieldValidation", "Bogus"}}},
		q{"create", [][2]string{{"fieldManager", strings.Repeat("m", 129)}}},
		q{"delete", [][2]string{{"propagationPolicy", "Bogus"}}},
		q{"delete", [][2]string{{"gracePeriodSeconds", "abc"}}},
		q{"delete", [][2]string{{"dryRun", "Bogus"}}},
		q{"get", [][2]string{{"pretty", "maybe"}}},
		q{"list", [][2]string{{"includeObject", "Bogus"}}},
	)
	s := Step{Verb: c.verb, Kind: k.Kind, Bad: badQuery, Query: c.params}
	switch c.verb {
	case "get":
		s.Method, s.Path = "GET", objectPath(k, g.name(k))
	case "list":
		s.Method, s.Path = "GET", k.collection()
	case "watch":
		s.Method, s.Path, s.Watch = "GET", k.collection(), true
	case "create":
		s.Method, s.Path = "POST", k.collection()
		encodeBody(&s, g.newObject(k, "q", ""), reprJSON)
	case "delete":
		s.Method, s.Path = "DELETE", objectPath(k, g.name(k))
	}
	if !k.Namespaced && (c.verb == "list" || c.verb == "watch") {
		s.Query = append(s.Query, [2]string{"labelSelector", "fid-session={{ns}}"})
	}
	repr := reprJSON
	if hasQuery(c.params, "includeObject") {
		repr = reprTable
	}
	g.accept(&s, repr)
	g.add(s)
}

func (g *generator) badKind(k *kindSpec) {
	obj := g.newObject(k, pick(g.r, "a", "k"), "")
	meta := obj["metadata"].(map[string]any)
	s := Step{Verb: "create", Kind: k.Kind, Bad: badKind, Method: "POST", Path: k.collection()}
	switch g.r.IntN(7) {
	case 0:
		other := kinds[g.r.IntN(len(kinds))]
		if other == k {
			other = kinds[(indexOf(k)+1)%len(kinds)]
		}
		obj["kind"], obj["apiVersion"] = other.Kind, other.apiVersion()
	case 1:
		obj["apiVersion"] = pick(g.r, "v2", "apps/v1", "example.com/v1", "")
	case 2:
		delete(obj, "kind")
	case 3:
		if k.Namespaced {
			meta["namespace"] = "kube-system"
		} else {
			meta["namespace"] = "{{ns}}"
		}
	case 4:
		s.Verb, s.Method, s.Path = "update", "PUT", objectPath(k, "other")
	case 5:
		obj = map[string]any{"apiVersion": k.apiVersion(), "kind": k.Kind + "List", "items": []any{obj}}
	default:
		obj["kind"] = strings.ToLower(k.Kind)
	}
	encodeBody(&s, obj, pick(g.r, reprJSON, reprJSON, reprYAML, reprProtobuf, reprCBOR))
	g.accept(&s, reprJSON)
	g.add(s)
}

func indexOf(k *kindSpec) int {
	for i, x := range kinds {
		if x == k {
			return i
		}
	}
	return -1
}

func (g *generator) badName(k *kindSpec) {
	name := pick(g.r,
		strings.Repeat("n", 254),
		strings.Repeat("l", 64),
		"UpperCase",
		"under_score",
		"-leading-dash",
		"dots.in.name",
		"trailing-",
		"",
		"a..b",
		"ünïcode",
	)
	obj := g.newObject(k, "x", "")
	meta := obj["metadata"].(map[string]any)
	if name == "" {
		delete(meta, "name")
	} else {
		meta["name"] = name
	}
	s := Step{Verb: "create", Kind: k.Kind, Bad: badName, Method: "POST", Path: k.collection()}
	if g.pct(15) {
		delete(meta, "name")
		meta["generateName"] = strings.Repeat("g", 300)
		s.GenPrefix = strings.Repeat("g", 58)
	}
	if g.pct(20) && name != "" && !strings.ContainsAny(name, "/") {
		s.Verb, s.Method, s.Path = "update", "PUT", k.collection()+"/"+name
	}
	if g.pct(10) {
		s.Verb, s.Method, s.Path = "get", "GET", k.collection()+"/"+strings.Repeat("n", 300)
		obj = nil
	}
	if obj != nil {
		encodeBody(&s, obj, reprJSON)
	}
	g.accept(&s, reprJSON)
	g.add(s)
}

func (g *generator) badMedia(k *kindSpec) {
	s := Step{Kind: k.Kind, Bad: badMedia}
	obj := g.newObject(k, "m", "")
	switch g.r.IntN(6) {
	case 0:
		s.Verb, s.Method, s.Path = "create", "POST", k.collection()
		s.Body = mustJSON(obj)
		s.Header = [][2]string{{"Content-Type", pick(g.r, "text/plain", "application/xml", "application/x-www-form-urlencoded")}}
		g.accept(&s, reprJSON)
	case 1:
		s.Verb, s.Method, s.Path, s.Repr = "get", "GET", objectPath(k, g.name(k)), reprJSON
		s.Header = [][2]string{{"Accept", pick(g.r, "application/xml", "text/html", "application/json;as=Bogus;v=v1;g=meta.k8s.io", "application/json;as=Table;v=v9;g=meta.k8s.io", "application/json;as=Table")}}
	case 2:
		s.Verb, s.Method, s.Path = "patch", "PATCH", objectPath(k, g.name(k))
		s.Body = `{"metadata":{"labels":{"m":"v"}}}`
		s.Header = [][2]string{{"Content-Type", pick(g.r, "application/json", "text/plain", "application/apply-patch+json")}}
		g.accept(&s, reprJSON)
	case 3:
		s.Verb, s.Method, s.Path = "patch", "PATCH", objectPath(k, g.name(k))
		s.Body = mustJSON(obj)
		s.Header = [][2]string{{"Content-Type", "application/apply-patch+yaml"}} // no fieldManager
		g.accept(&s, reprJSON)
	case 4:
		s.Verb, s.Method, s.Path, s.Watch = "watch", "GET", k.collection(), true
		s.Query = [][2]string{{"watch", "1"}}
		if !k.Namespaced {
			s.Query = append(s.Query, [2]string{"labelSelector", "fid-session={{ns}}"})
		}
		s.Repr = reprYAML
		s.Header = [][2]string{{"Accept", "application/yaml"}}
	default:
		s.Verb, s.Method, s.Path = "list", "GET", k.collection()
		if !k.Namespaced {
			s.Query = [][2]string{{"labelSelector", "fid-session={{ns}}"}}
		}
		s.Repr = reprJSON
		s.Header = [][2]string{{"Accept", pick(g.r, "application/json;q=0", "*/*;q=0.5, application/xml", "application/json; charset=utf-8", "application/*")}}
	}
	g.add(s)
}

func (g *generator) badPath(k *kindSpec) {
	s := Step{Kind: k.Kind, Bad: badPath, Repr: reprJSON}
	switch g.r.IntN(7) {
	case 0:
		s.Verb, s.Method, s.Path = "list", "GET", "/api/v1/namespaces/{{ns}}/bogusthings"
	case 1:
		s.Verb, s.Method, s.Path = "list", "GET", "/apis/"+pick(g.r, "apps/v2", "bogus.example.com/v1", "apps")+"/"+k.Resource
	case 2:
		s.Verb, s.Method, s.Path = "update", "PUT", k.collection()
		encodeBody(&s, g.newObject(k, "p", ""), reprJSON)
	case 3:
		s.Verb, s.Method, s.Path = "create", "POST", objectPath(k, "a")
		encodeBody(&s, g.newObject(k, "a", ""), reprJSON)
	case 4:
		s.Verb, s.Method, s.Path = "get", "GET", objectPath(k, g.name(k))+"/bogus-subresource"
	case 5:
		if k.Namespaced {
			s.Verb, s.Method, s.Path = "list", "GET", "/api/v1/namespaces/does-not-exist-{{ns}}/"+k.Resource
			if k.Group != "" {
				s.Path = "/apis/" + k.Group + "/" + k.Version + "/namespaces/does-not-exist-{{ns}}/" + k.Resource
			}
		} else {
			s.Verb, s.Method, s.Path = "get", "GET", strings.Replace(k.allNamespaces(), "/"+k.Resource, "/namespaces/{{ns}}/"+k.Resource, 1)
		}
	default:
		s.Verb, s.Method, s.Path = "create", "POST", "/api/v1/namespaces/does-not-exist-{{ns}}/configmaps"
		s.Kind = "ConfigMap"
		encodeBody(&s, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}}, reprJSON)
	}
	g.add(s)
}

func (g *generator) badLabels(k *kindSpec) {
	obj := g.newObject(k, "l", "")
	meta := obj["metadata"].(map[string]any)
	labels := meta["labels"].(map[string]any)
	switch g.r.IntN(5) {
	case 0:
		labels["bad key"] = "x"
	case 1:
		labels["k"] = strings.Repeat("v", 64)
	case 2:
		labels[strings.Repeat("p", 254)+"/k"] = "x"
	case 3:
		labels["k"] = "-bad-"
	default:
		meta["annotations"] = map[string]any{"Bad Annotation": "x"}
	}
	s := Step{Verb: "create", Kind: k.Kind, Bad: badLabels, Method: "POST", Path: k.collection()}
	if g.pct(30) {
		s.Verb, s.Method = "patch", "PATCH"
		s.Path = objectPath(k, g.name(k))
		s.Body = mustJSON(map[string]any{"metadata": map[string]any{"labels": labels, "annotations": meta["annotations"]}})
		s.Header = [][2]string{{"Content-Type", "application/merge-patch+json"}}
	} else {
		encodeBody(&s, obj, reprJSON)
	}
	g.accept(&s, reprJSON)
	g.add(s)
}

func (g *generator) badOptions(k *kindSpec) {
	s := Step{Verb: "delete", Kind: k.Kind, Bad: badOptions, Method: "DELETE", Path: objectPath(k, g.name(k))}
	key := ref(k, g.name(k))
	body := pick(g.r,
		`{"propagationPolicy":"Bogus"}`,
		`{"gracePeriodSeconds":-5}`,
		`{"dryRun":["Bogus"]}`,
		`{"preconditions":{"uid":"not-a-uid"}}`,
		`{"kind":"DeleteOptions","apiVersion":"v1","orphanDependents":true,"propagationPolicy":"Orphan"}`,
		`{"kind":"ConfigMap","apiVersion":"v1"}`,
		`{"preconditions":{"resourceVersion":"abc"}}`,
		fmt.Sprintf(`{"preconditions":{"uid":"{{uid:%s}}","resourceVersion":"1"}}`, key),
		`not json`,
	)
	s.Body = body
	s.Header = [][2]string{{"Content-Type", "application/json"}}
	if g.pct(20) {
		s.Verb, s.Path = "deletecollection", k.collection()
		if !k.Namespaced {
			s.Query = [][2]string{{"labelSelector", "fid-session={{ns}}"}}
		}
	}
	g.accept(&s, reprJSON)
	g.add(s)
}
