// Package control is the workshop control protocol (WORK-1) both hosts
// serve, the native command (playground/) and the edge's front Worker
// (edge/front, as js/wasm): its JSON types, the checks of its requests,
// sandbox ids and tokens (made at random, kept as SHA-256, compared in
// constant time), the kubeconfigs and playground links it hands out, and the
// http.Handler of its endpoints over a Fleet, the host's sandboxes:
//
//	POST   /workshops                 N sandboxes for the instructor
//	POST   /sandboxes                 one sandbox: the instructor's, or anyone's the host admits
//	GET    /sandboxes                 the instructor's sandboxes (Info)
//	GET    /sandboxes/credentials     their tokens, kubeconfigs and links
//	GET    /sandboxes/{id}            one sandbox's Info
//	POST   /sandboxes/{id}/reset      a fresh sandbox in its place, same token
//	POST   /sandboxes/{id}/token      a new token; the old one is refused from then on
//	DELETE /sandboxes/{id}            the sandbox is gone
//	*      /s/{id}/<path>             the sandbox's API, for its token (and
//	                                  read-only for the instructor's)
//	PUT    /s/{id}/kubeplay/progress  the attendee's page tells how far they got
//	GET    /s/{id}/kubeplay/progress  (Progress; the host keeps it, the core never sees it)
//
// The contract is /work/notes/workshop-api.md's; answers to bad input are
// kube-apiserver's Status bodies.
package control

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
	"unicode"
	"unicode/utf8"

	"kubeplay/core/apierrors"
	"kubeplay/core/requestlog"
	"kubeplay/internal/control/progress"
	"kubeplay/wasm/clustermode"
)

// Limits of the protocol's requests.
const (
	// MaxAttendees bounds one workshop's sandboxes unless the host sets less.
	MaxAttendees = 100
	// MaxRequestBytes bounds a control request's body.
	MaxRequestBytes = progress.MaxRequestBytes
	// MaxStateBytes bounds the export a creation may carry (the edge's
	// bound on a request's body); in the JSON body, base64 makes it a
	// third more.
	MaxStateBytes  = 3 << 20
	maxCreateBytes = MaxRequestBytes + (MaxStateBytes+2)/3*4
	// MaxLabelRunes bounds a sandbox's label (an attendee's name).
	MaxLabelRunes = 63
	// RecentErrors is how many of a sandbox's last failed requests Info shows.
	RecentErrors = 5
)

// ProgressPath is the path below /s/{id} where the attendee's page puts its
// Progress.
const ProgressPath = "/kubeplay/progress"

// Cluster is what a sandbox runs besides the API (SIM-5): "simulated" (the
// default: nodes, kubelets, scheduler and controllers) or "api-only", the
// simulated cluster's node count (0: its default) and speed (0: real time).
type Cluster struct {
	Mode  string  `json:"mode,omitempty"`
	Nodes int     `json:"nodes,omitempty"`
	Speed float64 `json:"speed,omitempty"`
}

// Check says what is wrong with c, if anything.
func (c Cluster) Check() *apierrors.Status {
	switch {
	case c.Mode != "" && c.Mode != "simulated" && c.Mode != "api-only":
		return apierrors.NewBadRequest(`cluster.mode must be "simulated" or "api-only"`)
	case c.Nodes < 0 || c.Nodes > clustermode.MaxNodes:
		return apierrors.NewBadRequest(fmt.Sprintf("cluster.nodes must be between 0 (the default, %d) and %d", clustermode.Default.Nodes, clustermode.MaxNodes))
	case c.Speed < 0 || c.Speed > clustermode.MaxSpeed:
		return apierrors.NewBadRequest(fmt.Sprintf("cluster.speed must be between 0 and %g", clustermode.MaxSpeed))
	}
	return nil
}

// APIOnly says whether the sandbox serves the API alone.
func (c Cluster) APIOnly() bool { return c.Mode == "api-only" }

// SandboxRequest is the body of POST /sandboxes.
type SandboxRequest struct {
	Cluster *Cluster `json:"cluster,omitempty"`
	Label   string   `json:"label,omitempty"`
	// State is an export (LEARN-6: a .kubeplay file, base64 in JSON) the
	// sandbox starts from; its cluster kind the sandbox's unless Cluster
	// says otherwise.
	State []byte `json:"state,omitempty"`
}

// WorkshopRequest is the body of POST /workshops: Attendees sandboxes (or
// as many as Labels names), each labelled with its attendee's name.
type WorkshopRequest struct {
	Attendees int      `json:"attendees"`
	Cluster   *Cluster `json:"cluster,omitempty"`
	Labels    []string `json:"labels,omitempty"`
	// State is an export every attendee's sandbox starts from (as
	// SandboxRequest's).
	State []byte `json:"state,omitempty"`
}

// Created is what creating a sandbox answers: the only answer besides
// GET /sandboxes/credentials that shows its token.
type Created struct {
	ID         string    `json:"id"`
	Label      string    `json:"label"`
	Token      string    `json:"token"`
	Server     string    `json:"server"`
	ExpiresAt  time.Time `json:"expiresAt,omitzero"` // none where sandboxes do not expire
	Playground string    `json:"playground"`
	Kubeconfig string    `json:"kubeconfig"`
}

// WorkshopCreated answers POST /workshops.
type WorkshopCreated struct {
	Workshop  string    `json:"workshop"`
	Sandboxes []Created `json:"sandboxes"`
}

