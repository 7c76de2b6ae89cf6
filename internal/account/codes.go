package account

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"net/netip"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/jobs"
	"concierge/internal/mail"
	"concierge/internal/outbox"
	"concierge/internal/secret"
	"concierge/internal/store"
)

const jobSendCode = "account.send_code"

type sendCodePayload struct {
	Email   string `json:"email"`
	Purpose string `json:"purpose"`
}

// enqueueSendCode schedules a code e-mail. The job, not the request, looks
// the address up: the request does the same work for known and unknown
// addresses, and the plaintext code never touches the database.
func (s *Service) enqueueSendCode(ctx context.Context, tx store.Q, email, purpose string) error {
	_, err := s.queue.EnqueueTx(ctx, tx, jobs.NewJob{
		Kind:        jobSendCode,
		Payload:     sendCodePayload{Email: email, Purpose: purpose},
		MaxAttempts: 5,
		// While one is waiting, asking again adds nothing.
		UniqueKey: "send-code:" + purpose + ":" + secret.Hash(email),
	})
	return err
}

// ResendVerification sends a fresh verification code. It answers the same
// way whether or not the address has an account.
func (s *Service) ResendVerification(ctx context.Context, emailIn string) error {
	return s.requestCode(ctx, emailIn, PurposeVerifyEmail)
}

// RequestPasswordReset sends a reset code. It answers the same way whether
// or not the address has an account.
func (s *Service) RequestPasswordReset(ctx context.Context, emailIn string) error {
	return s.requestCode(ctx, emailIn, PurposeResetPassword)
}

func (s *Service) requestCode(ctx context.Context, emailIn, purpose string) error {
	email, err := NormalizeEmail(emailIn)
	if err != nil {
		return apperr.Invalid("body.email", err.Error(), "value_error")
	}
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error { return s.enqueueSendCode(ctx, tx, email, purpose) })
	if err != nil {
		return fmt.Errorf("account: request code: %w", err)
	}
	s.queue.Wake()
	return nil
}

// sendCodeJob issues a code and mails it. A retry issues a new code (the
// old one was never delivered), so only the latest mail's code works.
func (s *Service) sendCodeJob(ctx context.Context, j *jobs.Job) error {
	var p sendCodePayload
	if err := j.Decode(&p); err != nil {
		return err
	}
	if p.Purpose != PurposeVerifyEmail && p.Purpose != PurposeResetPassword {
		return jobs.Permanent(fmt.Errorf("unknown code purpose %q", p.Purpose))
	}
	w, err := workspaceByEmail(ctx, s.db.Reader(), p.Email)
	if store.IsNotFound(err) {
		return nil // no account: nothing to send, and the caller was told nothing
	}
	if err != nil {
		return err
	}
	if p.Purpose == PurposeVerifyEmail && w.EmailVerifiedAt != nil {
		return nil
	}
	now := s.clock.Now()
	sent, err := countCodeEvents(ctx, s.db.Reader(), w.ID, p.Purpose, "issued", now.Add(-time.Hour))
	if err != nil {
		return err
	}
	if sent >= s.opts.CodesPerHour {
		s.log.InfoContext(ctx, "code not sent: hourly budget spent", "workspace_id", w.ID, "purpose", p.Purpose)
		return nil
	}
	code, err := newCode()
	if err != nil {
		return err
	}
	hash := s.keys.MAC("otc", p.Purpose, fmt.Sprint(w.ID), code)
	if err := putCode(ctx, s.db.Writer(), w.ID, p.Purpose, hash, now.Add(s.opts.CodeTTL), now); err != nil {
		return err
	}
	if err := s.mailer.Send(ctx, s.codeMessage(w.Email, p.Purpose, code)); err != nil {
		if mail.IsPermanent(err) {
			return jobs.Permanent(err)
		}
		return err
	}
	if err := addCodeEvent(ctx, s.db.Writer(), w.ID, p.Purpose, "issued", now); err != nil {
		s.log.WarnContext(ctx, "record issued code", "workspace_id", w.ID, "err", err)
	}
	return nil
}

