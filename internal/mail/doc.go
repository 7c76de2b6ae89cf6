// Package mail owns outgoing e-mail for Concierge: the Message type and its
// validation, the Mailer interface the job queue drives, and the two
// transports behind it.
//
// Without configuration nothing leaves the machine: the Outbox writes every
// message as one .eml file under <data dir>/outbox/ and logs that it did.
// With CONCIERGE_SMTP_URL set, the SMTP mailer hands messages to a relay
// using go-mail, one connection per message.
//
// Bodies carry one-time codes, so no log line or error produced here ever
// contains a body, and the SMTP password never appears in errors, logs or
// String(). Subjects and recipients are logged: never put a secret in a
// subject.
//
// Send errors tell the caller whether to retry: IsPermanent reports failures
// that retrying cannot fix; anything else is worth another attempt.
package mail
