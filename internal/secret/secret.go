// Package secret owns the server's secret key and what is derived from it:
// sealing values the server must read back (workspace keys), keyed hashes of
// one-time codes, and random tokens. The key comes from CONCIERGE_SECRET_KEY
// (required when several replicas share a database) or from a file in the
// data directory created on first start with mode 0600.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// KeyFileName is the key file's name inside the data directory.
const KeyFileName = "secret.key"

const keyBytes = 32

// Keyring holds the master secret. Subkeys are derived per purpose so that a
// value sealed for one purpose cannot be opened as another.
type Keyring struct {
	master []byte
}

// New builds a keyring from raw key material (at least 32 bytes).
func New(master []byte) (*Keyring, error) {
	if len(master) < keyBytes {
		return nil, fmt.Errorf("secret: key must be at least %d bytes, got %d", keyBytes, len(master))
	}
	return &Keyring{master: append([]byte(nil), master...)}, nil
}

// Load returns the keyring from envValue (hex or base64 of at least 32 bytes)
// when set, otherwise from <dataDir>/secret.key, creating it (mode 0600) on
// first use.
func Load(dataDir, envValue string) (*Keyring, error) {
	if envValue != "" {
		raw, err := decodeKey(envValue)
		if err != nil {
			return nil, fmt.Errorf("secret: CONCIERGE_SECRET_KEY: %w", err)
		}
		return New(raw)
	}
	path := filepath.Join(dataDir, KeyFileName)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("secret: create data directory: %w", err)
	}
	raw, err := readKeyFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		raw, err = createKeyFile(path)
	}
	if err != nil {
		return nil, err
	}
	return New(raw)
}

func readKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	raw, err := decodeKey(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("secret: %s: %w", path, err)
	}
	return raw, nil
}

func createKeyFile(path string) ([]byte, error) {
	raw := make([]byte, keyBytes)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("secret: generate key: %w", err)
	}
	// O_EXCL: when two processes start at once, one creates the file and
	// the other reads what it wrote.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return readKeyFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("secret: create key file: %w", err)
	}
	_, werr := f.WriteString(hex.EncodeToString(raw) + "\n")
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		return nil, fmt.Errorf("secret: write key file: %w", err)
	}
	return raw, nil
}

func decodeKey(s string) ([]byte, error) {
	if b, err := hex.DecodeString(s); err == nil && len(b) >= keyBytes {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) >= keyBytes {
			return b, nil
		}
	}
	return nil, fmt.Errorf("want hex or base64 of at least %d random bytes", keyBytes)
}

// derive returns the subkey for purpose.
func (k *Keyring) derive(purpose string) []byte {
	m := hmac.New(sha256.New, k.master)
	m.Write([]byte("concierge/" + purpose))
	return m.Sum(nil)
}

// MAC returns the hex HMAC-SHA256 of parts under the purpose's subkey. Parts
// are length-prefixed so ("ab","c") and ("a","bc") differ.
func (k *Keyring) MAC(purpose string, parts ...string) string {
	m := hmac.New(sha256.New, k.derive("mac/"+purpose))
	for _, p := range parts {
		fmt.Fprintf(m, "%d:%s|", len(p), p)
	}
	return hex.EncodeToString(m.Sum(nil))
}

// Seal encrypts plaintext with AES-256-GCM under the purpose's subkey.
func (k *Keyring) Seal(purpose, plaintext string) (string, error) {
	aead, err := k.aead(purpose)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("secret: nonce: %w", err)
	}
	out := aead.Seal(nonce, nonce, []byte(plaintext), []byte(purpose))
	return "v1." + base64.RawURLEncoding.EncodeToString(out), nil
}

// Open decrypts a value produced by Seal for the same purpose.
func (k *Keyring) Open(purpose, sealed string) (string, error) {
	body, ok := strings.CutPrefix(sealed, "v1.")
	if !ok {
		return "", errors.New("secret: unknown sealed format")
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return "", fmt.Errorf("secret: decode sealed value: %w", err)
	}
	aead, err := k.aead(purpose)
	if err != nil {
		return "", err
	}
	if len(raw) < aead.NonceSize() {
		return "", errors.New("secret: sealed value too short")
	}
	pt, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(purpose))
	if err != nil {
		return "", errors.New("secret: cannot open sealed value (wrong key?)")
	}
	return string(pt), nil
}

func (k *Keyring) aead(purpose string) (cipher.AEAD, error) {
	block, err := aes.NewCipher(k.derive("seal/" + purpose))
	if err != nil {
		return nil, fmt.Errorf("secret: cipher: %w", err)
	}
	return cipher.NewGCM(block)
}

// Token returns prefix followed by n random bytes in unpadded base64url.
// With n >= 16 the result is unguessable (>= 128 bits).
func Token(prefix string, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand never fails on supported platforms; if it does,
		// continuing with a weak token would be worse than stopping.
		panic("secret: crypto/rand: " + err.Error())
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// OrderedToken is Token with the current time first: prefix, the Unix time
// in milliseconds as 12 lowercase hex digits, then n random bytes in
// unpadded base64url. Tokens made later sort after earlier ones (bytewise),
// so a unique index on them grows at its right edge, as one on a serial
// id does, instead of changing a random page of the index per row: for ids
// written many per second (messages, sessions, events) that keeps the
// pages a transaction changes, and so its commit, small. The time is not
// a secret (the record's creation time is shown with it anyway); the
// random part keeps the token unguessable with n >= 16.
func OrderedToken(prefix string, n int) string {
	return orderedToken(prefix, n, time.Now())
}

func orderedToken(prefix string, n int, now time.Time) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("secret: crypto/rand: " + err.Error())
	}
	ms := uint64(now.UnixMilli()) & (1<<48 - 1)
	var t [6]byte
	for i := range t {
		t[i] = byte(ms >> (8 * (5 - i)))
	}
	return prefix + hex.EncodeToString(t[:]) + base64.RawURLEncoding.EncodeToString(b)
}

// Hash returns the hex SHA-256 of s: the lookup hash of a high-entropy
// credential (an API key is 256 random bits, so no salt or stretching is
// needed, and lookups stay one indexed read).
func Hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Equal compares two secrets in constant time.
func Equal(a, b string) bool {
	return hmac.Equal([]byte(a), []byte(b))
}
