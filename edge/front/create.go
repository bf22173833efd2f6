//go:build js && wasm

package main

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/syumai/workers/cloudflare"

	"kubeplay/wasm/clustermode"
)

// Defaults for the Worker's variables (wrangler vars or workerd text bindings).
const (
	defaultCreateLimitPerHour = 10
	defaultSandboxTTL         = 24 * time.Hour
	defaultSandboxIdle        = 2 * time.Hour
	maxWorkshopAttendees      = 100
	maxCreationRequestBytes   = 4 << 10
)

// clusterRequest is what a sandbox runs besides the API (SIM-5): "simulated"
// (nodes, kubelets, scheduler and controllers; the default) or "api-only",
// the simulated cluster's node count (0: its default) and speed factor (0:
// real time).
type clusterRequest struct {
	Mode  string  `json:"mode,omitempty"`
	Nodes int     `json:"nodes,omitempty"`
	Speed float64 `json:"speed,omitempty"`
}

// sandboxRequest is the body of POST /sandboxes.
type sandboxRequest struct {
	Cluster *clusterRequest `json:"cluster,omitempty"`
}

// check says what is wrong with c, if anything.
func (c *clusterRequest) check() *status {
	switch {
	case c == nil:
		return nil
	case c.Mode != "" && c.Mode != "simulated" && c.Mode != "api-only":
		return errBadRequest(`cluster.mode must be "simulated" or "api-only"`)
	case c.Nodes < 0 || c.Nodes > clustermode.MaxNodes:
		return errBadRequest(fmt.Sprintf("cluster.nodes must be between 0 (the default, %d) and %d", clustermode.Default.Nodes, clustermode.MaxNodes))
	case c.Speed < 0 || c.Speed > clustermode.MaxSpeed:
		return errBadRequest(fmt.Sprintf("cluster.speed must be between 0 and %g", clustermode.MaxSpeed))
	}
	return nil
}

// sandboxCreated is what creating a sandbox answers; the token is shown only here.
type sandboxCreated struct {
	ID         string    `json:"id"`
	Token      string    `json:"token"`
	Server     string    `json:"server"`
	ExpiresAt  time.Time `json:"expiresAt"`
	Playground string    `json:"playground"`
	Kubeconfig string    `json:"kubeconfig"`
}

type workshopRequest struct {
	Attendees int             `json:"attendees"`
	Cluster   *clusterRequest `json:"cluster,omitempty"`
}

type workshopCreated struct {
	Sandboxes []sandboxCreated `json:"sandboxes"`
}

// createSandbox answers POST /sandboxes (an empty body, {}, or what the
// sandbox's cluster is: {"cluster": {"mode": "api-only"}}), one per call and
// a limited number per caller and hour.
func createSandbox(w http.ResponseWriter, r *http.Request) {
	var req sandboxRequest
	if failure := decodeCreationRequest(r, &req); failure != nil {
		writeStatus(w, failure)
		return
	}
	if failure := req.Cluster.check(); failure != nil {
		writeStatus(w, failure)
		return
	}
	if failure := takeCreationAllowance(r); failure != nil {
		writeStatus(w, failure)
		return
	}
	created, err := newSandbox(r, req.Cluster)
	if err != nil {
		writeStatus(w, errInternal(err))
		return
	}
	writeJSON(w, http.StatusCreated, created)
}

// createWorkshop answers POST /workshops {"attendees": N} for the instructor
// token (INSTRUCTOR_TOKEN) with N sandboxes, each with its kubeconfig and link.
func createWorkshop(w http.ResponseWriter, r *http.Request) {
	instructor := cloudflare.Getenv("INSTRUCTOR_TOKEN")
	if instructor == "" {
		writeStatus(w, errForbidden("workshop mode is not enabled on this deployment (set INSTRUCTOR_TOKEN)"))
		return
	}
	if !bearerEquals(r.Header.Get("Authorization"), instructor) {
		writeStatus(w, errUnauthorized())
		return
	}
	var req workshopRequest
	if failure := decodeCreationRequest(r, &req); failure != nil {
		writeStatus(w, failure)
		return
	}
	if req.Attendees < 1 || req.Attendees > maxWorkshopAttendees {
		writeStatus(w, errBadRequest(fmt.Sprintf("attendees must be between 1 and %d", maxWorkshopAttendees)))
		return
	}
	if failure := req.Cluster.check(); failure != nil {
		writeStatus(w, failure)
		return
	}
	out := workshopCreated{Sandboxes: make([]sandboxCreated, 0, req.Attendees)}
	for range req.Attendees {
		created, err := newSandbox(r, req.Cluster)
		if err != nil {
			writeStatus(w, errInternal(err))
			return
		}
		out.Sandboxes = append(out.Sandboxes, created)
	}
	writeJSON(w, http.StatusCreated, out)
}

// decodeCreationRequest reads a small JSON object (an empty body counts as {})
// into v, refusing unknown fields.
func decodeCreationRequest(r *http.Request, v any) *status {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxCreationRequestBytes+1))
	if err != nil {
		return errBadRequest("reading the request body: " + err.Error())
	}
	if len(body) > maxCreationRequestBytes {
		return errTooLarge(maxCreationRequestBytes)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errBadRequest("invalid sandbox request: " + err.Error())
	}
	if dec.More() {
		return errBadRequest("invalid sandbox request: trailing data after the JSON object")
	}
	return nil
}

