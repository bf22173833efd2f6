//go:build js && wasm

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/syumai/workers/cloudflare"

	"kubeplay/core/apierrors"
	"kubeplay/core/export"
	"kubeplay/internal/control"
)

// Defaults for the Worker's variables (wrangler vars or workerd text bindings).
const (
	defaultCreateLimitPerHour = 10
	defaultSandboxTTL         = 24 * time.Hour
	defaultSandboxIdle        = 2 * time.Hour
)

// fleet is the edge's sandboxes: one Durable Object each (SANDBOX), which
// keeps its token's hash and its cluster and checks requests itself, and the
// Registry object (REGISTRY) listing the instructor's (fleet.go).
type fleet struct{}

// Create creates each sandbox's object, to expire after SANDBOX_TTL_SECONDS.
func (fleet) Create(ctx context.Context, specs []control.Spec) error {
	idle := int(envDuration("SANDBOX_IDLE_SECONDS", defaultSandboxIdle).Seconds())
	ttl := envDuration("SANDBOX_TTL_SECONDS", defaultSandboxTTL)
	for i := range specs {
		s := &specs[i]
		s.ExpiresAt = s.CreatedAt.Add(ttl)
		record, _ := json.Marshal(map[string]any{
			"tokenHash":   control.TokenHash(s.Token),
			"expiresAt":   s.ExpiresAt.UnixMilli(),
			"idleSeconds": idle,
			"cluster":     s.Cluster,
		})
		stub, err := sandboxStub(s.ID)
		if err != nil {
			return err
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "https://control/create", bytes.NewReader(record))
		req.Header.Set("Content-Type", "application/json")
		res, err := stub.Fetch(req)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			return fmt.Errorf("the sandbox object answered %d to its creation", res.StatusCode)
		}
		if s.State != nil {
			// The state (an export control checked whole) is imported as
			// the attendee would import it: the object checks it again and
			// keeps its snapshot; its core starts from it on first use.
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "https://control/s/"+s.ID+export.ImportPath, bytes.NewReader(s.State))
			req.Header.Set("Authorization", "Bearer "+s.Token)
			req.Header.Set("Content-Type", export.MediaType)
			res, err := stub.Fetch(req)
			if err != nil {
				return err
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				return fmt.Errorf("the sandbox object answered %d to its state's import", res.StatusCode)
			}
		}
	}
	return register(ctx, specs)
}

// takeCreationAllowance counts one creation against the caller's hourly limit,
// kept by the caller's CreationLimiter object.
func takeCreationAllowance(r *http.Request) *apierrors.Status {
	caller := callerKey(r.Header.Get("CF-Connecting-IP"))
	ns, err := cloudflare.NewDurableObjectNamespace("LIMITER")
	if err != nil {
		return apierrors.NewInternal(err)
	}
	stub, err := ns.Get(ns.IdFromName("create:" + caller))
	if err != nil {
		return apierrors.NewInternal(err)
	}
	limit := envInt("CREATE_LIMIT_PER_HOUR", defaultCreateLimitPerHour)
	req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost,
		"https://control/take?limit="+strconv.Itoa(limit)+"&window=3600", nil)
	res, err := stub.Fetch(req)
	if err != nil {
		return apierrors.NewServiceUnavailable("the creation limiter did not answer: " + err.Error())
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusOK {
		return nil
	}
	var refusal struct {
		RetryAfterSeconds int32 `json:"retryAfterSeconds"`
	}
	if res.StatusCode != http.StatusTooManyRequests || json.NewDecoder(res.Body).Decode(&refusal) != nil {
		return apierrors.NewInternal(fmt.Errorf("creation limiter answered %d", res.StatusCode))
	}
	return apierrors.New(http.StatusTooManyRequests, "TooManyRequests", "too many sandboxes created from this address, please try again later",
		&apierrors.StatusDetails{RetryAfterSeconds: refusal.RetryAfterSeconds})
}

// sandboxStub returns the Durable Object of sandbox id.
func sandboxStub(id string) (*cloudflare.DurableObjectStub, error) {
	ns, err := cloudflare.NewDurableObjectNamespace("SANDBOX")
	if err != nil {
		return nil, err
	}
	return ns.Get(ns.IdFromName(id))
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