// Info is what the instructor sees of a sandbox.
type Info struct {
	ID           string    `json:"id"`
	Label        string    `json:"label"`
	Workshop     string    `json:"workshop,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
	LastActiveAt time.Time `json:"lastActiveAt"`
	ExpiresAt    time.Time `json:"expiresAt,omitzero"`
	Mode         string    `json:"mode"` // "simulated" or "api-only"
	Nodes        int       `json:"nodes"`
	Objects      int64     `json:"objects"`
	Budget       Budget    `json:"budget"`
	Progress     Progress  `json:"progress"`
	// RecentErrors are the sandbox's last RecentErrors answers of 400 or
	// more, from its request log, oldest first.
	RecentErrors []RequestError `json:"recentErrors"`
}

// Budget is how much of its storage budget a sandbox uses (0 max: no limit).
type Budget struct {
	Bytes      int64 `json:"bytes"`
	MaxBytes   int64 `json:"maxBytes"`
	Objects    int64 `json:"objects"`
	MaxObjects int64 `json:"maxObjects"`
}

// Progress is how far the attendee got (package progress: its record, its
// check and how a PUT's body is read, which the edge's sandbox object reads
// through the core's module).
type Progress = progress.Progress

// RequestError is one failed request of a sandbox's request log: time,
// user, verb, URI, code and its Status's message (core/requestlog's
// Failure, which both hosts report).
type RequestError = requestlog.Failure

// Credential is one sandbox's access, for the instructor's download of all
// kubeconfigs and the printable sheet of links.
type Credential struct {
	ID         string `json:"id"`
	Label      string `json:"label"`
	Token      string `json:"token"`
	Server     string `json:"server"`
	Kubeconfig string `json:"kubeconfig"`
	Playground string `json:"playground"`
}

// TokenIssued answers POST /sandboxes/{id}/token.
type TokenIssued struct {
	ID         string `json:"id"`
	Token      string `json:"token"`
	Kubeconfig string `json:"kubeconfig"`
	Playground string `json:"playground"`
}

// Spec is a sandbox to create, as the handler asks a Fleet for it.
type Spec struct {
	ID       string
	Token    string // the host keeps its hash, and the token itself when Listed
	Label    string
	Workshop string // empty for a sandbox made alone
	Cluster  Cluster
	// CreatedAt is now; ExpiresAt is when the host deletes it (zero: never),
	// which Fleet.Create sets.
	CreatedAt, ExpiresAt time.Time
	// Listed: the instructor made it, so it is in GET /sandboxes and its
	// credentials can be downloaded again.
	Listed bool
	// State is the export (checked whole) the sandbox starts from, as a
	// host imports one (POST /debug/kubeplay/import); nil: a new sandbox.
	State []byte
}

// Access is who a request routed to a sandbox comes from.
type Access int

const (
	// Attendee is the holder of the sandbox's token.
	Attendee Access = iota
	// Instructor is the holder of the instructor token, reading.
	Instructor
)

// Fleet is a host's sandboxes. Methods naming an unknown id return an error
// wrapping ErrNotFound; an *apierrors.Status is answered as it is (a host's
// limit, say); any other error is 500.
type Fleet interface {
	// Create makes the sandboxes, all or none, setting ExpiresAt of those
	// that expire.
	Create(ctx context.Context, specs []Spec) error
	// List is the Listed sandboxes' Info, oldest first.
	List(ctx context.Context) ([]Info, error)
	// Info is one sandbox's.
	Info(ctx context.Context, id string) (Info, error)
	// Credentials are the Listed sandboxes' ids, labels and tokens (the
	// handler renders the rest), oldest first.
	Credentials(ctx context.Context) ([]Credential, error)
	// Reset replaces the sandbox with a fresh one of the same spec and token.
	Reset(ctx context.Context, id string) (Info, error)
	// NewToken makes token the sandbox's, refusing the old one from then on.
	NewToken(ctx context.Context, id, token string) error
	// Delete removes the sandbox and what it stored.
	Delete(ctx context.Context, id string) error
	// TokenHash is the SHA-256 (hex) of the sandbox's token, if it exists.
	TokenHash(id string) (string, bool)
	// SetProgress keeps the attendee's progress (checked) as the sandbox's
	// until the next, or a reset.
	SetProgress(ctx context.Context, id string, p Progress) error
	// Route serves r, whose path is the one below /s/{id} and whose
	// Authorization header the handler has checked and removed, from the
	// sandbox as the caller: the sandbox's user, or the instructor reading.
	Route(w http.ResponseWriter, r *http.Request, id string, as Access)
}

// ErrNotFound is a sandbox id no sandbox has.
var ErrNotFound = errors.New("no such sandbox")

// CheckLabel says what is wrong with a sandbox's label, if anything: it is a
// name shown to people and, natively, the attendee's user name.
func CheckLabel(label string) *apierrors.Status {
	switch {
	case !utf8.ValidString(label) || utf8.RuneCountInString(label) > MaxLabelRunes:
		return apierrors.NewBadRequest(fmt.Sprintf("label %q must be at most %d characters of UTF-8", label, MaxLabelRunes))
	case label == "":
		return nil
	case unicode.IsSpace(rune(label[0])) || unicode.IsSpace(rune(label[len(label)-1])):
		return apierrors.NewBadRequest(fmt.Sprintf("label %q must not begin or end with a space", label))
	}
	for _, r := range label {
		if !unicode.IsPrint(r) {
			return apierrors.NewBadRequest(fmt.Sprintf("label %q must be printable characters", label))
		}
	}
	return nil
}