func (s *Service) codeMessage(to, purpose, code string) mail.Message {
	minutes := int(s.opts.CodeTTL / time.Minute)
	m := mail.Message{To: []string{to}, Headers: map[string]string{"X-Concierge-Kind": purpose}}
	switch purpose {
	case PurposeVerifyEmail:
		m.Subject = s.opts.ProductName + " verification code"
		m.Text = fmt.Sprintf("Your %s verification code is %s\n\nIt expires in %d minutes. If you did not sign up, you can ignore this e-mail.\n",
			s.opts.ProductName, code, minutes)
	default:
		m.Subject = s.opts.ProductName + " password reset code"
		m.Text = fmt.Sprintf("Your %s password reset code is %s\n\nIt expires in %d minutes. If you did not ask to reset your password, you can ignore this e-mail; your password has not changed.\n",
			s.opts.ProductName, code, minutes)
	}
	return m
}

// newCode returns 6 uniformly random digits.
func newCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", fmt.Errorf("account: code: %w", err)
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// errBadCode is the one answer to every failed code check, so a caller
// cannot tell a wrong code from an expired, burned or unknown one.
func errBadCode() error {
	return apperr.Invalid("body.code", "invalid or expired code; request a new one if needed", "value_error")
}

// VerifyEmail marks the address verified when code is right. from is the
// client's address, which has a guessing budget of its own.
func (s *Service) VerifyEmail(ctx context.Context, emailIn, code string, from netip.Addr) error {
	return s.useCode(ctx, emailIn, code, PurposeVerifyEmail, from, func(tx *sqlx.Tx, w *Workspace, now time.Time) error {
		if w.EmailVerifiedAt != nil {
			return nil
		}
		if _, err := store.Exec(ctx, tx, `UPDATE workspaces SET email_verified_at = ?, updated_at = ? WHERE id = ?`, now, now, w.ID); err != nil {
			return err
		}
		_, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: w.ID, Type: "workspace.email_verified",
			Data: map[string]any{"workspace_id": w.ID}})
		return err
	})
}

// ResetPassword sets a new password when code is right. The address is
// verified by the same stroke (the owner read the mail).
func (s *Service) ResetPassword(ctx context.Context, emailIn, code, newPassword string, from netip.Addr) error {
	if err := CheckPassword(newPassword); err != nil {
		return apperr.Invalid("body.new_password", err.Error(), "value_error")
	}
	hash, err := s.hasher.Hash(ctx, newPassword)
	if err != nil {
		return err
	}
	var email string
	err = s.useCode(ctx, emailIn, code, PurposeResetPassword, from, func(tx *sqlx.Tx, w *Workspace, now time.Time) error {
		email = w.Email
		if _, err := store.Exec(ctx, tx, `UPDATE workspaces SET password_hash = ?, updated_at = ?,
			email_verified_at = COALESCE(email_verified_at, ?) WHERE id = ?`, hash, now, now, w.ID); err != nil {
			return err
		}
		_, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: w.ID, Type: "workspace.password_reset",
			Data: map[string]any{"workspace_id": w.ID}})
		return err
	})
	if err != nil {
		return err
	}
	// The owner proved control of the mailbox: lift the sign-in ceiling.
	if err := s.limiter.Reset(ctx, "login-account:"+secret.Hash(email)); err != nil {
		s.log.WarnContext(ctx, "reset sign-in ceiling", "err", err)
	}
	return nil
}

