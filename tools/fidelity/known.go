package main

import (
	"slices"
	"strings"
)

// A knownDifference is a difference kubeplay keeps on purpose, or one the
// bare reference shows that a real cluster would not; each says why, and
// matches by rule (never by session or step) the diffs it explains.
type knownDifference struct {
	ID     string
	Reason string
	// matches says whether it explains diff d of an answer to step s.
	matches func(s Step, d Diff) bool
}

// knownDifferences is the one list of intentional differences.
var knownDifferences = []knownDifference{
	{
		ID: "kube-watch-bad-rv-500",
		Reason: "kube-apiserver answers a watch with a malformed resourceVersion with 500 InternalError " +
			"(its watch cache does not check it); kubeplay answers 400 BadRequest as its lists and gets do (K8S-RV-4).",
		matches: func(s Step, d Diff) bool {
			return s.Watch && queryValue(s, "resourceVersion") == "abc" && !strings.HasPrefix(d.Path, "header.Warning")
		},
	},
	{
		ID: "reference-without-serviceaccount-admission",
		Reason: "The reference runs without ServiceAccount admission (no controller makes the default accounts it would require), " +
			"so a Pod that names no account keeps none there; kubeplay's admission names the default one, as a cluster's does.",
		matches: func(s Step, d Diff) bool {
			return (strings.HasSuffix(d.Path, "spec.serviceAccountName") || strings.HasSuffix(d.Path, "spec.serviceAccount")) &&
				d.Kubeplay == `"default"` && d.Kube == absent
		},
	},
}

// explain returns the ids of the known differences explaining every one of
// diffs, or nil when one is left unexplained (or there are none).
func explain(s Step, diffs []Diff) []string {
	var ids []string
	for _, d := range diffs {
		found := ""
		for _, k := range knownDifferences {
			if k.matches(s, d) {
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
