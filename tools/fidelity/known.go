package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A knownDifference is a difference kubeplay keeps on purpose, or one the
// bare reference shows that a real cluster would not; each says why, and
// matches by rule (never by session or step) the diffs it explains.
type knownDifference struct {
	ID     string
	Reason string
	// matches says whether it explains diff d between answers a (kubeplay's,
	// kube's) to step s.
	matches func(s Step, d Diff, a [2]*object) bool
}

// podUpdateDiff is the go-cmp diff kube's message for a forbidden Pod update
// goes on with (before the next error of the message, if any).
var podUpdateDiff = regexp.MustCompile(`(?s)\n[\x{a0} ]{2}core\.PodSpec\{.*?\n[\x{a0} ]{2}\}\n`)

// knownDifferences is the one list of intentional differences.
var knownDifferences = []knownDifference{
	{
		ID: "kube-bad-rv-500",
		Reason: "kube-apiserver answers a get, list or watch with a malformed resourceVersion with a 500 " +
			"(its storage layer parses it, not its request validation); kubeplay answers 400 BadRequest, as SPEC K8S-RV-4 asks.",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			return queryValue(s, "resourceVersion") == "abc" && !strings.HasPrefix(d.Path, "header.Warning")
		},
	},
	{
		ID: "bookmark-timing",
		Reason: "Bookmarks after a watch's initial events come on each server's own clock (kube's cacher ticks about once a second " +
			"and also bookmarks a watch about to time out); when one comes is not part of the contract (K8S-WATCH-4).",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			kp, kube := d.values[sideKubeplay], d.values[sideKube]
			return s.Watch && strings.HasPrefix(d.Path, "events[") && !strings.Contains(d.Path, "].") &&
				(plainBookmark(kube) && kp == absentValue{} || plainBookmark(kp) && kube == absentValue{})
		},
	},
	{
		ID: "kube-watch-cache-revision",
		Reason: "A list or watch at resourceVersion=0 (any revision), or a list not older than a revision, is served by " +
			"kube-apiserver's watch cache, whose revision is that of the last event it saw for the resource or of the last " +
			"etcd progress notification it asked for (when a consistent read of the resource, a watch from the newest revision " +
			"or a read newer than the cache found it behind); kubeplay's caches follow the same rules (K8S-RV-2), but which " +
			"reads came depends also on each server's other clients (kube-apiserver's own controllers, kubeplay's, the " +
			"harness's settling of both), so the revisions may differ within what the rule allows.",
		matches: func(s Step, d Diff, a [2]*object) bool {
			rv, match := queryValue(s, "resourceVersion"), queryValue(s, "resourceVersionMatch")
			if s.Verb == "list" && rv != "" && rv != "0" && match != "Exact" && (queryValue(s, "limit") == "" || match == "NotOlderThan") {
				// Not older than rv (a limit without a match is the legacy
				// exact one, which goes to etcd): the cache's revision, which
				// progress notifications (asked for by either server's other
				// clients) move.
				return d.Path == "body.metadata.resourceVersion"
			}
			if s.Verb == "list" && match == "Exact" && strings.Contains(rv, "{{listrv:") {
				// The exact revision of an earlier list's answer, which the cache chose.
				return d.Path == "body.metadata.resourceVersion"
			}
			if rv != "0" {
				return false
			}
			if s.Verb == "list" {
				return d.Path == "body.metadata.resourceVersion"
			}
			// A watch from 0: the bookmark ending its initial events carries the cache's revision.
			var i int
			_, err := fmt.Sscanf(d.Path, "events[%d].object.metadata.resourceVersion", &i)
			return s.Watch && err == nil && strings.HasSuffix(d.Path, "].object.metadata.resourceVersion") &&
				eventType(a[sideKube], i) == "BOOKMARK" && eventType(a[sideKubeplay], i) == "BOOKMARK"
		},
	},
	{
		ID: "kube-watch-cache-lag",
		Reason: "kube-apiserver serves the reads that accept any revision or one not older than a given one (a get with a " +
			"resourceVersion, a list at 0 or not older than a revision, a watch's initial events) from its watch cache, which " +
			"learns of each write from etcd's watch a moment after the write was answered: a read right after a write may " +
			"find kube's cache without it, and answer at the older revision (or end a watch's initial events before it and send " +
			"it next). kubeplay's caches hold every write they answered. Both answers keep K8S-RV-1 and K8S-RV-2; kube's is the " +
			"older one, and the same events come.",
		matches: func(s Step, d Diff, a [2]*object) bool {
			if s.Watch {
				return strings.HasPrefix(d.Path, "events[") && initialEventsLag(a)
			}
			if !servedByWatchCache(s) || !strings.HasPrefix(d.Path, "body.") {
				return false
			}
			kube, okKube := rvStep(pathValue(a[sideKube], "body", "metadata", "resourceVersion"))
			kp, okKp := rvStep(pathValue(a[sideKubeplay], "body", "metadata", "resourceVersion"))
			return okKube && okKp && kube < kp && a[sideKube].get("status") == a[sideKubeplay].get("status")
		},
	},
	{
		ID: "kube-negative-watch-timeout",
		Reason: "A watch with a negative timeoutSeconds ends as it starts in kube-apiserver: its context is past its deadline, and " +
			"whether the stream shows an ERROR event (\"context deadline exceeded\"), some initial events or nothing is a race " +
			"inside kube-apiserver; kubeplay ends it after its initial events.",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			return s.Watch && strings.HasPrefix(queryValue(s, "timeoutSeconds"), "-") && strings.HasPrefix(d.Path, "events[")
		},
	},
	{
		ID: "generated-names-order",
		Reason: "Each server draws its own random suffixes for generateName, and a list (its items or Table rows, a deletecollection's " +
			"answer, a watch's initial events) is in key " +
			"order: objects with generated names may come in another order. The same objects (by their labels of creation) come.",
		matches: func(s Step, d Diff, a [2]*object) bool {
			return ((s.Verb == "list" || s.Verb == "deletecollection") && strings.HasPrefix(d.Path, "body.items[") && sameInAnyOrder(a, "body", "items") ||
				s.Verb == "list" && strings.HasPrefix(d.Path, "body.rows[") && sameInAnyOrder(a, "body", "rows") ||
				s.Watch && strings.HasPrefix(d.Path, "events[") && sameInAnyOrder(a, "events")) &&
				strings.Contains(render(a[sideKube], 0), "<gen#")
		},
	},
	{
		ID: "kube-apply-conflicts-order",
		Reason: "kube-apiserver lists a server-side apply's conflicts with several managers in no fixed order (structured-merge-diff " +
			"collects them from a map); kubeplay lists them by manager. The same conflicts are listed.",
		matches: func(s Step, d Diff, a [2]*object) bool {
			return a[sideKube].get("status") == 409 && (strings.HasPrefix(d.Path, "body.details.causes[") || d.Path == "body.message") &&
				sameInAnyOrder(a, "body", "details", "causes") && strings.Contains(render(a[sideKube], 0), "FieldManagerConflict")
		},
	},
	{
		ID: "kube-pod-update-diff",
		Reason: "kube-apiserver's message for a forbidden Pod update goes on with a go-cmp diff of its internal PodSpec " +
			"(whose spacing go-cmp varies on purpose); kubeplay's message stops before it.",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			kp, _ := d.values[sideKubeplay].(string)
			kube, _ := d.values[sideKube].(string)
			return s.Kind == "Pod" && (d.Path == "body.message" || strings.HasSuffix(d.Path, "].message")) &&
				strings.Contains(kp, "pod updates may not change fields") && podUpdateDiff.ReplaceAllString(kube, "") == kp
		},
	},
	{
		ID: "kube-pv-source-diff",
		Reason: "kube-apiserver's message for a changed PersistentVolume source goes on with a go-cmp diff of its internal " +
			"PersistentVolumeSource (whose spacing go-cmp varies on purpose); kubeplay's message stops before it.",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			kp, _ := d.values[sideKubeplay].(string)
			kube, _ := d.values[sideKube].(string)
			return s.Kind == "PersistentVolume" && (d.Path == "body.message" || strings.HasSuffix(d.Path, "].message")) &&
				strings.Contains(kp, "spec.persistentvolumesource is immutable after creation") &&
				strings.HasPrefix(kube, strings.TrimSuffix(kp, "]"))
		},
	},
	{
		ID: "table-age-timing",
		Reason: "A Table's AGE cell is the object's age on the answering server's clock when it answers: a session's two " +
			"answers may straddle a second differently on each server.",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			kp, _ := d.values[sideKubeplay].(string)
			kube, _ := d.values[sideKube].(string)
			return strings.Contains(d.Path, "rows[") && strings.Contains(d.Path, ".cells[") && agePattern.MatchString(kp) && agePattern.MatchString(kube)
		},
	},
	{
		ID: "kube-delete-options-decode-500",
		Reason: "kube-apiserver answers a deletion whose DeleteOptions body it cannot decode (no JSON, another kind) with a 500 " +
			"and no reason (\"couldn't get version/kind; json parse error: …\"); kubeplay answers 400 BadRequest, as bad input " +
			"is answered everywhere else (kube's own 400 for a malformed body of any other request).",
		matches: func(s Step, d Diff, a [2]*object) bool {
			return (s.Verb == "delete" || s.Verb == "deletecollection") && s.Bad == badOptions &&
				a[sideKube].get("status") == 500 && a[sideKubeplay].get("status") == 400
		},
	},
	{
		ID: "kubeplay-continue-token-mac",
		Reason: "kubeplay's continue tokens carry a MAC binding them to their list (K8S-CHUNK-3): a forged token is its 400; " +
			"kube reads any well-formed token (and answers 410 for one too old).",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			return strings.HasPrefix(queryValue(s, "continue"), "eyJ2Ij")
		},
	},
}

