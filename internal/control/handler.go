package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/export"
	"kubeplay/internal/control/progress"
	"kubeplay/wasm/clustermode"
)

// Handler serves the protocol over a Fleet.
type Handler struct {
	Fleet Fleet
	// InstructorToken is the instructor's bearer token; empty (or a nil
	// func) leaves the instructor's endpoints refused (403). A func, as the
	// edge reads its bindings per request.
	InstructorToken func() string
	// Admit, when set, lets a caller without the instructor token create a
	// sandbox (POST /sandboxes) if it returns nil: the edge's per-caller
	// limit. Nil: only the instructor creates sandboxes.
	Admit func(*http.Request) *apierrors.Status
	// CA is the PEM the kubeconfigs embed (the host's CA when it serves TLS).
	CA []byte
	// MaxAttendees bounds a workshop (0: MaxAttendees).
	MaxAttendees int
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// ServeHTTP answers the protocol's paths; any other is 404.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if rest, ok := strings.CutPrefix(p, "/s/"); ok {
		id, sub, _ := strings.Cut(rest, "/")
		h.route(w, r, id, "/"+sub)
		return
	}
	switch {
	case p == "/workshops":
		h.method(w, r, http.MethodPost, h.createWorkshop)
	case p == "/sandboxes":
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			h.instructor(w, r, h.list)
			return
		}
		h.method(w, r, http.MethodPost, h.createSandbox)
	case p == "/sandboxes/credentials":
		h.method(w, r, http.MethodGet, func(w http.ResponseWriter, r *http.Request) { h.instructor(w, r, h.credentials) })
	case strings.HasPrefix(p, "/sandboxes/"):
		id, action, _ := strings.Cut(strings.TrimPrefix(p, "/sandboxes/"), "/")
		h.sandbox(w, r, id, action)
	default:
		writeStatus(w, apierrors.NewPathNotFound())
	}
}

// Handles says whether path is one of the protocol's.
func Handles(path string) bool {
	return path == "/workshops" || path == "/sandboxes" || strings.HasPrefix(path, "/sandboxes/") || strings.HasPrefix(path, "/s/")
}

func (h *Handler) method(w http.ResponseWriter, r *http.Request, method string, serve http.HandlerFunc) {
	if r.Method != method {
		writeStatus(w, apierrors.NewMethodNotAllowed())
		return
	}
	serve(w, r)
}

// instructor serves r when it carries the instructor token.
func (h *Handler) instructor(w http.ResponseWriter, r *http.Request, serve http.HandlerFunc) {
	if failure := h.checkInstructor(r); failure != nil {
		writeStatus(w, failure)
		return
	}
	serve(w, r)
}

func (h *Handler) instructorToken() string {
	if h.InstructorToken == nil {
		return ""
	}
	return h.InstructorToken()
}

func (h *Handler) checkInstructor(r *http.Request) *apierrors.Status {
	token := h.instructorToken()
	if token == "" {
		return apierrors.New(http.StatusForbidden, "Forbidden", "workshop mode is not enabled on this server (set an instructor token)", nil)
	}
	if !BearerEquals(r.Header.Get("Authorization"), token) {
		return apierrors.NewUnauthorized()
	}
	return nil
}

// isInstructor says whether r carries the instructor token.
func (h *Handler) isInstructor(r *http.Request) bool {
	return BearerEquals(r.Header.Get("Authorization"), h.instructorToken())
}

