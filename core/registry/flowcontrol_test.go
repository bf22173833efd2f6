package registry_test

import (
	"strings"
	"testing"

	"kubeplay/core/apierrors"
	"kubeplay/core/object"
)

// TestAPF_1_FlowControlStrategies: a PriorityLevelConfiguration gets v1's
// defaults (30 shares, 0 lendable, 64 queues of 50, hands of 8), a
// FlowSchema matchingPrecedence 1000, both an empty status; what kube's
// validation refuses is refused, each error naming its field.
func TestAPF_1_FlowControlStrategies(t *testing.T) {
	e := newEnv(t, 0)
	pl := e.mustCreate("flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations", "", object.Object{"metadata": map[string]any{"name": "batch"},
		"spec": map[string]any{"type": "Limited", "limited": map[string]any{"limitResponse": map[string]any{"type": "Queue", "queuing": map[string]any{}}}}})
	if got := mustJSON(object.Path(pl, "spec", "limited")); got != `{"lendablePercent":0,"limitResponse":{"queuing":{"handSize":8,"queueLengthLimit":50,"queues":64},"type":"Queue"},"nominalConcurrencyShares":30}` {
		t.Errorf("defaults %s", got)
	}
	fs := e.mustCreate("flowcontrol.apiserver.k8s.io/v1/flowschemas", "", object.Object{"metadata": map[string]any{"name": "batch"},
		"spec": map[string]any{"priorityLevelConfiguration": map[string]any{"name": "batch"}}})
	if object.Int(object.Path(fs, "spec", "matchingPrecedence")) != 1000 || mustJSON(fs["status"]) != `{}` {
		t.Errorf("FlowSchema %v", fs)
	}
	for _, tc := range []struct {
		resource string
		spec     map[string]any
		fields   []string
	}{
		{"prioritylevelconfigurations", map[string]any{"type": "Limited", "limited": map[string]any{"limitResponse": map[string]any{"type": "Queue",
			"queuing": map[string]any{"queues": 4, "handSize": 5, "queueLengthLimit": -1}}}},
			[]string{"spec.limited.limitResponse.queuing.queueLengthLimit", "spec.limited.limitResponse.queuing.handSize"}},
		{"prioritylevelconfigurations", map[string]any{"type": "Limited", "limited": map[string]any{"limitResponse": map[string]any{"type": "Reject",
			"queuing": map[string]any{"queues": 4}}}}, []string{"spec.limited.limitResponse.queuing"}},
		{"flowschemas", map[string]any{"matchingPrecedence": 20000, "priorityLevelConfiguration": map[string]any{"name": "batch"},
			"distinguisherMethod": map[string]any{"type": "ByColor"}}, []string{"spec.matchingPrecedence", "spec.distinguisherMethod.type"}},
	} {
		_, err := e.create("flowcontrol.apiserver.k8s.io/v1/"+tc.resource, "", object.Object{"metadata": map[string]any{"name": "bad"}, "spec": tc.spec})
		st := apierrors.As(err)
		if err == nil || st.Code != 422 || st.Details == nil || len(st.Details.Causes) != len(tc.fields) {
			t.Errorf("%s %v: %v, want 422 on %v", tc.resource, tc.spec, err, tc.fields)
			continue
		}
		for i, c := range st.Details.Causes {
			if c.Field != tc.fields[i] || !strings.Contains(st.Message, c.Field) {
				t.Errorf("%s: cause %d on %s, want %s (%s)", tc.resource, i, c.Field, tc.fields[i], st.Message)
			}
		}
	}
}
