// Package warning owns the Warning headers of API responses, as
// kube-apiserver sends them: `Warning: 299 - "text"` (RFC 7234), added while a
// request is handled through a recorder in its context. Like kube's, the
// recorder drops empty and repeated texts and texts that are not UTF-8, and
// keeps the headers within 4096 characters of text: once over, every warning is
// cut to 256 characters and those that no longer fit are dropped.
package warning

import (
	"context"
	"strconv"
	"sync"
	"unicode/utf8"

	"kubeplay/core/web"
)

// kube-apiserver's limits.
const (
	truncateAtTotalRunes = 4 * 1024
	truncateItemRunes    = 256
)

type recorder struct {
	mu         sync.Mutex
	header     web.Header
	recorded   map[string]bool
	ordered    []string
	written    int // runes of text in the headers
	truncating bool
}

type key struct{}

// Filter gives every request a recorder writing to its response's headers.
func Filter(next web.Handler) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		rec := &recorder{header: w.Header()}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), key{}, rec)))
	})
}

// Add adds a warning to the response of the request ctx belongs to (nothing
// without a recorder). Warnings must be added before the response is written.
func Add(ctx context.Context, text string) {
	rec, _ := ctx.Value(key{}).(*recorder)
	if rec == nil || text == "" || !utf8.ValidString(text) {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.truncating && rec.written >= truncateAtTotalRunes || rec.recorded[text] {
		return
	}
	if rec.recorded == nil {
		rec.recorded = map[string]bool{}
	}
	rec.recorded[text] = true
	rec.ordered = append(rec.ordered, text)
	if n := utf8.RuneCountInString(text); rec.truncating || rec.written+n <= truncateAtTotalRunes {
		rec.add(text)
		return
	}
	// Over the limit: start again with every warning cut short.
	rec.truncating = true
	rec.written = 0
	rec.header.Del("Warning")
	for _, t := range rec.ordered {
		rec.add(t)
	}
}

// add writes one warning header, cut short when truncating.
func (rec *recorder) add(text string) {
	n := utf8.RuneCountInString(text)
	if rec.truncating && n > truncateItemRunes {
		text = string([]rune(text)[:truncateItemRunes])
		n = truncateItemRunes
	}
	rec.written += n
	rec.header.Add("Warning", Header(text))
}

// Header is the Warning header value kube-apiserver writes for text.
func Header(text string) string { return "299 - " + strconv.Quote(text) }
