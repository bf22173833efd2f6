//go:build js && wasm

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/syumai/workers/cloudflare"

	"kubeplay/internal/control"
	"kubeplay/wasm/clustermode"
)

// The instructor's view at the edge (WORK-2): the Registry object lists the
// instructor's sandboxes (id, label, workshop, token, created), and each
// sandbox's object tells its own state (edge/sandbox/sandbox.mjs:
// https://control/info, /reset, /token and DELETE /), without starting its
// core. A listed sandbox whose object is gone (expired, idle too long) leaves
// the list when it is next listed.

// registered is one of the Registry's rows.
type registered struct {
	ID        string `json:"id"`
	Label     string `json:"label"`
	Workshop  string `json:"workshop"`
	Token     string `json:"token"`
	CreatedAt int64  `json:"createdAt"` // Unix ms
}

// sandboxInfo is a sandbox object's https://control/info answer.
type sandboxInfo struct {
	CreatedAt    int64                  `json:"createdAt"` // Unix ms, as the three times
	LastActiveAt int64                  `json:"lastActiveAt"`
	ExpiresAt    int64                  `json:"expiresAt"`
	Cluster      control.Cluster        `json:"cluster"`
	Objects      int64                  `json:"objects"`
	Bytes        int64                  `json:"bytes"`
	MaxObjects   int64                  `json:"maxObjects"`
	MaxBytes     int64                  `json:"maxBytes"`
	RecentErrors []control.RequestError `json:"recentErrors"` // core/requestlog's Failures
	Progress     control.Progress       `json:"progress"`     // what the attendee's page last put
}

// info is the protocol's Info of sandbox r from its object's answer.
func (s sandboxInfo) info(r registered) control.Info {
	nodes := 0
	if !s.Cluster.APIOnly() {
		nodes = s.Cluster.Nodes
		if nodes == 0 {
			nodes = clustermode.Default.Nodes
		}
	}
	mode := "simulated"
	if s.Cluster.APIOnly() {
		mode = "api-only"
	}
	errs := s.RecentErrors
	if errs == nil {
		errs = []control.RequestError{}
	}
	progress := s.Progress
	if progress.Exercises == nil {
		progress.Exercises = map[string]bool{}
	}
	return control.Info{
		ID: r.ID, Label: r.Label, Workshop: r.Workshop,
		CreatedAt: unixMilli(s.CreatedAt), LastActiveAt: unixMilli(s.LastActiveAt), ExpiresAt: unixMilli(s.ExpiresAt),
		Mode: mode, Nodes: nodes, Objects: s.Objects,
		Budget:       control.Budget{Bytes: s.Bytes, MaxBytes: s.MaxBytes, Objects: s.Objects, MaxObjects: s.MaxObjects},
		Progress:     progress,
		RecentErrors: errs,
	}
}

