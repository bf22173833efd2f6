package main

import (
	"encoding/base64"
	"fmt"
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
		ID: "kube-cbor-blueprint-order",
		Reason: "kube-apiserver encodes a CBOR watch's initial-events-list-blueprint (an empty list) with its keys in no fixed order; " +
			"kubeplay's has the same content, its keys in kube's order for maps.",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			return strings.HasSuffix(d.Path, "kubernetes.io/initial-events-list-blueprint") && sameCBORBlueprint(d.values)
		},
	},
	{
		ID: "kube-watch-cache-revision",
		Reason: "A list or watch at resourceVersion=0 (any revision) is served by kube-apiserver's watch cache, whose revision is " +
			"that of the last event it saw for the resource (or of etcd's last progress notification), often older than " +
			"the store's (a list's, or the bookmark ending a watch's initial events); kubeplay answers at the store's current " +
			"revision, which the rule allows as well (K8S-RV-2).",
		matches: func(s Step, d Diff, a [2]*object) bool {
			if queryValue(s, "resourceVersion") != "0" {
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
			"propagation keeps its foregroundDeletion or orphan finalizer there for ever; kubeplay's collector removes it, as a cluster's does.",
		matches: func(s Step, d Diff, a [2]*object) bool {
			return strings.Contains(render(a[sideKube], 0), `"finalizers":["foregroundDeletion"]`) ||
				strings.Contains(render(a[sideKube], 0), `"finalizers":["orphan"]`)
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
		ID: "deferred-pod-graceful-deletion",
		Reason: "Deferred to the deletion work (issue 19): kube answers the deletion of a Pod with the object stamped for graceful " +
			"deletion (deletionTimestamp, deletionGracePeriodSeconds 0 for a Pod no node runs); kubeplay's answer has no stamps yet.",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			return s.Kind == "Pod" && s.Verb == "delete" &&
				(strings.HasSuffix(d.Path, "metadata.deletionTimestamp") || strings.HasSuffix(d.Path, "metadata.deletionGracePeriodSeconds"))
		},
	},
	{
		ID:     "deferred-namespace-deletion-grace",
		Reason: "Deferred to the deletion work (issue 19): a deleted Namespace has no deletionGracePeriodSeconds in kube; kubeplay's has 0.",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			return s.Kind == "Namespace" && s.Verb == "delete" && strings.HasSuffix(d.Path, "metadata.deletionGracePeriodSeconds")
		},
	},
	{
		ID: "deferred-deletecollection-answer",
		Reason: "Deferred to the deletion work (issue 19): kube answers a deletecollection with the objects as it listed them " +
			"(their last resourceVersions, the list's); kubeplay with the revisions of their deletion.",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			return s.Verb == "deletecollection" && (d.Path == "body.metadata.resourceVersion" ||
				strings.HasPrefix(d.Path, "body.items[") && strings.HasSuffix(d.Path, "].metadata.resourceVersion"))
		},
	},
	{
		ID: "deferred-delete-options-validation",
		Reason: "Deferred to the deletion work (issue 19): kube checks a deletion's options (propagationPolicy, gracePeriodSeconds, " +
			"preconditions) before it looks the object up, with its 400 and 422 words; kubeplay does not check them all yet.",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			return (s.Verb == "delete" || s.Verb == "deletecollection") && (s.Bad == badOptions || s.Bad == badQuery)
		},
	},
	{
		ID: "deferred-delete-preconditions",
		Reason: "Deferred to the deletion work (issue 19): a deletion's failed uid precondition is kube's Conflict naming the kind " +
			"(\"the UID in the precondition (…) does not match the UID in record (…)\"); kubeplay words it otherwise.",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			return s.Verb == "delete" && strings.Contains(s.Body, `"preconditions"`) && (d.Path == "body.message" || d.Path == "body.details.kind")
		},
	},
	{
		ID: "deferred-annotation-validation",
		Reason: "Deferred to the deletion and metadata work (issue 19, which validates annotations on its branch): kube refuses " +
			"annotation keys that are no qualified names with a 422; kubeplay here stores them.",
		matches: func(s Step, d Diff, a [2]*object) bool {
			return s.Bad == badLabels && strings.Contains(render(a[sideKube], 0), `"field":"metadata.annotations"`)
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
	{
		ID: "reference-without-serviceaccount-admission",
		Reason: "The reference runs without ServiceAccount admission (no controller makes the default accounts it would require), " +
			"so a Pod that names no account keeps none there; kubeplay's admission names the default one, as a cluster's does.",
		matches: func(s Step, d Diff, _ [2]*object) bool {
			return (strings.HasSuffix(d.Path, "spec.serviceAccountName") || strings.HasSuffix(d.Path, "spec.serviceAccount")) &&
				d.Kubeplay == `"default"` && d.Kube == absent
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
func sameCBORBlueprint(values [2]any) bool {
	var docs [2]string
	for i, v := range values {
		text, _ := v.(string)
		raw, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return false
		}
		d := decodeCBOR(raw)
		if len(d.docs) != 1 {
			return false
		}
		docs[i] = render(d.docs[0], 0)
	}
	return docs[0] == docs[1]
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
