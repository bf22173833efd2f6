package table

import (
	"cmp"
	"strings"
	"time"

	"kubeplay/core/object"
)

// API Priority and Fairness's kinds, as kube's printers print them: FlowSchemas
// (listed in matching order) with their level, precedence, distinguisher and
// whether the level is missing; levels with their type, shares and queuing.

// FlowSchema prints FlowSchemas as kube-apiserver does.
var FlowSchema = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "PriorityLevel", Type: "string", Description: descPriorityLevelReference},
		{Name: "MatchingPrecedence", Type: "string", Description: descMatchingPrecedence},
		{Name: "DistinguisherMethod", Type: "string", Description: descDistinguisherMethod},
		ageColumn,
		{Name: "MissingPL", Type: "string", Description: "references a broken or non-existent PriorityLevelConfiguration"},
	},
	cells: func(fs object.Object, now time.Time) []any {
		method := strAt(fs, "spec", "distinguisherMethod", "type")
		if object.Path(fs, "spec", "distinguisherMethod") == nil {
			method = "<none>"
		}
		missing := "?"
		conds, _ := object.Path(fs, "status", "conditions").([]any)
		for _, c := range conds {
			if m, _ := c.(map[string]any); m["type"] == "Dangling" {
				missing, _ = m["status"].(string)
				break
			}
		}
		return []any{name(fs), strAt(fs, "spec", "priorityLevelConfiguration", "name"), intAt(fs, "spec", "matchingPrecedence"), method, created(fs, now), missing}
	},
	// kube's FlowSchemaSequence: by precedence, then name.
	order: func(a, b object.Object) int {
		if c := cmp.Compare(intAt(a, "spec", "matchingPrecedence"), intAt(b, "spec", "matchingPrecedence")); c != 0 {
			return c
		}
		return strings.Compare(name(a), name(b))
	},
}

// PriorityLevelConfiguration prints PriorityLevelConfigurations as kube-apiserver does.
var PriorityLevelConfiguration = &Printer{
	columns: []Column{
		nameColumn,
		{Name: "Type", Type: "string", Description: descPriorityLevelType},
		{Name: "NominalConcurrencyShares", Type: "string", Description: descNominalConcurrencyShares},
		{Name: "Queues", Type: "string", Description: descQueues},
		{Name: "HandSize", Type: "string", Description: descHandSize},
		{Name: "QueueLengthLimit", Type: "string", Description: descQueueLengthLimit},
		ageColumn,
	},
	cells: func(pl object.Object, now time.Time) []any {
		shares, queues, hand, qll := any("<none>"), any("<none>"), any("<none>"), any("<none>")
		if object.Path(pl, "spec", "limited") != nil {
			shares = intAt(pl, "spec", "limited", "nominalConcurrencyShares")
			if object.Path(pl, "spec", "limited", "limitResponse", "queuing") != nil {
				q := []string{"spec", "limited", "limitResponse", "queuing"}
				queues, hand, qll = intAt(pl, append(q, "queues")...), intAt(pl, append(q, "handSize")...), intAt(pl, append(q, "queueLengthLimit")...)
			}
		}
		return []any{name(pl), strAt(pl, "spec", "type"), shares, queues, hand, qll, created(pl, now)}
	},
}
