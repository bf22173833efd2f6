package job

import (
	"strconv"
	"strings"

	"kubeplay/core/object"
)

// completionIndex is the annotation (and label) that gives an Indexed Job's
// Pod its index.
const completionIndex = "batch.kubernetes.io/job-completion-index"

// index is p's completion index, when it has a valid one.
func index(p *pod, completions int64) (int64, bool) {
	v, ok := p.Metadata.Annotations[completionIndex]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && n >= 0 && n < completions
}

// withIndex gives a new Pod of Job name its index, as kube's controller
// does: the annotation and the label, the hostname NAME-INDEX, and in every
// container the variable JOB_COMPLETION_INDEX read from the label.
func withIndex(p object.Object, name string, ix int64) {
	v := strconv.FormatInt(ix, 10)
	meta := p["metadata"].(map[string]any)
	for _, f := range []string{"annotations", "labels"} {
		m, _ := meta[f].(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		m[completionIndex] = v
		meta[f] = m
	}
	spec, _ := p["spec"].(map[string]any)
	if spec == nil {
		return
	}
	spec["hostname"] = name + "-" + v
	for _, list := range []string{"initContainers", "containers"} {
		containers, _ := spec[list].([]any)
		for _, c := range containers {
			c, _ := c.(map[string]any)
			if c == nil {
				continue
			}
			env, _ := c["env"].([]any)
			has := false
			for _, e := range env {
				if e, _ := e.(map[string]any); e != nil && e["name"] == "JOB_COMPLETION_INDEX" {
					has = true
				}
			}
			if !has {
				c["env"] = append(env, map[string]any{"name": "JOB_COMPLETION_INDEX", "valueFrom": map[string]any{
					"fieldRef": map[string]any{"fieldPath": "metadata.labels['" + completionIndex + "']"}}})
			}
		}
	}
}

// parseIndexes reads status.completedIndexes ("1,3-5,7"), keeping the
// indexes below completions.
func parseIndexes(s string, completions int64) []int64 {
	var out []int64
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := strconv.ParseInt(lo, 10, 64)
		if err != nil {
			continue
		}
		last := first
		if isRange {
			if last, err = strconv.ParseInt(hi, 10, 64); err != nil {
				continue
			}
		}
		for i := first; i <= last && i < completions; i++ {
			out = append(out, i)
		}
	}
	return out
}

// formatIndexes writes sorted indexes as status.completedIndexes does:
// runs of three or more as ranges ("1,3-5,7"), two as both.
func formatIndexes(ix []int64) string {
	var b strings.Builder
	for i := 0; i < len(ix); {
		j := i
		for j+1 < len(ix) && ix[j+1] == ix[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(ix[i], 10))
		switch {
		case j-i >= 2:
			b.WriteString("-" + strconv.FormatInt(ix[j], 10))
		case j-i == 1:
			b.WriteString("," + strconv.FormatInt(ix[j], 10))
		}
		i = j + 1
	}
	return b.String()
}
