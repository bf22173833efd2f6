// Package progress is the workshop's progress record (WORK-2): how far an
// attendee got, as their page reports it (PUT /s/{id}/kubeplay/progress),
// its bounds, and how a host reads such a request's body (Parse), the same
// natively (internal/control) and at the edge, whose sandbox objects call it
// through the core's module (wasm: kubeplay.parseProgress). DecodeJSON is
// how every control request's JSON body is read.
package progress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"

	"kubeplay/core/apierrors"
)

// Bounds of a progress record.
const (
	// MaxRequestBytes bounds a control request's body.
	MaxRequestBytes = 16 << 10
	// MaxExercises bounds the exercises a Progress names, and MaxName the
	// runes of a tutorial's or an exercise's id.
	MaxExercises = 200
	MaxName      = 253
)

// Progress is how far the attendee got in a tutorial: the tutorial's id,
// the step they are on of how many, and the exercises they began, by id
// (true: every part checked). Empty until the page reports it (PUT
// control's ProgressPath), and again after a reset.
type Progress struct {
	Tutorial  string          `json:"tutorial"`
	Step      int             `json:"step"`
	Steps     int             `json:"steps"`
	Exercises map[string]bool `json:"exercises"`
}

// Check says what is wrong with p, if anything, and makes a missing
// exercises map an empty one.
func (p *Progress) Check() *apierrors.Status {
	name := func(what, s string) *apierrors.Status {
		if !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxName {
			return apierrors.NewBadRequest(fmt.Sprintf("%s must be at most %d characters of UTF-8", what, MaxName))
		}
		for _, r := range s {
			if !unicode.IsPrint(r) {
				return apierrors.NewBadRequest(what + " must be printable characters")
			}
		}
		return nil
	}
	if st := name("progress.tutorial", p.Tutorial); st != nil {
		return st
	}
	switch {
	case p.Steps < 0 || p.Steps > 1000:
		return apierrors.NewBadRequest("progress.steps must be between 0 and 1000")
	case p.Step < 0 || p.Step > p.Steps:
		return apierrors.NewBadRequest(fmt.Sprintf("progress.step must be between 0 and progress.steps (%d)", p.Steps))
	case p.Tutorial == "" && p.Steps != 0:
		return apierrors.NewBadRequest("progress.steps needs progress.tutorial")
	case len(p.Exercises) > MaxExercises:
		return apierrors.NewBadRequest(fmt.Sprintf("progress.exercises must name at most %d exercises", MaxExercises))
	}
	for id := range p.Exercises {
		if id == "" {
			return apierrors.NewBadRequest("progress.exercises: an exercise's id must not be empty")
		}
		if st := name("progress.exercises' ids", id); st != nil {
			return st
		}
	}
	if p.Exercises == nil {
		p.Exercises = map[string]bool{}
	}
	return nil
}

// Parse reads a PUT's body (DecodeJSON's rules) and checks it.
func Parse(body []byte) (Progress, *apierrors.Status) {
	var p Progress
	if st := DecodeJSON(body, &p); st != nil {
		return Progress{}, st
	}
	if st := p.Check(); st != nil {
		return Progress{}, st
	}
	return p, nil
}

// DecodeJSON reads a control request's small JSON object (an empty body
// counts as {}) into v, refusing a larger body, null, unknown fields and
// anything after the object.
func DecodeJSON(body []byte, v any) *apierrors.Status {
	return DecodeJSONUpTo(body, v, MaxRequestBytes)
}

// DecodeJSONUpTo is DecodeJSON for a body of at most max bytes.
func DecodeJSONUpTo(body []byte, v any, max int) *apierrors.Status {
	if len(body) > max {
		return apierrors.NewRequestEntityTooLarge(int64(max))
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil
	}
	if string(trimmed) == "null" {
		return apierrors.NewBadRequest("invalid sandbox request: the body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return apierrors.NewBadRequest("invalid sandbox request: " + err.Error())
	}
	if dec.More() {
		return apierrors.NewBadRequest("invalid sandbox request: trailing data after the JSON object")
	}
	return nil
}
