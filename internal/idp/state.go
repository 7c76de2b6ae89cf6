package idp

import (
	"encoding/json"
	"errors"
	"time"

	"concierge/internal/secret"
)

// CookieName is the state cookie of the web flow.
const CookieName = "concierge_idp_state"

// CookiePath scopes the cookie to the provider routes.
const CookiePath = "/auth/idp/"

// StateTTL is how long a started sign-in may take.
const StateTTL = 10 * time.Minute

const statePurpose = "idp-state-cookie"

// flowState is what the state cookie carries, sealed (AES-GCM under a
// subkey of the server secret): the browser can neither read the PKCE
// verifier and nonce nor change next or the codes.
type flowState struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Next     string `json:"x,omitempty"`
	Client   string `json:"c"`
	Mode     string `json:"m"`
	Promo    string `json:"p,omitempty"`
	Referral string `json:"r,omitempty"`
	Expires  int64  `json:"e"`
}

func sealState(keys *secret.Keyring, st flowState) (string, error) {
	raw, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	return keys.Seal(statePurpose, string(raw))
}

var errBadCookie = errors.New("idp: state cookie cannot be opened")

func openState(keys *secret.Keyring, v string) (flowState, error) {
	var st flowState
	if len(v) > 4096 {
		return st, errBadCookie
	}
	raw, err := keys.Open(statePurpose, v)
	if err != nil {
		return st, errBadCookie
	}
	if err := json.Unmarshal([]byte(raw), &st); err != nil || st.State == "" || st.Verifier == "" || st.Nonce == "" {
		return st, errBadCookie
	}
	return st, nil
}

// Cookie is a cookie the HTTP layer sets (the service knows no HTTP).
type Cookie struct {
	Name, Value, Path string
	MaxAge            int // seconds; < 0 deletes
	Secure            bool
}
