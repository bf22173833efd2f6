package control

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// NewID is a fresh sandbox id.
func NewID() string { return randomText(16, hex.EncodeToString) }

// ValidID says whether id is one NewID could have made: 32 lower-case hex
// digits.
func ValidID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range []byte(id) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// NewWorkshopID is a fresh workshop id.
func NewWorkshopID() string { return randomText(8, hex.EncodeToString) }

// NewToken is a fresh sandbox token: 32 random bytes, base64url.
func NewToken() string { return randomText(32, base64.RawURLEncoding.EncodeToString) }

// TokenHash is the SHA-256 of token in hex: what a host keeps to check it.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// BearerToken is the token of an Authorization header of the bearer scheme,
// read as kube-apiserver's bearer token authenticator reads it: the scheme in
// any case, one space, then the token up to the next space.
func BearerToken(authorization string) (string, bool) {
	scheme, rest, _ := strings.Cut(authorization, " ")
	token, _, _ := strings.Cut(rest, " ")
	return token, strings.EqualFold(scheme, "bearer") && token != ""
}

// BearerMatches says, in constant time, whether authorization carries the
// bearer token whose TokenHash is hash.
func BearerMatches(authorization, hash string) bool {
	token, ok := BearerToken(authorization)
	want, err := hex.DecodeString(hash)
	if !ok || err != nil || len(want) != sha256.Size {
		return false
	}
	got := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(got[:], want) == 1
}

// BearerEquals says, in constant time (over both tokens' SHA-256, so their
// lengths do not leak either), whether authorization carries the bearer
// token want.
func BearerEquals(authorization, want string) bool {
	return want != "" && BearerMatches(authorization, TokenHash(want))
}

func randomText(n int, encode func([]byte) string) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it panics instead)
	return encode(b)
}
