// Package emailcheck decides whether an e-mail address a website visitor typed
// into a lead form is worth keeping. It owns the syntax rules, the shipped
// disposable-domain list, the reserved/spamtrap rules, the mail-server (MX)
// lookup with its cache, and the optional external verification provider.
//
// The guiding rule (SPEC 4.3 rule 5) is that validation blocks only
// unambiguous junk: bad syntax, disposable domains, spamtraps and reserved
// domains, domains without a working mail server, and addresses a
// verification provider positively reports as undeliverable. Everything that
// is merely uncertain (catch-all domains, DNS timeouts, a provider that is
// down, slow or not configured) is let through as Valid with verdict
// "unknown" or "catch_all": a lost lead costs the customer more than a
// bounced follow-up. The plan gate ("the bot's plan does not include the
// feature") is the caller's business, not this package's.
//
// # Decisions
//
// Syntax is a deliberate subset of RFC 5321/5322 rather than
// net/mail.ParseAddress. ParseAddress parses a whole RFC 5322 mailbox, which
// is too lenient for a lead form: it accepts display names and comments
// ("Bob <bob@x.com>", "bob@x.com (work)"), quoted local parts and domains
// without a dot. It also does none of what a lead needs: no RFC 5321 length
// limits, no host-name rules for the domain, no conversion of
// internationalised domains. We accept dot-atom local parts with the RFC
// 5322 atext characters plus non-ASCII UTF-8 characters (RFC 6531), and
// domains that are host names with at least two labels and an alphabetic
// top-level label, internationalised ones included (converted to A-labels
// with the UTS #46 lookup mapping). Limits: local part 64 octets, domain 253,
// label 63, whole address 254. A trailing dot on the domain is rejected
// (RFC 5321 has none; in a form it is a sentence's full stop) with the
// repaired address in Suggestion.
//
// Quoted local parts ("john doe"@example.com) are rejected as invalid_syntax:
// no real visitor has one, most sending services refuse them, so the
// follow-up could not be sent anyway, and they admit spaces, quotes and a
// second @ that make every downstream consumer (CSV export, mail headers)
// riskier.
//
// Address literals (user@[192.0.2.1], user@[IPv6:...]) and bare IP addresses
// as domains (user@192.0.2.1) are rejected as invalid_syntax: RFC 5321 allows
// literals for mail-system debugging, but a lead is a person at a named
// domain, and an IP literal also sidesteps the domain-based checks below.
//
// Role accounts (info@, sales@, support@, contact@, admin@, ...) are
// legitimate leads, often the very mailbox a small business wants to be
// contacted at, and are never blocked. Only mailboxes that by definition are
// not a person who can be followed up are treated as spamtraps: the
// mail-operations mailboxes abuse@, postmaster@ and hostmaster@, which are
// read by the people who feed blocklists, mailer-daemon@, and the no-reply
// family (noreply@, no-reply@, donotreply@, ...), which accept no replies by
// definition. Domains reserved by RFC 2606/6761 and their successors
// (example.com/.net/.org, .test, .example, .invalid, .localhost, .local,
// .onion, .internal, .alt, home.arpa) get their own verdict,
// reserved_domain: they can never receive mail from the internet.
//
// # Verdicts
//
//	verdict          Valid  meaning
//	valid            true   every check that ran passed
//	catch_all        true   provider: the domain accepts any mailbox
//	unknown          true   no conclusion (DNS or provider failure, timeout, provider unsure): fail open
//	invalid_syntax   false  not an address we accept
//	reserved_domain  false  example.com, *.test, *.invalid, *.localhost, ...
//	spamtrap         false  abuse@, postmaster@, hostmaster@, mailer-daemon@, noreply@ family
//	disposable       false  throwaway-mail domain (shipped list or Config.ExtraDisposable)
//	no_mail_server   false  neither MX nor address records (NXDOMAIN/NODATA), or a null MX (RFC 7505)
//	undeliverable    false  provider: the mailbox does not exist
//
// Normalized is the local part as typed (local parts are case-sensitive by
// RFC 5321, and Unicode ones are NFC-normalised) followed by the lower-case
// ASCII form of the domain, which is what a mailer needs and what should be
// used to de-duplicate leads; convert with idna.ToUnicode for display.
package emailcheck
