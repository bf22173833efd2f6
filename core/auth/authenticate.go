package auth

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"kubeplay/core/apierrors"
	"kubeplay/core/requestlog"
	"kubeplay/core/user"
	"kubeplay/core/web"
)

// Tokens is a static token table: bearer token → user.
type Tokens map[string]user.User

// ParseTokens reads kube-apiserver's --token-file format: CSV lines
// `token,user,uid[,"group1,group2"]`; a line with an empty token is skipped, as
// kube skips it. name is the file's name, for kube's error message.
func ParseTokens(name string, r io.Reader) (Tokens, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	tokens := Tokens{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return tokens, nil
		}
		if err != nil {
			return nil, err
		}
		if len(rec) < 3 {
			return nil, fmt.Errorf("token file '%s' must have at least 3 columns (token, user name, user uid), found %d", name, len(rec))
		}
		if rec[0] == "" {
			continue
		}
		u := user.User{Name: rec[1], UID: rec[2]}
		if len(rec) >= 4 {
			u.Groups = strings.Split(rec[3], ",")
		}
		tokens[rec[0]] = u
	}
}

// DefaultTokens is the sandbox's token table, in --token-file format. `kubeplay`
// is the token of the kubeconfig the native command writes: kubeadm's
// kubernetes-admin, whose group is not system:masters, so its requests are
// classified by API Priority and Fairness like any user's (global-default);
// the super-admin is system:masters (exempt), as kubeadm's super-admin.conf.
const DefaultTokens = `kubeplay,kubernetes-admin,kubernetes-admin,"kubeadm:cluster-admins"
kubeplay-super-admin,kubernetes-super-admin,kubernetes-super-admin,"system:masters"
kubeplay-node,system:node:node-1,node-1,"system:nodes"
kubeplay-sa,system:serviceaccount:default:default,default-sa,"system:serviceaccounts,system:serviceaccounts:default"
`

// Admin is the sandbox's own user: kubernetes-admin, the holder of the
// token kubeplay, in kubeadm:cluster-admins (bound to cluster-admin by the
// bootstrap policy, as kubeadm binds it) and system:authenticated.
func Admin() user.User {
	u := Defaults()["kubeplay"]
	u.Groups = append(u.Groups, user.AllAuthenticated)
	return u
}

// Defaults is DefaultTokens read.
func Defaults() Tokens {
	t, err := ParseTokens("defaults", strings.NewReader(DefaultTokens))
	if err != nil {
		panic(err)
	}
	return t
}

// Authenticator is the authentication filter: it gives every request its user.
type Authenticator struct{ opts Options }

// Options configure an Authenticator.
type Options struct {
	// Tokens is the bearer token table.
	Tokens Tokens
	// Anonymous serves a request without a token as system:anonymous; else
	// it is 401 Unauthorized, as kube-apiserver's --anonymous-auth=false
	// answers it.
	Anonymous bool
	// Tokenless, when set, is who a request without a token acts as in
	// place of system:anonymous: the sandbox's own user, on a listener only
	// its owner reaches (the native command's plain-HTTP loopback one, the
	// browser's service worker), where kubectl sends no token.
	Tokenless *user.User
	// Authorizer decides who may impersonate whom; nil allows everyone.
	Authorizer Authorizer
	// ServiceAccounts authenticates the tokens the table does not know as
	// service account tokens (core/registry's); nil knows none.
	ServiceAccounts TokenAuthenticator
}

// NewAuthenticator authenticates requests as opts say.
func NewAuthenticator(opts Options) *Authenticator {
	if opts.Authorizer == nil {
		opts.Authorizer = AlwaysAllow{}
	}
	return &Authenticator{opts: opts}
}

type wireKey struct{}

// fromWire says whether the authenticator gave r its user (not an in-process
// caller, who names itself).
func fromWire(r *web.Request) bool { wire, _ := r.Context().Value(wireKey{}).(bool); return wire }

