package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"kubeplay/core/object"
	"kubeplay/core/user"
)

// Service account tokens, as kube-apiserver issues them for a TokenRequest
// (`kubectl create token`) and checks them: JWTs its service account key
// signs, naming the account (and the object the token is bound to), for
// audiences, until they expire. kube signs with the algorithm of its key
// (kubeadm's is RSA: RS256); the sandbox's key is P-256, so its tokens are
// ES256, which kube-apiserver accepts alike.

// Issuer is the sandbox's --service-account-issuer (kubeadm's): its tokens'
// iss, and the API's audience, which a token must name to authenticate.
const Issuer = "https://kubernetes.default.svc.cluster.local"

// TokenKey signs and verifies service account tokens.
type TokenKey struct {
	priv *ecdsa.PrivateKey
	kid  string
}

// NewTokenKey is a fresh key, and its PKCS#8 form to keep.
func NewTokenKey() (*TokenKey, []byte, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, err
	}
	k, err := ParseTokenKey(der)
	return k, der, err
}

// ParseTokenKey reads a key kept in PKCS#8 form.
func ParseTokenKey(der []byte) (*TokenKey, error) {
	key, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, err
	}
	priv, ok := key.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return nil, errors.New("not a P-256 key")
	}
	pub, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		return nil, err
	}
	// kube's key id: the SHA-256 of the public key's DER, base64url.
	sum := sha256.Sum256(pub)
	return &TokenKey{priv: priv, kid: base64.RawURLEncoding.EncodeToString(sum[:])}, nil
}

// TokenClaims are what a service account token says.
type TokenClaims struct {
	Audiences           []string
	Issued, Expires     time.Time
	ID                  string // jti
	Namespace           string
	Account, AccountUID string
	PodName, PodUID     string // the Pod it is bound to, if any
	SecretName          string // the Secret it is bound to, if any
	SecretUID           string
	NodeName, NodeUID   string // the Node it (or its Pod) is bound to, if any
}

// Sign is the token of c.
func (k *TokenKey) Sign(c TokenClaims) (string, error) {
	private := map[string]any{"namespace": c.Namespace, "serviceaccount": map[string]any{"name": c.Account, "uid": c.AccountUID}}
	for _, b := range []struct{ field, name, uid string }{{"pod", c.PodName, c.PodUID}, {"secret", c.SecretName, c.SecretUID}, {"node", c.NodeName, c.NodeUID}} {
		if b.name != "" {
			private[b.field] = map[string]any{"name": b.name, "uid": b.uid}
		}
	}
	claims := map[string]any{"aud": c.Audiences, "exp": c.Expires.Unix(), "iat": c.Issued.Unix(), "nbf": c.Issued.Unix(),
		"iss": Issuer, "jti": c.ID, "sub": user.ServiceAccountPrefix + c.Namespace + ":" + c.Account, "kubernetes.io": private}
	header, err := json.Marshal(map[string]string{"alg": "ES256", "kid": k.kid})
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signing := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(payload)
	digest := sha256.Sum256([]byte(signing))
	r, s, err := ecdsa.Sign(rand.Reader, k.priv, digest[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// Verify checks token's signature, issuer and times at now, and reads it.
func (k *TokenKey) Verify(token string, now time.Time) (TokenClaims, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return TokenClaims{}, ErrInvalidToken
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return TokenClaims{}, ErrInvalidToken
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(&k.priv.PublicKey, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return TokenClaims{}, ErrInvalidToken
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return TokenClaims{}, ErrInvalidToken
	}
	m, err := object.Decode(payload)
	if err != nil || object.String(m["iss"]) != Issuer {
		return TokenClaims{}, ErrInvalidToken
	}
	private, _ := m["kubernetes.io"].(map[string]any)
	c := TokenClaims{ID: object.String(m["jti"]), Namespace: object.String(private["namespace"]),
		Issued: time.Unix(object.Int(m["iat"]), 0), Expires: time.Unix(object.Int(m["exp"]), 0)}
	c.Audiences = object.Strings(m, "aud")
	read := func(field string) (string, string) {
		b, _ := private[field].(map[string]any)
		return object.String(b["name"]), object.String(b["uid"])
	}
	c.Account, c.AccountUID = read("serviceaccount")
	c.PodName, c.PodUID = read("pod")
	c.SecretName, c.SecretUID = read("secret")
	c.NodeName, c.NodeUID = read("node")
	if c.Account == "" || c.Namespace == "" {
		return TokenClaims{}, ErrInvalidToken
	}
	if now.After(c.Expires) {
		return TokenClaims{}, errors.New("service account token has expired")
	}
	if nbf := time.Unix(object.Int(m["nbf"]), 0); now.Before(nbf.Add(-time.Minute)) {
		return TokenClaims{}, errors.New("service account token is not valid yet")
	}
	return c, nil
}

// AudiencesFor are the audiences of want a token for have serves (want
// nil: the API's), or kube's error when it serves none.
func AudiencesFor(have, want []string) ([]string, error) {
	if len(want) == 0 {
		want = []string{Issuer}
	}
	var both []string
	for _, a := range want {
		if slices.Contains(have, a) {
			both = append(both, a)
		}
	}
	if len(both) == 0 {
		return nil, fmt.Errorf("token audiences %q is invalid for the target audiences %q", have, want)
	}
	return both, nil
}

// TokenUser is who a verified token is from: the account, in its groups,
// with kube's extras (the token's id, and the object it is bound to).
func TokenUser(c TokenClaims) user.User {
	u := user.ServiceAccount(c.Namespace, c.Account)
	u.UID = c.AccountUID
	u.Extra = map[string][]string{"authentication.kubernetes.io/credential-id": {"JTI=" + c.ID}}
	for _, e := range []struct{ key, v string }{{"pod-name", c.PodName}, {"pod-uid", c.PodUID}, {"node-name", c.NodeName}, {"node-uid", c.NodeUID}} {
		if e.v != "" {
			u.Extra["authentication.kubernetes.io/"+e.key] = []string{e.v}
		}
	}
	return u
}

// TokenAuthenticator authenticates service account tokens: who a token is
// from, for audiences (nil: the API's), and the audiences it serves; the
// error says why not: ErrInvalidToken for a token it does not know, or what
// is wrong with one it does.
type TokenAuthenticator interface {
	AuthenticateToken(token string, audiences []string) (user.User, []string, error)
}

// tokenError words why a token does not authenticate, as kube's union of
// authenticators does: "invalid bearer token" alone when no authenticator
// knows it, else with the error of the one that does.
func tokenError(err error) string {
	if errors.Is(err, ErrInvalidToken) {
		return ErrInvalidToken.Error()
	}
	return fmt.Sprintf("[%v, %v]", ErrInvalidToken, err)
}
