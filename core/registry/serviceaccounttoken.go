package registry

import (
	"encoding/base64"
	"fmt"
	"sync"
	"time"

	"kubeplay/core/apierrors"
	"kubeplay/core/auth"
	"kubeplay/core/field"
	"kubeplay/core/object"
	"kubeplay/core/types"
	"kubeplay/core/user"
)

// Service account tokens: a TokenRequest (serviceaccounts/token, `kubectl
// create token`) is answered with a token the sandbox's key signs
// (core/auth's), and a token is authenticated, as kube's service account
// authenticator does, only while its service account (and the object it
// is bound to) still exists with the uid it names.
//
// kube-apiserver reads its key from a file; the sandbox keeps its key in
// the Secret kube-system/kubeplay-service-account-key, made when a token is
// first asked for, so that tokens outlive a restart of the sandbox. Only
// those who may read Secrets in kube-system (cluster-admins) see it, and
// they may ask for any account's token anyway.

const (
	tokenKeySecret = "kubeplay-service-account-key"
	tokenKeyField  = "key.der"
)

// tokenKeys caches the sandbox's key.
type tokenKeys struct {
	mu     sync.Mutex
	key    *auth.TokenKey
	stored string // the Secret, as stored, the key was read from
}

// tokenKey is the sandbox's key: the one kept, or a new one, kept now when
// create is set (nil, nil when there is none and none is to be made).
func (s *Store) tokenKey(create bool) (*auth.TokenKey, error) {
	secrets := s.schema.Lookup("", "v1", "secrets")
	s.tokens.mu.Lock()
	defer s.tokens.mu.Unlock()
	for range 2 {
		if raw, ok := s.Current(secrets, "kube-system", tokenKeySecret); ok {
			if s.tokens.key != nil && string(raw) == s.tokens.stored {
				return s.tokens.key, nil // the Secret is decoded again only when it changes
			}
			obj, err := object.Decode(raw)
			if err != nil {
				return nil, apierrors.NewInternal(err)
			}
			der := object.String(object.Child(obj, "data")[tokenKeyField])
			b, err := base64.StdEncoding.DecodeString(der)
			if err != nil {
				return nil, apierrors.NewInternal(err)
			}
			k, err := auth.ParseTokenKey(b)
			if err != nil {
				return nil, apierrors.NewInternal(fmt.Errorf("the service account key in kube-system/%s: %w", tokenKeySecret, err))
			}
			s.tokens.key, s.tokens.stored = k, string(raw)
			return k, nil
		}
		if !create {
			return nil, nil
		}
		_, der, err := auth.NewTokenKey()
		if err != nil {
			return nil, apierrors.NewInternal(err)
		}
		secret := object.Object{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
			"metadata": map[string]any{"name": tokenKeySecret, "namespace": "kube-system"},
			"data":     map[string]any{tokenKeyField: base64.StdEncoding.EncodeToString(der)}}
		if _, err := s.Create(Target{Res: secrets, Namespace: "kube-system", Manager: "kube-apiserver", User: user.APIServer}, secret); err != nil && !apierrors.HasCode(err, 409) {
			return nil, err
		}
	}
	return nil, apierrors.NewInternal(fmt.Errorf("no service account key"))
}

// boundKinds are the objects a token may be bound to.
var boundKinds = map[string]string{"Pod": "pods", "Secret": "secrets", "Node": "nodes"}

