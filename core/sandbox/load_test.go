package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"kubeplay/core/object"
)

// TestROB_1_LoadBoundsEveryCount: the load generator checks each count it is
// given against its own bound before multiplying any (rounds 92233720368547759
// once passed "at most 2000 requests" by overflowing concurrency×rounds), and
// names the field that is out of bounds in a 422.
func TestROB_1_LoadBoundsEveryCount(t *testing.T) {
	e := newEnv(t, Config{})
	flow := func(user string, concurrency int) map[string]any {
		return map[string]any{"user": user, "concurrency": concurrency}
	}
	manyFlows := make([]any, 21)
	for i := range manyFlows {
		manyFlows[i] = flow("u", 1)
	}
	for _, c := range []struct {
		load  map[string]any
		field string
		words string
	}{
		{map[string]any{"path": "/api", "rounds": 92233720368547759, "flows": []any{flow("a", 100)}}, "rounds", "must be between 1 and 2000"},
		{map[string]any{"path": "/api", "rounds": 21, "flows": []any{flow("a", 100)}}, "rounds", "the flows' concurrency (100) times rounds must be at most 2000 requests"},
		{map[string]any{"path": "/api", "rounds": 1, "flows": []any{flow("a", 101)}}, "flows[0].concurrency", "must be between 1 and 100"},
		{map[string]any{"path": "/api", "rounds": 1, "flows": []any{flow("", 1)}}, "flows[0].user", "Required value"},
		{map[string]any{"path": "/api", "rounds": 1, "flows": manyFlows}, "flows", "must hold between 1 and 20 flows"},
		{map[string]any{"path": "/api", "rounds": 1, "flows": []any{}}, "flows", "must hold between 1 and 20 flows"},
		{map[string]any{"path": "/api", "rounds": 1, "simulatedWork": "1h", "flows": []any{flow("a", 1)}}, "simulatedWork", "must be a duration between 0 and 5s"},
		{map[string]any{"path": "/api", "rounds": 13, "simulatedWork": "5s", "flows": []any{flow("a", 1)}}, "rounds", "rounds times simulatedWork must be at most 1m0s"},
		{map[string]any{"rounds": 1, "flows": []any{flow("a", 1)}}, "path", "Required value"},
	} {
		r := e.do("POST", "/debug/kubeplay/apf/load", c.load, admin)
		causes, _ := object.Path(r.Obj, "details", "causes").([]any)
		if r.Code != 422 || object.Path(r.Obj, "reason") != "Invalid" || len(causes) != 1 ||
			object.Path(causes[0], "field") != c.field || !strings.Contains(object.String(object.Path(causes[0], "message")), c.words) {
			t.Errorf("%v: %d %s", c.load, r.Code, r.Body)
		}
	}
	if r := e.do("POST", "/debug/kubeplay/apf/load", map[string]any{"path": "/api", "rounds": 2, "flows": []any{flow("a", 3)}}, admin); r.Code != 200 ||
		object.Path(r.Obj["flows"].([]any)[0], "sent") != json.Number("6") {
		t.Errorf("a load within bounds: %d %s", r.Code, r.Body)
	}
}

// TestROB_1_LoadStopsWhenClientLeaves: a load's workers stop sending once
// its client has gone, rather than playing every round for nobody.
func TestROB_1_LoadStopsWhenClientLeaves(t *testing.T) {
	e := newEnv(t, Config{})
	e.tinyLevel("loaded", "loader")
	dispatched := func() json.Number { n, _ := e.levelState("loaded")["dispatched"].(json.Number); return n }
	// 600 rounds of 100 ms: a minute of requests, one at a time.
	body, _ := json.Marshal(map[string]any{"path": "/api/v1/namespaces", "simulatedWork": "100ms", "rounds": 600,
		"flows": []any{map[string]any{"user": "loader", "concurrency": 1}}})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", e.hs.URL+"/debug/kubeplay/apf/load", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer kubeplay")
	req.Header.Set("Content-Type", "application/json")
	done := make(chan struct{})
	go func() {
		defer close(done)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	e.eventually("the load under way", func() bool { n, _ := dispatched().Int64(); return n >= 2 })
	cancel()
	<-done
	// Once the request in flight has ended, nothing more is dispatched: far
	// fewer than the 600 rounds (a cancelled request is dispatched at once, so
	// a loop that went on would play every round in a moment).
	e.eventually("the load stopped", func() bool {
		before := dispatched()
		time.Sleep(300 * time.Millisecond) // three rounds' worth
		return dispatched() == before && e.levelState("loaded")["executing"] == json.Number("0")
	})
	if n, _ := dispatched().Int64(); n > 100 {
		t.Errorf("%d requests dispatched after the client left", n)
	}
}
