package registry

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"kubeplay/core/apierrors"
)

// A continue token carries what kube-apiserver's does ({"v","rv","start"}, base64
// URL encoded) plus a MAC that binds it to its list: the collection, namespace and
// selectors it was issued for. A changed token or one used on another list is 400.

const continueVersion = "meta.k8s.io/v1"

// continueKey authenticates tokens. Tokens are not secrets (they only name a place in
// a list the caller may read anyway); the MAC detects tampering and misuse.
var continueKey = []byte("kubeplay continue token v1")

type continueToken struct {
	APIVersion string `json:"v"`
	RV         int64  `json:"rv"`
	Start      string `json:"start"`
	MAC        string `json:"mac,omitempty"`
}

func continueMAC(rv int64, start, binding string) string {
	m := hmac.New(sha256.New, continueKey)
	m.Write([]byte(strconv.FormatInt(rv, 10)))
	m.Write([]byte{0})
	m.Write([]byte(start))
	m.Write([]byte{0})
	m.Write([]byte(binding))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// encodeContinue makes a token continuing after key start (relative to the list's
// prefix) at revision rv; rv -1 continues at the latest revision.
func encodeContinue(rv int64, start, binding string) string {
	b, _ := json.Marshal(continueToken{APIVersion: continueVersion, RV: rv, Start: start + "\x00", MAC: continueMAC(rv, start+"\x00", binding)})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeContinue checks a token and returns its revision and the key it
// continues after (relative to the list's prefix, with or without the slash
// kube's watch cache puts first).
func decodeContinue(token, binding string) (rv int64, after string, err error) {
	invalid := func(why string) error {
		return apierrors.NewBadRequest("invalid continue token: continue key is not valid: " + why)
	}
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, "", invalid(err.Error())
	}
	var t continueToken
	if err := json.Unmarshal(data, &t); err != nil {
		return 0, "", invalid(err.Error())
	}
	if t.APIVersion != continueVersion {
		return 0, "", invalid(fmt.Sprintf("incorrect encoded start resourceVersion (version %s)", continueVersion))
	}
	if t.RV == 0 || t.RV < -1 {
		return 0, "", invalid("incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	if len(t.Start) == 0 || t.Start[len(t.Start)-1] != 0 {
		return 0, "", invalid("encoded start key is malformed")
	}
	if !hmac.Equal([]byte(t.MAC), []byte(continueMAC(t.RV, t.Start, binding))) {
		return 0, "", invalid("the token was altered or belongs to another list (resource, namespace or selectors differ)")
	}
	return t.RV, strings.TrimPrefix(t.Start[:len(t.Start)-1], "/"), nil
}