func unixMilli(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// register lists the instructor's sandboxes among specs in the Registry.
func register(ctx context.Context, specs []control.Spec) error {
	var rows []registered
	for _, s := range specs {
		if s.Listed {
			rows = append(rows, registered{ID: s.ID, Label: s.Label, Workshop: s.Workshop, Token: s.Token, CreatedAt: s.CreatedAt.UnixMilli()})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	_, err := registry(ctx, http.MethodPost, "/add", map[string]any{"sandboxes": rows}, http.StatusNoContent)
	return err
}

// List is the listed sandboxes' Info, asked of their objects at once.
func (fleet) List(ctx context.Context) ([]control.Info, error) {
	rows, err := listed(ctx)
	if err != nil {
		return nil, err
	}
	infos := make([]control.Info, len(rows))
	errs := make([]error, len(rows))
	var wg sync.WaitGroup
	for i, r := range rows {
		wg.Go(func() { infos[i], errs[i] = infoOf(ctx, r) })
	}
	wg.Wait()
	out := infos[:0]
	for i, err := range errs {
		switch {
		case errors.Is(err, control.ErrNotFound):
			// Its object is gone: it leaves the list.
			_, _ = registry(ctx, http.MethodPost, "/remove", map[string]string{"id": rows[i].ID}, http.StatusNoContent)
		case err != nil:
			return nil, err
		default:
			out = append(out, infos[i])
		}
	}
	return out, nil
}

// Info is one sandbox's, labelled when it is listed.
func (fleet) Info(ctx context.Context, id string) (control.Info, error) {
	r, err := find(ctx, id)
	if err != nil {
		return control.Info{}, err
	}
	return infoOf(ctx, r)
}

// Credentials are the listed sandboxes' ids, labels and tokens.
func (fleet) Credentials(ctx context.Context) ([]control.Credential, error) {
	rows, err := listed(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]control.Credential, len(rows))
	for i, r := range rows {
		out[i] = control.Credential{ID: r.ID, Label: r.Label, Token: r.Token}
	}
	return out, nil
}

// Reset empties the sandbox: its object drops its core and storage but for
// its token and cluster.
func (fleet) Reset(ctx context.Context, id string) (control.Info, error) {
	r, err := find(ctx, id)
	if err != nil {
		return control.Info{}, err
	}
	var s sandboxInfo
	if err := sandboxCall(ctx, id, http.MethodPost, "/reset", nil, http.StatusOK, &s); err != nil {
		return control.Info{}, err
	}
	return s.info(r), nil
}

// NewToken gives the sandbox token's hash to its object, and the token to
// the Registry when it lists it.
func (fleet) NewToken(ctx context.Context, id, token string) error {
	if err := sandboxCall(ctx, id, http.MethodPost, "/token", map[string]string{"tokenHash": control.TokenHash(token)}, http.StatusNoContent, nil); err != nil {
		return err
	}
	return unlessNotFound(registry(ctx, http.MethodPost, "/token", map[string]string{"id": id, "token": token}, http.StatusNoContent))
}

// Delete deletes the sandbox's object with its storage, and its row.
func (fleet) Delete(ctx context.Context, id string) error {
	if err := sandboxCall(ctx, id, http.MethodDelete, "/", nil, http.StatusNoContent, nil); err != nil {
		return err
	}
	return unlessNotFound(registry(ctx, http.MethodPost, "/remove", map[string]string{"id": id}, http.StatusNoContent))
}

// TokenHash is not asked at the edge: front.mjs hands /s/{id}/... to the
// sandbox's object, which checks its token itself.
func (fleet) TokenHash(string) (string, bool) { return "", false }

// SetProgress is not asked at the edge either: the sandbox's object answers
// /s/{id}/kubeplay/progress itself and tells it in its info.
func (fleet) SetProgress(context.Context, string, control.Progress) error {
	return errors.New("the edge's sandbox objects keep their own progress")
}

// Route is not asked at the edge either (see TokenHash).
func (fleet) Route(w http.ResponseWriter, _ *http.Request, _ string, _ control.Access) {
	w.WriteHeader(http.StatusNotFound)
}

// infoOf asks r's object for its state.
func infoOf(ctx context.Context, r registered) (control.Info, error) {
	var s sandboxInfo
	if err := sandboxCall(ctx, r.ID, http.MethodGet, "/info", nil, http.StatusOK, &s); err != nil {
		return control.Info{}, err
	}
	return s.info(r), nil
}

// listed is the Registry's rows, oldest first.
func listed(ctx context.Context) ([]registered, error) {
	body, err := registry(ctx, http.MethodGet, "/list", nil, http.StatusOK)
	if err != nil {
		return nil, err
	}
	var list struct {
		Sandboxes []registered `json:"sandboxes"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("the registry's list: %w", err)
	}
	return list.Sandboxes, nil
}

// find is sandbox id's row, or one with its id alone when it is not listed
// (anyone's sandbox).
func find(ctx context.Context, id string) (registered, error) {
	rows, err := listed(ctx)
	if err != nil {
		return registered{}, err
	}
	for _, r := range rows {
		if r.ID == id {
			return r, nil
		}
	}
	return registered{ID: id}, nil
}

// unlessNotFound is a registry call's error unless it is ErrNotFound (a
// sandbox it does not list).
func unlessNotFound(_ []byte, err error) error {
	if errors.Is(err, control.ErrNotFound) {
		return nil
	}
	return err
}

// registry calls the Registry object.
func registry(ctx context.Context, method, path string, in any, want int) ([]byte, error) {
	ns, err := cloudflare.NewDurableObjectNamespace("REGISTRY")
	if err != nil {
		return nil, err
	}
	stub, err := ns.Get(ns.IdFromName("instructor"))
	if err != nil {
		return nil, err
	}
	return call(ctx, stub, "the registry", method, path, in, want)
}

// sandboxCall calls sandbox id's object's control path, decoding its answer
// into out when out is not nil.
func sandboxCall(ctx context.Context, id, method, path string, in any, want int, out any) error {
	stub, err := sandboxStub(id)
	if err != nil {
		return err
	}
	body, err := call(ctx, stub, "the sandbox object", method, path, in, want)
	if err != nil || out == nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("the sandbox object's %s: %w", path, err)
	}
	return nil
}

// call sends method https://control<path> with in as JSON to stub; its
// answer must be want (404 is ErrNotFound).
func call(ctx context.Context, stub *cloudflare.DurableObjectStub, who, method, path string, in any, want int) ([]byte, error) {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, _ := http.NewRequestWithContext(ctx, method, "https://control"+path, body)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := stub.Fetch(req)
	if err != nil {
		return nil, fmt.Errorf("%s did not answer: %w", who, err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNoContent && want == http.StatusNoContent {
		return nil, nil // no body (syumai/workers' reader of a null body panics)
	}
	out, err := io.ReadAll(res.Body)
	switch {
	case err != nil:
		return nil, err
	case res.StatusCode == http.StatusNotFound:
		return nil, control.ErrNotFound
	case res.StatusCode != want:
		return nil, fmt.Errorf("%s answered %d to %s %s: %s", who, res.StatusCode, method, path, bytes.TrimSpace(out))
	}
	return out, nil
}
