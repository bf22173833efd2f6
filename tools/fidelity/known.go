package main

import (
	"fmt"
	"regexp"
	"slices"
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
			"kube-apiserver's watch cache, whose revision is that of the last event it saw for the resource or of etcd's last " +
			"progress notification (which any client's consistent list may ask for); kubeplay's caches follow the same rules " +
			"(K8S-RV-2), but which notifications came depends on each server's other clients (kube-apiserver's own lease and " +
			"status writers, kubeplay's controllers), so the revisions may differ within what the rule allows.",
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
		ID: "reference-without-garbage-collector",
		Reason: "The reference runs no garbage collector (kube-controller-manager): an object deleted with Foreground or Orphan " +
			"propagation keeps its foregroundDeletion or orphan finalizer there for ever (so a create of its name is kube's 409 " +
			"\"object is being deleted\", and an update still finds it, stamped for deletion, or refuses what it would change " +
			"there where kubeplay's is not found); kubeplay's collector removes it, as a cluster's does.",
		matches: func(s Step, d Diff, a [2]*object) bool {
			kube, kp := render(a[sideKube], 0), render(a[sideKubeplay], 0)
			return strings.Contains(kube, `"finalizers":["foregroundDeletion"]`) || strings.Contains(kube, `"finalizers":["orphan"]`) ||
				strings.Contains(kube, `"message":"object is being deleted: `) ||
				s.Kind != "Pod" && s.Verb == "update" && strings.Contains(kube, `"deletionTimestamp"`) && !strings.Contains(kp, `"deletionTimestamp"`) ||
				s.Verb == "update" && a[sideKube].get("status") == 422 && a[sideKubeplay].get("status") == 404
		},
	},
	{
		ID: "reference-without-namespace-controller",
		Reason: "The reference runs no namespace controller: a deleted namespace stays Terminating there for ever; " +
			"kubeplay's controller empties and removes it, as a cluster's does.",
		matches: func(s Step, d Diff, a [2]*object) bool {
			return s.Kind == "Namespace" && strings.Contains(render(a[sideKube], 0), `"phase":"Terminating"`)
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