// explain returns the ids of the known differences explaining every one of
// diffs, or nil when one is left unexplained (or there are none). The order of
// a YAML answer's keys follows its other differences.
func explain(s Step, diffs []Diff, answers [2]*object) []string {
	var ids []string
	for _, d := range diffs {
		if strings.HasSuffix(d.Path, yamlKeysNote) && len(diffs) > 1 {
			continue
		}
		found := ""
		for _, k := range knownDifferences {
			if k.matches(s, d, answers) {
				found = k.ID
				break
			}
		}
		if found == "" {
			return nil
		}
		if !slices.Contains(ids, found) {
			ids = append(ids, found)
		}
	}
	return ids
}

// queryValue is the value of a step's query parameter key (unresolved), or "".
func queryValue(s Step, key string) string {
	for _, q := range s.Query {
		if q[0] == key {
			return q[1]
		}
	}
	return ""
}

// plainBookmark says whether a watch event is a bookmark that ends no
// initial events.
func plainBookmark(event any) bool {
	e, ok := event.(*object)
	if !ok || e.get("type") != "BOOKMARK" {
		return false
	}
	return !strings.Contains(render(e.get("object"), 0), "initial-events-end")
}

// sameCBORBlueprint says whether two blueprints (base64 of CBOR) hold the
// same content.
// agePattern is an age as kube's tables print it (duration.HumanDuration).
var agePattern = regexp.MustCompile(`^(\d+[smhdy])+$`)