// CreateToken answers a TokenRequest for the service account t names, as
// kube's TokenREST: its audiences (the API's by default) and lifetime
// (an hour by default, ten minutes at least), bound to a Pod, Secret or
// Node of the account's namespace when the request says so.
func (s *Store) CreateToken(t Target, req object.Object) ([]byte, error) {
	spec := object.Child(req, "spec")
	if spec["expirationSeconds"] == nil {
		spec["expirationSeconds"] = int64(3600)
	}
	if len(object.Strings(spec, "audiences")) == 0 {
		object.SetStrings(spec, "audiences", []string{auth.Issuer})
	}
	if _, ok := spec["boundObjectRef"]; !ok {
		spec["boundObjectRef"] = nil
	}
	exp := object.Int(spec["expirationSeconds"])
	p := field.NewPath("spec", "expirationSeconds")
	switch {
	case exp < 600:
		return nil, apierrors.NewInvalid("authentication.k8s.io", "TokenRequest", "", field.ErrorList{field.Invalid(p, exp, "may not specify a duration less than 10 minutes")})
	case exp > 1<<32:
		return nil, apierrors.NewInvalid("authentication.k8s.io", "TokenRequest", "", field.ErrorList{field.Invalid(p, exp, "may not specify a duration larger than 2^32 seconds")})
	}
	raw, ok := s.Current(t.Res, t.Namespace, t.Name)
	if !ok {
		return nil, apierrors.NewNotFound("", "serviceaccounts", t.Name)
	}
	sa, err := object.Decode(raw)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	now := s.clock.Now()
	c := auth.TokenClaims{Audiences: object.Strings(spec, "audiences"), Issued: now, Expires: now.Add(time.Duration(exp) * time.Second),
		ID: object.NewUID(), Namespace: t.Namespace, Account: t.Name, AccountUID: object.MetaString(sa, "uid")}
	if ref, ok := spec["boundObjectRef"].(map[string]any); ok {
		if err := s.bindToken(&c, ref); err != nil {
			return nil, err
		}
	}
	key, err := s.tokenKey(true)
	if err != nil {
		return nil, err
	}
	token, err := key.Sign(c)
	if err != nil {
		return nil, apierrors.NewInternal(err)
	}
	answer := object.Object{"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
		"metadata": map[string]any{"name": t.Name, "namespace": t.Namespace, "creationTimestamp": object.Timestamp(now)},
		"spec":     spec,
		"status":   map[string]any{"token": token, "expirationTimestamp": object.Timestamp(c.Expires)}}
	return object.EncodeOrdered(answer, types.Order("authentication.k8s.io/v1", "TokenRequest"))
}

// bindToken binds c to the object ref names, which must exist (with the
// uid it gives, if any); a Pod's node is named too, as kube 1.32 does.
func (s *Store) bindToken(c *auth.TokenClaims, ref map[string]any) error {
	kind, name := object.String(ref["kind"]), object.String(ref["name"])
	plural, ok := boundKinds[kind]
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to object of type %s", c.Account, kind))
	}
	obj, uid, err := s.boundObject(plural, c.Namespace, name)
	if err != nil {
		return err
	}
	if want := object.String(ref["uid"]); want != "" && want != uid {
		return apierrors.NewConflict("", plural, name, fmt.Sprintf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", want))
	}
	switch kind {
	case "Pod":
		c.PodName, c.PodUID = name, uid
		if node := object.String(object.Path(obj, "spec", "nodeName")); node != "" {
			if _, nodeUID, err := s.boundObject("nodes", "", node); err == nil {
				c.NodeName, c.NodeUID = node, nodeUID
			}
		}
	case "Secret":
		c.SecretName, c.SecretUID = name, uid
	case "Node":
		c.NodeName, c.NodeUID = name, uid
	}
	return nil
}

func (s *Store) boundObject(plural, namespace, name string) (object.Object, string, error) {
	res := s.schema.Lookup("", "v1", plural)
	if !res.Namespaced {
		namespace = ""
	}
	raw, ok := s.Current(res, namespace, name)
	if !ok {
		return nil, "", apierrors.NewNotFound("", plural, name)
	}
	obj, err := object.Decode(raw)
	if err != nil {
		return nil, "", apierrors.NewInternal(err)
	}
	return obj, object.MetaString(obj, "uid"), nil
}

// AuthenticateToken is who a service account token is from, for audiences
// (nil: the API's): a token the sandbox's key signed, not expired, for one
// of the audiences, whose account and bound object still exist as named.
func (s *Store) AuthenticateToken(token string, audiences []string) (user.User, []string, error) {
	key, err := s.tokenKey(false)
	if err != nil || key == nil {
		return user.User{}, nil, auth.ErrInvalidToken
	}
	invalid := func(err error) (user.User, []string, error) { return user.User{}, nil, err }
	c, err := key.Verify(token, s.clock.Now())
	if err != nil {
		return invalid(err)
	}
	both, err := auth.AudiencesFor(c.Audiences, audiences)
	if err != nil {
		return invalid(err)
	}
	_, uid, err := s.boundObject("serviceaccounts", c.Namespace, c.Account)
	if err != nil {
		return invalid(err)
	}
	if uid != c.AccountUID {
		return invalid(fmt.Errorf("service account UID (%s) does not match claim (%s)", uid, c.AccountUID))
	}
	for _, b := range []struct{ plural, name, uid string }{{"pods", c.PodName, c.PodUID}, {"secrets", c.SecretName, c.SecretUID}} {
		if b.name == "" {
			continue
		}
		if _, uid, err := s.boundObject(b.plural, c.Namespace, b.name); err != nil {
			return invalid(err)
		} else if uid != b.uid {
			return invalid(fmt.Errorf("%s UID (%s) does not match claim (%s)", b.plural, uid, b.uid))
		}
	}
	return auth.TokenUser(c), both, nil
}