// Filter sets the request's user, as kube-apiserver's WithAuthentication and
// WithImpersonation do. A user already in the context (an in-process caller's)
// stands; otherwise a bearer token names it, a token the table does not know is
// 401 Unauthorized, and a request without one is system:anonymous (or
// Options.Tokenless, or 401 when anonymous requests are not allowed).
// Authenticated users are in system:authenticated. Impersonation headers then
// replace the user, each thing they ask for authorized first (the verb
// impersonate), as kube's WithImpersonation does: a refusal is kube's 403.
func (a *Authenticator) Filter(next web.Handler) web.Handler {
	return web.HandlerFunc(func(w web.ResponseWriter, r *web.Request) {
		ctx := r.Context()
		u, ok := user.From(ctx)
		if !ok {
			var err error
			if u, err = a.authenticate(r); err != nil {
				apierrors.Write(w, apierrors.NewUnauthorized())
				return
			}
		}
		// An in-process caller's request may be made within one from the
		// wire (a load APF's debug handler sends): it is its caller's own.
		ctx = context.WithValue(ctx, wireKey{}, !ok)
		e := requestlog.From(ctx)
		if e != nil {
			e.User, e.Internal = u.Name, ok
		}
		reqs := asked(r.Header)
		as, err := impersonate(reqs, u)
		if err != nil {
			// kube writes this one as plain text, with the request's URI.
			h := w.Header()
			h.Set("Content-Type", "text/plain; charset=utf-8")
			h.Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(web.StatusInternalServerError)
			_, _ = io.WriteString(w, htmlEscaper.Replace(fmt.Sprintf("Internal Server Error: %q: %v", r.URL.RequestURI(), err))+"\n")
			return
		}
		for _, i := range reqs {
			attrs := i.attributes(u)
			if allowed, reason := a.opts.Authorizer.Authorize(attrs); !allowed {
				w.Header().Set("X-Content-Type-Options", "nosniff")
				apierrors.Write(w, Forbidden(attrs, reason))
				return
			}
		}
		for k := range r.Header {
			if strings.HasPrefix(k, "Impersonate-") {
				r.Header.Del(k)
			}
		}
		if e != nil && len(reqs) > 0 {
			e.User, e.ImpersonatedBy = as.Name, u.Name
		}
		next.ServeHTTP(w, r.WithContext(user.WithUser(ctx, as)))
	})
}

// extraKey is the user extra key an Impersonate-Extra-KEY header names:
// lowercase, path-unescaped.
func extraKey(header string) string {
	key := strings.ToLower(header)
	if unescaped, err := url.PathUnescape(key); err == nil {
		return unescaped
	}
	return key
}

// htmlEscaper is kube's sanitizer for plain-text errors.
var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

var (
	// ErrInvalidToken is a token no authenticator knows (kube's words).
	ErrInvalidToken = errors.New("invalid bearer token")
	errNoToken      = errors.New("no bearer token, and anonymous requests are not allowed")
)

// authenticate reads the bearer token as kube's bearertoken authenticator does
// (scheme in any case; an empty token is no token) and removes it.
func (a *Authenticator) authenticate(r *web.Request) (user.User, error) {
	parts := strings.SplitN(strings.TrimSpace(r.Header.Get("Authorization")), " ", 3)
	if len(parts) < 2 || !strings.EqualFold(parts[0], "bearer") || parts[1] == "" {
		switch {
		case a.opts.Tokenless != nil:
			return *a.opts.Tokenless, nil
		case !a.opts.Anonymous:
			return user.User{}, errNoToken
		}
		return user.User{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}, nil
	}
	u, ok := a.opts.Tokens[parts[1]]
	if !ok {
		if a.opts.ServiceAccounts == nil {
			return user.User{}, ErrInvalidToken
		}
		sa, _, err := a.opts.ServiceAccounts.AuthenticateToken(parts[1], nil)
		if err != nil {
			return user.User{}, err
		}
		r.Header.Del("Authorization")
		return sa, nil
	}
	r.Header.Del("Authorization")
	if !u.InGroup(user.AllAuthenticated) {
		u.Groups = append(append([]string(nil), u.Groups...), user.AllAuthenticated)
	}
	return u, nil
}