// sandbox answers /sandboxes/{id}[/action].
func (h *Handler) sandbox(w http.ResponseWriter, r *http.Request, id, action string) {
	var allowed string
	var serve func(ctx context.Context) (any, error)
	switch action {
	case "":
		if r.Method == http.MethodDelete {
			allowed, serve = http.MethodDelete, func(ctx context.Context) (any, error) {
				if err := h.Fleet.Delete(ctx, id); err != nil {
					return nil, err
				}
				return apierrors.Success(&apierrors.StatusDetails{Name: id, Kind: "sandboxes"}), nil
			}
		} else {
			allowed, serve = http.MethodGet, func(ctx context.Context) (any, error) { return h.Fleet.Info(ctx, id) }
		}
	case "reset":
		allowed, serve = http.MethodPost, func(ctx context.Context) (any, error) { return h.Fleet.Reset(ctx, id) }
	case "token":
		allowed, serve = http.MethodPost, func(ctx context.Context) (any, error) {
			token := NewToken()
			if err := h.Fleet.NewToken(ctx, id, token); err != nil {
				return nil, err
			}
			server := SandboxServer(origin(r), id)
			return TokenIssued{ID: id, Token: token, Kubeconfig: sandboxKubeconfig(id, server, token, h.CA), Playground: PlaygroundLink(origin(r), server, token)}, nil
		}
	default:
		writeStatus(w, apierrors.NewPathNotFound())
		return
	}
	h.method(w, r, allowed, func(w http.ResponseWriter, r *http.Request) {
		h.instructor(w, r, func(w http.ResponseWriter, r *http.Request) {
			if !ValidID(id) {
				writeStatus(w, notFound(id))
				return
			}
			v, err := serve(r.Context())
			if err != nil {
				writeError(w, err, id)
				return
			}
			writeJSON(w, http.StatusOK, v)
		})
	})
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) {
	infos, err := h.Fleet.List(r.Context())
	if err != nil {
		writeError(w, err, "")
		return
	}
	if infos == nil {
		infos = []Info{}
	}
	writeJSON(w, http.StatusOK, struct {
		Sandboxes []Info `json:"sandboxes"`
	}{infos})
}

func (h *Handler) credentials(w http.ResponseWriter, r *http.Request) {
	creds, err := h.Fleet.Credentials(r.Context())
	if err != nil {
		writeError(w, err, "")
		return
	}
	o := origin(r)
	for i, c := range creds {
		c.Server = SandboxServer(o, c.ID)
		c.Kubeconfig = sandboxKubeconfig(c.ID, c.Server, c.Token, h.CA)
		c.Playground = PlaygroundLink(o, c.Server, c.Token)
		creds[i] = c
	}
	if creds == nil {
		creds = []Credential{}
	}
	writeJSON(w, http.StatusOK, struct {
		Sandboxes []Credential `json:"sandboxes"`
	}{creds})
}

// createSandbox answers POST /sandboxes: the instructor's (listed, no
// limit), or, when the host admits the caller, anyone's.
func (h *Handler) createSandbox(w http.ResponseWriter, r *http.Request) {
	listed := h.isInstructor(r)
	if !listed && h.Admit == nil {
		if failure := h.checkInstructor(r); failure != nil {
			writeStatus(w, failure)
			return
		}
	}
	var req SandboxRequest
	if failure := decodeCreation(r, &req); failure != nil {
		writeStatus(w, failure)
		return
	}
	cluster, failure := checkCluster(req.Cluster, req.State)
	if failure == nil {
		failure = CheckLabel(req.Label)
	}
	if failure != nil {
		writeStatus(w, failure)
		return
	}
	if !listed {
		if failure := h.Admit(r); failure != nil {
			writeStatus(w, failure)
			return
		}
	}
	specs := h.specs(1, cluster, listed, "", req.State)
	if req.Label != "" {
		specs[0].Label = req.Label
	}
	if err := h.Fleet.Create(r.Context(), specs); err != nil {
		writeError(w, err, "")
		return
	}
	writeJSON(w, http.StatusCreated, h.created(r, specs[0]))
}