// useCode checks code against the live code of purpose and, when right,
// runs apply in the same transaction that consumes the code. Wrong guesses
// are counted three ways, none of which keeps a code mailed to the owner
// from working: per code (each guess is reserved atomically before it is
// compared, so concurrent guesses cannot exceed the code's budget, and the
// code burns when it is spent), per client address across accounts (every
// failed check counts, whether the code was wrong, spent, expired or never
// issued: a guesser is refused, the owner elsewhere is not), and per account as
// consecutive failures, the last resort NIST 800-63B allows (100): with 5
// guesses per code that bounds a guesser's odds on 6 digits to 10^-4 before
// code verification locks until the owner signs in with the password.
func (s *Service) useCode(ctx context.Context, emailIn, code, purpose string, from netip.Addr,
	apply func(tx *sqlx.Tx, w *Workspace, now time.Time) error) error {
	email, err := NormalizeEmail(emailIn)
	if err != nil {
		return apperr.Invalid("body.email", err.Error(), "value_error")
	}
	if !isSixDigits(code) {
		return apperr.Invalid("body.code", "must be 6 digits", "string_pattern_mismatch")
	}
	addrBucket := "code-guess:" + from.String()
	res, err := s.limiter.AllowN(ctx, addrBucket, s.opts.AddressGuesses, 0)
	if err != nil {
		// Fail closed: without the budget, guessing would be unbounded.
		return apperr.Unavailable("code verification is temporarily unavailable", 5*time.Second, err)
	}
	if !res.Allowed {
		return &apperr.RateLimited{RetryAfter: max(res.RetryAfter, time.Second)}
	}
	wrong := false
	var outcome error
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		outcome, wrong = nil, false
		now := s.clock.Now()
		w, err := workspaceByEmail(ctx, tx, email)
		if store.IsNotFound(err) {
			outcome, wrong = errBadCode(), true
			return nil
		}
		if err != nil {
			return err
		}
		if w.CodeLockFailures >= s.opts.LockFailures {
			outcome = apperr.Invalid("body.code", "code verification is locked after too many failures: sign in with your password, or contact support", "value_error")
			return nil
		}
		c, err := liveCode(ctx, tx, w.ID, purpose)
		if store.IsNotFound(err) {
			outcome, wrong = errBadCode(), true
			return nil
		}
		if err != nil {
			return err
		}
		if !now.Before(c.ExpiresAt) {
			outcome, wrong = errBadCode(), true
			return deleteCode(ctx, tx, c.ID)
		}
		ok, err := reserveGuess(ctx, tx, c.ID, s.opts.CodeGuesses)
		if err != nil {
			return err
		}
		if !ok {
			outcome, wrong = errBadCode(), true
			return deleteCode(ctx, tx, c.ID)
		}
		want := s.keys.MAC("otc", purpose, fmt.Sprint(w.ID), code)
		if !secret.Equal(want, c.Hash) {
			outcome, wrong = errBadCode(), true
			if err := addCodeEvent(ctx, tx, w.ID, purpose, "failed", now); err != nil {
				return err
			}
			if _, err := store.Exec(ctx, tx, `UPDATE workspaces SET code_lock_failures = code_lock_failures + 1 WHERE id = ?`, w.ID); err != nil {
				return err
			}
			if c.Attempts+1 >= s.opts.CodeGuesses {
				return deleteCode(ctx, tx, c.ID) // budget spent: the code is burned
			}
			return nil
		}
		if err := deleteCode(ctx, tx, c.ID); err != nil {
			return err
		}
		if _, err := store.Exec(ctx, tx, `UPDATE workspaces SET code_lock_failures = 0 WHERE id = ?`, w.ID); err != nil {
			return err
		}
		if err := pruneCodeEvents(ctx, tx, w.ID, now.Add(-48*time.Hour)); err != nil {
			return err
		}
		return apply(tx, w, now)
	})
	if err != nil {
		return fmt.Errorf("account: check code: %w", err)
	}
	if wrong {
		if _, err := s.limiter.AllowN(ctx, addrBucket, s.opts.AddressGuesses, 1); err != nil {
			s.log.WarnContext(ctx, "count a wrong code guess", "err", err)
		}
	}
	return outcome
}

func isSixDigits(s string) bool {
	if len(s) != 6 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
