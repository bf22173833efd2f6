package requestlog

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"kubeplay/core/apierrors"
	"kubeplay/core/web"
)

// Path is where a sandbox serves its request log:
//
//	GET /debug/kubeplay/requests             the entries kept, oldest first,
//	                                         and the log's version
//	GET /debug/kubeplay/requests?since=V     those that changed after V
//	GET /debug/kubeplay/requests?watch=1     those, then each change, as
//	                                         newline-delimited JSON events
//	GET /debug/kubeplay/requests/SEQ         one entry with its bodies
//
// filtered by user, client, verb and code (each a comma-separated list; a
// code may be a class: 2xx, 4xx, 5xx). The log's own requests are not
// logged.
const Path = "/debug/kubeplay/requests"

// IsPath says whether path is the log's own endpoint (which is not logged:
// its followers would hear of themselves).
func IsPath(path string) bool { return path == Path || strings.HasPrefix(path, Path+"/") }

// ServeHTTP serves the log at Path.
func (l *Log) ServeHTTP(w web.ResponseWriter, r *web.Request) {
	seq := strings.Trim(strings.TrimPrefix(r.URL.Path, Path), "/")
	if r.Method != web.MethodGet {
		apierrors.Write(w, apierrors.NewMethodNotAllowed())
		return
	}
	if seq != "" {
		n, err := strconv.ParseInt(seq, 10, 64)
		if err != nil {
			apierrors.Write(w, apierrors.NewBadRequest("a request's number, not "+strconv.Quote(seq)))
			return
		}
		e, bodies, ok := l.Get(n)
		if !ok {
			apierrors.Write(w, apierrors.New(web.StatusNotFound, "NotFound", "request "+seq+" is no longer in the log", nil))
			return
		}
		out := map[string]any{"entry": e, "requestBodyTruncated": bodies.RequestTruncated, "responseBodyTruncated": bodies.ResponseTruncated}
		putBody(out, "requestBody", bodies.Request)
		putBody(out, "responseBody", bodies.Response)
		apierrors.WriteJSON(w, out)
		return
	}
	q := r.URL.Query()
	match, err := requestFilter(q)
	if err != nil {
		apierrors.Write(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	if q.Get("watch") != "1" && q.Get("watch") != "true" {
		var since int64
		if v := q.Get("since"); v != "" {
			if since, err = strconv.ParseInt(v, 10, 64); err != nil {
				apierrors.Write(w, apierrors.NewBadRequest("since: a version of the log, not "+strconv.Quote(v)))
				return
			}
		}
		items, version := l.List(match, since)
		apierrors.WriteJSON(w, map[string]any{"version": version, "items": items})
		return
	}
	timeout := 30 * time.Minute
	if v := q.Get("timeoutSeconds"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			apierrors.Write(w, apierrors.NewBadRequest("timeoutSeconds: a number of seconds, not "+strconv.Quote(v)))
			return
		}
		timeout = time.Duration(n) * time.Second
	}
	f := l.Follow(match, true)
	defer f.Stop()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(web.StatusOK)
	_ = web.Flush(w)
	done := l.clock.NewTimer(timeout)
	defer done.Stop()
	for {
		select {
		case ev, ok := <-f.Events():
			if !ok {
				return
			}
			b, _ := json.Marshal(ev)
			if _, err := w.Write(append(b, '\n')); err != nil {
				return
			}
			if len(f.Events()) == 0 {
				_ = web.Flush(w)
			}
		case <-done.C():
			return
		case <-r.Context().Done():
			return
		}
	}
}

// putBody puts a body under key as text, or base64 under key+"Base64" when
// it is not UTF-8 (protobuf, CBOR).
func putBody(out map[string]any, key string, b []byte) {
	switch {
	case len(b) == 0:
	case utf8.Valid(b):
		out[key] = string(b)
	default:
		out[key+"Base64"] = base64.StdEncoding.EncodeToString(b)
	}
}

// requestFilter is the entries q's user, client, verb and code ask for.
func requestFilter(q map[string][]string) (func(Entry) bool, error) {
	list := func(k string) []string {
		var out []string
		for _, v := range q[k] {
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					out = append(out, s)
				}
			}
		}
		return out
	}
	users, clients, verbs, codes := list("user"), list("client"), list("verb"), list("code")
	for _, c := range codes {
		if _, err := strconv.Atoi(strings.TrimSuffix(c, "xx")); err != nil {
			return nil, &apierrors.Status{Message: "code: a status code or a class such as 4xx, not " + strconv.Quote(c)}
		}
	}
	in := func(vs []string, v string) bool {
		if len(vs) == 0 {
			return true
		}
		for _, x := range vs {
			if x == v {
				return true
			}
		}
		return false
	}
	return func(e Entry) bool {
		if !in(users, e.User) || !in(clients, e.Client) || !in(verbs, e.Verb) {
			return false
		}
		if len(codes) == 0 {
			return true
		}
		for _, c := range codes {
			if class, ok := strings.CutSuffix(c, "xx"); ok && strconv.Itoa(e.Code/100) == class || strconv.Itoa(e.Code) == c {
				return true
			}
		}
		return false
	}, nil
}