// createWorkshop answers POST /workshops for the instructor with its
// sandboxes, each with its kubeconfig and link.
func (h *Handler) createWorkshop(w http.ResponseWriter, r *http.Request) {
	if failure := h.checkInstructor(r); failure != nil {
		writeStatus(w, failure)
		return
	}
	var req WorkshopRequest
	if failure := decodeCreation(r, &req); failure != nil {
		writeStatus(w, failure)
		return
	}
	limit := h.MaxAttendees
	if limit <= 0 {
		limit = MaxAttendees
	}
	if req.Attendees == 0 && len(req.Labels) > 0 {
		req.Attendees = len(req.Labels)
	}
	switch {
	case req.Attendees < 1 || req.Attendees > limit:
		writeStatus(w, apierrors.NewBadRequest(fmt.Sprintf("attendees must be between 1 and %d", limit)))
		return
	case len(req.Labels) > 0 && len(req.Labels) != req.Attendees:
		writeStatus(w, apierrors.NewBadRequest(fmt.Sprintf("labels names %d attendees, attendees is %d", len(req.Labels), req.Attendees)))
		return
	}
	seen := map[string]bool{}
	for _, l := range req.Labels {
		if failure := CheckLabel(l); failure != nil {
			writeStatus(w, failure)
			return
		}
		if l == "" || seen[l] {
			writeStatus(w, apierrors.NewBadRequest(fmt.Sprintf("labels must be distinct and not empty: %q", l)))
			return
		}
		seen[l] = true
	}
	cluster, failure := checkCluster(req.Cluster, req.State)
	if failure != nil {
		writeStatus(w, failure)
		return
	}
	specs := h.specs(req.Attendees, cluster, true, NewWorkshopID(), req.State)
	for i := range specs {
		if len(req.Labels) > 0 {
			specs[i].Label = req.Labels[i]
		} else {
			specs[i].Label = fmt.Sprintf("attendee-%0*d", len(strconv.Itoa(req.Attendees)), i+1)
		}
	}
	if err := h.Fleet.Create(r.Context(), specs); err != nil {
		writeError(w, err, "")
		return
	}
	out := WorkshopCreated{Workshop: specs[0].Workshop, Sandboxes: make([]Created, len(specs))}
	for i, s := range specs {
		out.Sandboxes[i] = h.created(r, s)
	}
	writeJSON(w, http.StatusCreated, out)
}

// specs are n new sandboxes, labelled by their id until the caller names them.
func (h *Handler) specs(n int, cluster Cluster, listed bool, workshop string, state []byte) []Spec {
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	created := now().UTC().Truncate(time.Second)
	specs := make([]Spec, n)
	for i := range specs {
		id := NewID()
		specs[i] = Spec{ID: id, Token: NewToken(), Label: "sandbox-" + id[:8], Workshop: workshop, Cluster: cluster,
			CreatedAt: created, Listed: listed, State: state}
	}
	return specs
}

func (h *Handler) created(r *http.Request, s Spec) Created {
	o := origin(r)
	server := SandboxServer(o, s.ID)
	return Created{ID: s.ID, Label: s.Label, Token: s.Token, Server: server, ExpiresAt: s.ExpiresAt,
		Playground: PlaygroundLink(o, server, s.Token), Kubeconfig: sandboxKubeconfig(s.ID, server, s.Token, h.CA)}
}

// route answers /s/{id}/...: unknown ids are 404, a request without the
// sandbox's token 401, and the instructor's token reads (GET, HEAD) but
// writes nothing (403).
func (h *Handler) route(w http.ResponseWriter, r *http.Request, id, path string) {
	if !ValidID(id) {
		writeStatus(w, apierrors.NewPathNotFound())
		return
	}
	authorization := r.Header.Get("Authorization")
	if _, ok := BearerToken(authorization); !ok {
		writeStatus(w, apierrors.NewUnauthorized())
		return
	}
	hash, ok := h.Fleet.TokenHash(id)
	if !ok {
		writeStatus(w, apierrors.NewPathNotFound())
		return
	}
	as := Attendee
	if !BearerMatches(authorization, hash) {
		if !h.isInstructor(r) {
			writeStatus(w, apierrors.NewUnauthorized())
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeStatus(w, apierrors.New(http.StatusForbidden, "Forbidden", "forbidden: the instructor token reads a sandbox (GET, HEAD); it writes nothing", nil))
			return
		}
		as = Instructor
	}
	if path == ProgressPath {
		h.progress(w, r, id)
		return
	}
	r2 := r.Clone(r.Context())
	r2.Header.Del("Authorization")
	r2.URL.Path, r2.URL.RawPath = path, ""
	if r.URL.RawPath != "" {
		if _, raw, ok := strings.Cut(strings.TrimPrefix(r.URL.RawPath, "/s/"), "/"); ok {
			r2.URL.RawPath = "/" + raw
		}
	}
	r2.RequestURI = r2.URL.RequestURI()
	h.Fleet.Route(w, r2, id, as)
}

