package storage

import (
	"encoding/binary"
	"errors"
	"sync"
	"time"
)

// EventType is the kind of a change, as a watch event names it.
type EventType string

// Event types, spelled as the watch protocol spells them.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK"
)

// Event is one committed change, shared by every watcher that receives it. Its
// encodings are cached, so an event is encoded once per media type however many
// watchers send it.
type Event struct {
	Type EventType
	Key  string
	Rev  int64
	// Object is the value after the change; for DELETED, the object as deleted
	// (with the deletion's revision); for BOOKMARK, nil.
	Object []byte
	// Prev is the value before the change (nil for ADDED and BOOKMARK).
	Prev []byte

	time time.Time

	attrsOnce sync.Once
	attrs     [2]Attrs // of Object and of Prev

	derivedOnce sync.Once
	asDeleted   *Event // Prev restamped at Rev, for watchers it stopped matching
	asAdded     *Event // Object as ADDED, for watchers it started matching

	encMu sync.Mutex
	enc   map[string][]byte
}

// Encoded returns the event's encoding for format, building it with build the first
// time it is asked for.
func (e *Event) Encoded(format string, build func(*Event) []byte) []byte {
	e.encMu.Lock()
	defer e.encMu.Unlock()
	if b, ok := e.enc[format]; ok {
		return b
	}
	b := build(e)
	if e.enc == nil {
		e.enc = make(map[string][]byte, 1)
	}
	e.enc[format] = b
	return b
}

func (e *Event) attributes(cfg *Config) (cur, prev Attrs) {
	e.attrsOnce.Do(func() {
		if e.Object != nil && e.Type != Deleted {
			e.attrs[0] = cfg.Attrs(e.Key, e.Object)
		}
		if e.Prev != nil {
			e.attrs[1] = cfg.Attrs(e.Key, e.Prev)
		}
		if e.Type == Deleted {
			e.attrs[0] = e.attrs[1]
		}
	})
	return e.attrs[0], e.attrs[1]
}

// forFilter returns the event a watcher with filter f should see: e itself, a
// DELETED for an object that stopped matching, an ADDED for one that started, or
// nil when the change is not the watcher's business.
func (e *Event) forFilter(f Filter, cfg *Config) *Event {
	if f == nil || e.Type == Bookmark {
		return e
	}
	cur, prev := e.attributes(cfg)
	switch e.Type {
	case Added, Deleted:
		if f(cur) {
			return e
		}
		return nil
	}
	curOK, prevOK := f(cur), f(prev)
	switch {
	case curOK && prevOK:
		return e
	case !curOK && !prevOK:
		return nil
	}
	e.derivedOnce.Do(func() {
		del := &Event{Type: Deleted, Key: e.Key, Rev: e.Rev, Prev: e.Prev, time: e.time}
		if b, err := cfg.Restamp(e.Prev, e.Rev); err == nil {
			del.Object = b
		} else {
			del.Object = e.Prev
		}
		e.asDeleted = del
		e.asAdded = &Event{Type: Added, Key: e.Key, Rev: e.Rev, Object: e.Object, time: e.time}
	})
	if curOK {
		return e.asAdded
	}
	return e.asDeleted
}

// History entries: type byte, unix nanos, rev, key, object, prev (each length-prefixed).
func encodeHistory(e *Event) []byte {
	b := make([]byte, 0, 32+len(e.Key)+len(e.Object)+len(e.Prev))
	b = append(b, eventCode(e.Type))
	b = binary.AppendVarint(b, e.time.UnixNano())
	b = binary.AppendVarint(b, e.Rev)
	b = appendBytes(b, []byte(e.Key))
	b = appendBytes(b, e.Object)
	b = appendBytes(b, e.Prev)
	return b
}

var errCorrupt = errors.New("storage: corrupt record")

func decodeHistory(b []byte) (*Event, error) {
	if len(b) < 1 {
		return nil, errCorrupt
	}
	e := &Event{Type: eventType(b[0])}
	if e.Type == "" {
		return nil, errCorrupt
	}
	r := reader{b: b[1:]}
	nanos := r.varint()
	e.Rev = r.varint()
	e.Key = string(r.bytes())
	e.Object = r.bytes()
	e.Prev = r.bytes()
	if r.err != nil {
		return nil, r.err
	}
	e.time = time.Unix(0, nanos)
	if len(e.Object) == 0 {
		e.Object = nil
	}
	if len(e.Prev) == 0 {
		e.Prev = nil
	}
	return e, nil
}

func eventCode(t EventType) byte {
	switch t {
	case Added:
		return 'A'
	case Modified:
		return 'M'
	case Deleted:
		return 'D'
	}
	return 0
}

func eventType(c byte) EventType {
	switch c {
	case 'A':
		return Added
	case 'M':
		return Modified
	case 'D':
		return Deleted
	}
	return ""
}

func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// reader decodes the varint-framed records of history and journal entries.
type reader struct {
	b   []byte
	err error
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errCorrupt
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// peekHistoryTime reads a history entry's revision and time, copying
// nothing: a store opening keeps them (and the entry's size) for each.
func peekHistoryTime(v string) (rev int64, t time.Time, err error) {
	if len(v) < 1 || eventType(v[0]) == "" {
		return 0, time.Time{}, errCorrupt
	}
	r := reader{b: []byte(v[1:min(len(v), 1+2*binary.MaxVarintLen64)])}
	nanos := r.varint()
	rev = r.varint()
	if r.err != nil {
		return 0, time.Time{}, r.err
	}
	return rev, time.Unix(0, nanos), nil
}

// peekHistory reads a history entry's type, key and previous value in place,
// copying nothing: a list at an old revision undoes thousands of entries and
// needs no more of them.
func peekHistory(v string) (typ EventType, key, prev string, err error) {
	if len(v) < 1 {
		return "", "", "", errCorrupt
	}
	if typ = eventType(v[0]); typ == "" {
		return "", "", "", errCorrupt
	}
	off := 1
	field := func(varints int) (string, bool) {
		// Varints are at most binary.MaxVarintLen64 bytes each.
		hdr := []byte(v[off:min(len(v), off+varints*binary.MaxVarintLen64)])
		r := reader{b: hdr}
		for range varints - 1 {
			r.varint()
		}
		n := r.uvarint()
		if r.err != nil || n > uint64(len(v)) {
			return "", false
		}
		start := off + len(hdr) - len(r.b)
		if uint64(len(v)-start) < n {
			return "", false
		}
		off = start + int(n)
		return v[start:off], true
	}
	key, ok := field(3) // time, revision, key
	var ok2, ok3 bool
	_, ok2 = field(1) // object
	prev, ok3 = field(1)
	if !ok || !ok2 || !ok3 {
		return "", "", "", errCorrupt
	}
	return typ, key, prev, nil
}
