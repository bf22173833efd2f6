package main

import (
	"strings"
)

// answer turns one server's raw answer to step s into the document compared:
// its status, the headers clients read, and its body (a watch's: its events
// and how the stream ended), decoded from whatever representation it came in
// and normalized. What the answer shows is recorded in the server's state first,
// so placeholders of later steps and the normalization's labels follow it.
func (n *normalizer) answer(s Step, r raw) *object {
	n.st.step++
	out := &object{vals: map[string]any{}}
	if r.err != "" {
		out.set("error", r.err)
	}
	if r.status == 0 {
		return out
	}
	out.set("status", r.status)
	out.set("header", n.header(r.header))
	stream := s.Watch && r.status == 200
	d := decodeBody(r.header.Get("Content-Type"), r.body, stream)
	if stream {
		for _, ev := range d.docs {
			if o, ok := ev.(*object); ok {
				n.st.observeObject(s.Kind, plain(o.get("object")))
			}
		}
	} else if len(d.docs) > 0 {
		n.st.observe(s, r.status, plain(d.docs[0]))
	}
	for _, doc := range d.docs {
		n.learnUIDs(doc, s.Kind)
	}
	n.inDeletion = s.Verb == "deletecollection"
	for i, doc := range d.docs {
		d.docs[i] = n.doc(doc, "")
	}
	switch {
	case stream:
		out.set("events", append([]any{}, d.docs...))
		out.set("watchEnd", r.watchEnd)
	case len(d.docs) == 1:
		out.set("body", d.docs[0])
	case len(d.docs) > 1:
		out.set("body", append([]any{}, d.docs...))
	}
	if len(d.notes) > 0 {
		out.set("notes", strings.Join(d.notes, "; "))
	}
	return out
}