// progress answers /s/{id}/kubeplay/progress, which the host keeps beside
// the sandbox: GET (the attendee, or the instructor reading) and PUT (the
// attendee's page; the instructor's PUT was refused above).
func (h *Handler) progress(w http.ResponseWriter, r *http.Request, id string) {
	switch r.Method {
	case http.MethodGet:
		in, err := h.Fleet.Info(r.Context(), id)
		if err != nil {
			writeError(w, err, id)
			return
		}
		writeJSON(w, http.StatusOK, in.Progress)
	case http.MethodPut:
		body, st := readBody(r)
		if st != nil {
			writeStatus(w, st)
			return
		}
		p, st := progress.Parse(body)
		if st != nil {
			writeStatus(w, st)
			return
		}
		if err := h.Fleet.SetProgress(r.Context(), id, p); err != nil {
			writeError(w, err, id)
			return
		}
		writeJSON(w, http.StatusOK, p)
	default:
		writeStatus(w, apierrors.NewMethodNotAllowed())
	}
}

// checkCluster checks a request's cluster, nil being the default.
// checkCluster is the cluster a creation asks for, checked: c, else the
// state's (an export's, checked whole), else the host's default.
func checkCluster(c *Cluster, state []byte) (Cluster, *apierrors.Status) {
	var fromState Cluster
	if state != nil {
		if len(state) > MaxStateBytes {
			return Cluster{}, apierrors.NewRequestEntityTooLarge(MaxStateBytes)
		}
		h, _, err := export.ReadBytes(state)
		if err != nil {
			return Cluster{}, apierrors.NewBadRequest("state: " + err.Error())
		}
		fromState = Cluster{Mode: h.Cluster.Mode, Nodes: min(h.Cluster.Nodes, clustermode.MaxNodes)}
	}
	if c == nil {
		return fromState, nil
	}
	return *c, c.Check()
}

// decodeCreation reads a creation's JSON object into v: it may carry a
// state, so it may be larger than other control requests.
func decodeCreation(r *http.Request, v any) *apierrors.Status {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxCreateBytes+1))
	if err != nil {
		return apierrors.NewBadRequest("reading the request body: " + err.Error())
	}
	return progress.DecodeJSONUpTo(body, v, maxCreateBytes)
}

// decodeRequest reads a control request's small JSON object into v
// (progress.DecodeJSON's rules).
func decodeRequest(r *http.Request, v any) *apierrors.Status {
	body, st := readBody(r)
	if st != nil {
		return st
	}
	return progress.DecodeJSON(body, v)
}

// readBody is r's body, up to one byte more than a control request may have.
func readBody(r *http.Request) ([]byte, *apierrors.Status) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes+1))
	if err != nil {
		return nil, apierrors.NewBadRequest("reading the request body: " + err.Error())
	}
	return body, nil
}

// origin is scheme://host of the request as the caller addressed it.
func origin(r *http.Request) string {
	scheme := r.URL.Scheme
	if scheme == "" {
		scheme = "http"
		if r.TLS != nil {
			scheme = "https"
		}
	}
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	return scheme + "://" + host
}

func notFound(id string) *apierrors.Status { return apierrors.NewNotFound("", "sandboxes", id) }

// writeError answers err: a Status as it is, ErrNotFound as 404 for id, any
// other as 500.
func writeError(w http.ResponseWriter, err error, id string) {
	var st *apierrors.Status
	switch {
	case errors.As(err, &st):
		writeStatus(w, st)
	case errors.Is(err, ErrNotFound):
		writeStatus(w, notFound(id))
	default:
		writeStatus(w, apierrors.NewInternal(err))
	}
}

func writeStatus(w http.ResponseWriter, st *apierrors.Status) { writeJSON(w, st.Code, st) }

// writeJSON answers code with v as JSON; a Status asking for a retry sets
// Retry-After.
func writeJSON(w http.ResponseWriter, code int, v any) {
	if st, ok := v.(*apierrors.Status); ok && st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}
