package account

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"
)

// HashParams are argon2id parameters. OWASP's minimum is m=19 MiB, t=2, p=1.
type HashParams struct {
	MemoryKiB  uint32
	Iterations uint32
	Threads    uint8
}

// DefaultHashParams is the production setting.
var DefaultHashParams = HashParams{MemoryKiB: 19 * 1024, Iterations: 2, Threads: 1}

// Hasher hashes and checks passwords. Each hash holds MemoryKiB of memory,
// so the number running at once is bounded: a burst of logins queues instead
// of exhausting memory.
type Hasher struct {
	params HashParams
	sem    chan struct{}

	dummyOnce sync.Once
	dummy     string
}

// NewHasher bounds concurrency to n (0 means twice the CPU count).
func NewHasher(p HashParams, n int) *Hasher {
	if n <= 0 {
		n = 2 * runtime.NumCPU()
	}
	if p.Threads == 0 {
		p.Threads = 1
	}
	return &Hasher{params: p, sem: make(chan struct{}, n)}
}

func (h *Hasher) acquire(ctx context.Context) error {
	select {
	case h.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *Hasher) release() { <-h.sem }

// Hash returns the PHC string of password: $argon2id$v=19$m=..,t=..,p=..$salt$key.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("account: salt: %w", err)
	}
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	p := h.params
	key := argon2.IDKey([]byte(password), salt, p.Iterations, p.MemoryKiB, p.Threads, 32)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.MemoryKiB, p.Iterations, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// Verify reports whether password matches the PHC string encoded, using the
// parameters stored in it.
func (h *Hasher) Verify(ctx context.Context, password, encoded string) (bool, error) {
	p, salt, want, err := parsePHC(encoded)
	if err != nil {
		return false, err
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	defer h.release()
	got := argon2.IDKey([]byte(password), salt, p.Iterations, p.MemoryKiB, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// VerifyDummy spends the same time as Verify against a real hash, so that an
// unknown e-mail answers as slowly as a wrong password.
func (h *Hasher) VerifyDummy(ctx context.Context, password string) error {
	h.dummyOnce.Do(func() {
		h.dummy, _ = h.Hash(context.Background(), "concierge-dummy-password")
	})
	_, err := h.Verify(ctx, password, h.dummy)
	return err
}

var errBadHash = errors.New("account: malformed password hash")

func parsePHC(s string) (HashParams, []byte, []byte, error) {
	var p HashParams
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return p, nil, nil, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return p, nil, nil, errBadHash
	}
	var threads uint32
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Iterations, &threads); err != nil || threads == 0 || threads > 255 {
		return p, nil, nil, errBadHash
	}
	p.Threads = uint8(threads)
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return p, nil, nil, errBadHash
	}
	key, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(key) < 16 {
		return p, nil, nil, errBadHash
	}
	return p, salt, key, nil
}