// sameInAnyOrder says whether both answers hold the same values, in any
// order, in the list at path.
func sameInAnyOrder(a [2]*object, path ...string) bool {
	var sorted [2][]string
	for i, answer := range a {
		var v any = answer
		for _, k := range path {
			o, _ := v.(*object)
			if o == nil {
				return false
			}
			v = o.get(k)
		}
		list, _ := v.([]any)
		for _, it := range list {
			sorted[i] = append(sorted[i], render(it, 0))
		}
		slices.Sort(sorted[i])
	}
	return slices.Equal(sorted[0], sorted[1])
}

// eventType is the type of a watch answer's event i, or "".
func eventType(answer *object, i int) string {
	events, _ := answer.get("events").([]any)
	if i < 0 || i >= len(events) {
		return ""
	}
	e, _ := events[i].(*object)
	if e == nil {
		return ""
	}
	t, _ := e.get("type").(string)
	return t
}

// servedByWatchCache says whether kube-apiserver 1.32 serves a get or list
// from its watch cache at a revision of the cache's choosing: a get with a
// resourceVersion, a list at 0 or not older than one (a legacy limited list
// at a revision, an exact one and a consistent one are etcd's or wait for the
// newest revision).
func servedByWatchCache(s Step) bool {
	rv, match, limit := queryValue(s, "resourceVersion"), queryValue(s, "resourceVersionMatch"), queryValue(s, "limit")
	switch s.Verb {
	case "get":
		return rv != ""
	case "list":
		return rv != "" && match != "Exact" && queryValue(s, "continue") == "" && (rv == "0" || match != "" || limit == "")
	}
	return false
}

// rvStep is the step a normalized resourceVersion names (rv@3: 3; rv@-,
// before any: -1).
func rvStep(v any) (int, bool) {
	s, _ := v.(string)
	if s == "rv@-" {
		return -1, true
	}
	if !strings.HasPrefix(s, "rv@") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(s, "rv@"))
	return n, err == nil
}

// pathValue is the value at path in an answer, or nil.
func pathValue(v any, path ...string) any {
	for _, k := range path {
		o, ok := v.(*object)
		if !ok {
			return nil
		}
		v = o.get(k)
	}
	return v
}

// initialEventsLag says whether two watches sent the same events but for
// where their initial events ended, kube's bookmark ending them at an older
// revision than kubeplay's (kube's watch cache had not yet seen the events it
// then sent after it).
func initialEventsLag(a [2]*object) bool {
	var end [2]int
	var rest [2][]string
	for i, answer := range a {
		events, _ := answer.get("events").([]any)
		end[i] = -2
		for _, e := range events {
			if o, ok := e.(*object); ok && o.get("type") == "BOOKMARK" && !plainBookmark(e) {
				if n, ok := rvStep(pathValue(o, "object", "metadata", "resourceVersion")); ok && end[i] == -2 {
					end[i] = n
					continue
				}
			}
			rest[i] = append(rest[i], render(e, 0))
		}
		slices.Sort(rest[i])
	}
	return end[sideKube] != -2 && end[sideKubeplay] != -2 && end[sideKube] < end[sideKubeplay] && slices.Equal(rest[0], rest[1])
}
