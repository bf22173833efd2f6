package requestlog

import (
	"encoding/json"
	"strings"
	"time"
)

// Failure is one failed request (an answer of 400 or more) as the
// instructor's view of a sandbox shows it (WORK-2), on every host alike.
type Failure struct {
	Time    time.Time `json:"time"`
	User    string    `json:"user"`
	Verb    string    `json:"verb"`
	URI     string    `json:"uri"`
	Code    int       `json:"code"`
	Message string    `json:"message"`
}

// Failures are the last n failed requests the log keeps from clients (the
// sandbox's own components' are theirs to retry, not the attendee's),
// oldest first, each with its Status's message while its answer is kept.
func (l *Log) Failures(n int) []Failure {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []Failure{}
	for i := len(l.ring) - 1; i >= 0 && len(out) < n; i-- {
		e := l.ring[i]
		if e.Internal || e.Code < 400 {
			continue
		}
		verb := e.Verb
		if verb == "" {
			verb = strings.ToLower(e.Method)
		}
		var status struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(e.responseBody, &status) // not JSON (protobuf, cut, dropped): no message
		out = append(out, Failure{Time: e.Time.UTC(), User: e.User, Verb: verb, URI: e.URI, Code: e.Code, Message: status.Message})
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