// bearerToken is the token of an Authorization header of the bearer scheme,
// read as kube-apiserver's bearer token authenticator reads it: the scheme in
// any case, then one space, then the token up to the next space.
func bearerToken(authorization string) (string, bool) {
	scheme, rest, _ := strings.Cut(authorization, " ")
	token, _, _ := strings.Cut(rest, " ")
	return token, strings.EqualFold(scheme, "bearer") && token != ""
}

// bearerEquals compares the bearer token in authorization with want in
// constant time (over their SHA-256, so lengths do not leak either).
func bearerEquals(authorization, want string) bool {
	token, ok := bearerToken(authorization)
	if !ok {
		return false
	}
	got := sha256.Sum256([]byte(token))
	expected := sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(got[:], expected[:]) == 1
}

// takeCreationAllowance counts one creation against the caller's hourly limit,
// kept by the caller's CreationLimiter object.
func takeCreationAllowance(r *http.Request) *status {
	caller := callerKey(r.Header.Get("CF-Connecting-IP"))
	ns, err := cloudflare.NewDurableObjectNamespace("LIMITER")
	if err != nil {
		return errInternal(err)
	}
	stub, err := ns.Get(ns.IdFromName("create:" + caller))
	if err != nil {
		return errInternal(err)
	}
	limit := envInt("CREATE_LIMIT_PER_HOUR", defaultCreateLimitPerHour)
	req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost,
		"https://control/take?limit="+strconv.Itoa(limit)+"&window=3600", nil)
	res, err := stub.Fetch(req)
	if err != nil {
		return errUnavailable("the creation limiter did not answer: " + err.Error())
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusOK {
		return nil
	}
	var refusal struct {
		RetryAfterSeconds int `json:"retryAfterSeconds"`
	}
	if res.StatusCode != http.StatusTooManyRequests || json.NewDecoder(res.Body).Decode(&refusal) != nil {
		return errInternal(fmt.Errorf("creation limiter answered %d", res.StatusCode))
	}
	return errTooManyRequests(refusal.RetryAfterSeconds)
}

// sandboxStub returns the Durable Object of sandbox id.
func sandboxStub(id string) (*cloudflare.DurableObjectStub, error) {
	ns, err := cloudflare.NewDurableObjectNamespace("SANDBOX")
	if err != nil {
		return nil, err
	}
	return ns.Get(ns.IdFromName(id))
}

// newSandbox creates a sandbox object with a fresh id and token, running
// cluster (nil: the default), and describes it.
func newSandbox(r *http.Request, cluster *clusterRequest) (sandboxCreated, error) {
	id, token := randomText(16, hex.EncodeToString), randomText(32, base64.RawURLEncoding.EncodeToString)
	hash := sha256.Sum256([]byte(token))
	now := time.Now()
	expiresAt := now.Add(envDuration("SANDBOX_TTL_SECONDS", defaultSandboxTTL)).Truncate(time.Second)
	record, _ := json.Marshal(map[string]any{
		"tokenHash":   hex.EncodeToString(hash[:]),
		"expiresAt":   expiresAt.UnixMilli(),
		"idleSeconds": int(envDuration("SANDBOX_IDLE_SECONDS", defaultSandboxIdle).Seconds()),
		"cluster":     cluster,
	})
	stub, err := sandboxStub(id)
	if err != nil {
		return sandboxCreated{}, err
	}
	req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, "https://control/create", bytes.NewReader(record))
	req.Header.Set("Content-Type", "application/json")
	res, err := stub.Fetch(req)
	if err != nil {
		return sandboxCreated{}, err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		return sandboxCreated{}, fmt.Errorf("the sandbox object answered %d to its creation", res.StatusCode)
	}
	origin := requestOrigin(r)
	server := origin + "/s/" + id
	return sandboxCreated{
		ID:         id,
		Token:      token,
		Server:     server,
		ExpiresAt:  expiresAt.UTC(),
		Playground: origin + "/#" + url.Values{"target": {"remote"}, "url": {server}, "token": {token}}.Encode(),
		Kubeconfig: kubeconfig(id, server, token),
	}, nil
}

// kubeconfig is a kubeconfig for one sandbox.
func kubeconfig(id, server, token string) string {
	name := "kubeplay-" + id[:8]
	return "apiVersion: v1\nkind: Config\nclusters:\n- name: " + name + "\n  cluster:\n    server: " + server +
		"\nusers:\n- name: " + name + "\n  user:\n    token: " + token +
		"\ncontexts:\n- name: " + name + "\n  context:\n    cluster: " + name + "\n    user: " + name +
		"\n    namespace: default\ncurrent-context: " + name + "\n"
}

// requestOrigin is scheme://host of the request as the caller addressed it.
func requestOrigin(r *http.Request) string {
	scheme := r.URL.Scheme
	if scheme == "" {
		scheme = "https"
	}
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	return scheme + "://" + host
}

func randomText(n int, encode func([]byte) string) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it panics instead)
	return encode(b)
}

func envInt(name string, fallback int) int {
	if n, err := strconv.Atoi(cloudflare.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return fallback
}

func envDuration(name string, fallback time.Duration) time.Duration {
	return time.Duration(envInt(name, int(fallback/time.Second))) * time.Second
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	body, _ := json.MarshalIndent(v, "", "  ")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}

// callerKey is whom a creation is counted against: an IPv4 address, or the
// /64 of an IPv6 one (one subscriber's network: its hosts rotate addresses
// within it at will).
func callerKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	switch {
	case err != nil:
		return "unknown"
	case addr.Is4() || addr.Is4In6():
		return addr.Unmap().String()
	}
	p, _ := addr.WithZone("").Prefix(64)
	return p.String()
}
