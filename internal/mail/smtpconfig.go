package mail

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// tlsMode is how the connection to the relay is secured.
type tlsMode string

const (
	tlsStartTLS      tlsMode = "starttls"      // STARTTLS required (smtp:// default)
	tlsOpportunistic tlsMode = "opportunistic" // STARTTLS when offered
	tlsNone          tlsMode = "none"          // plaintext: local relays and tests
	tlsImplicit      tlsMode = "implicit"      // TLS from the first byte (smtps://)
)

const defaultSMTPTimeout = 15 * time.Second

// smtpConfig is the parsed CONCIERGE_SMTP_URL.
type smtpConfig struct {
	scheme   string
	host     string
	port     int
	user     string
	pass     string
	tls      tlsMode
	timeout  time.Duration
	helo     string
	insecure bool
	query    url.Values // validated parameters, echoed by String
}

// errBadURL is deliberately vague: url.Parse errors quote the whole input,
// password included.
var errBadURL = errors.New("mail: invalid SMTP URL (expected smtp[s]://user:pass@host:port?params, " +
	"with special characters in user and password percent-encoded)")

func parseSMTPURL(raw string) (*smtpConfig, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errBadURL
	}
	c := &smtpConfig{scheme: u.Scheme, timeout: defaultSMTPTimeout, query: url.Values{}}
	switch u.Scheme {
	case "smtp":
		c.port, c.tls = 587, tlsStartTLS
	case "smtps":
		c.port, c.tls = 465, tlsImplicit
	default:
		return nil, fmt.Errorf("mail: SMTP URL scheme must be smtp or smtps, got %q", u.Scheme)
	}
	// An unescaped '/', '?' or '#' in the password pushes the rest of the
	// userinfo into the path, query or fragment; the stray '@' gives that
	// away, and refusing here keeps password fragments out of later errors.
	if u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.Fragment != "" ||
		strings.Contains(u.RawQuery, "@") {
		return nil, errBadURL
	}
	c.host = u.Hostname()
	if c.host == "" {
		return nil, errors.New("mail: SMTP URL has no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			// Not quoted: a mangled URL can put password digits here.
			return nil, errors.New("mail: SMTP URL port is out of range")
		}
		c.port = n
	}
	if u.User != nil {
		c.user = u.User.Username()
		c.pass, _ = u.User.Password()
		if c.user == "" {
			return nil, errors.New("mail: SMTP URL has a password but no user")
		}
	}
	if err := c.parseQuery(u.RawQuery); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *smtpConfig) parseQuery(rawQuery string) error {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return errors.New("mail: SMTP URL query is malformed")
	}
	for key, values := range q {
		if len(values) != 1 {
			return fmt.Errorf("mail: SMTP URL parameter %q given %d times", key, len(values))
		}
		v := values[0]
		switch key {
		case "tls":
			if err := c.setTLS(v); err != nil {
				return err
			}
		case "timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("mail: SMTP URL timeout %q is not a positive duration", v)
			}
			c.timeout = d
		case "helo":
			if v == "" || strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r > '~' }) {
				return fmt.Errorf("mail: SMTP URL helo %q is not a host name", v)
			}
			c.helo = v
		case "insecure_skip_verify":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("mail: SMTP URL insecure_skip_verify %q is not a boolean", v)
			}
			c.insecure = b
		default:
			// A typo such as "tsl=none" must not silently fall back to defaults.
			return fmt.Errorf("mail: unknown SMTP URL parameter %q", key)
		}
		c.query.Set(key, v)
	}
	return nil
}

func (c *smtpConfig) setTLS(v string) error {
	mode := tlsMode(v)
	if c.scheme == "smtps" {
		if mode != tlsImplicit {
			return fmt.Errorf("mail: smtps:// always uses implicit TLS; tls=%q conflicts", v)
		}
		return nil
	}
	switch mode {
	case tlsStartTLS, tlsOpportunistic, tlsNone:
		c.tls = mode
		return nil
	}
	return fmt.Errorf("mail: SMTP URL tls=%q, want starttls, opportunistic or none", v)
}

func (c *smtpConfig) addr() string { return net.JoinHostPort(c.host, strconv.Itoa(c.port)) }

// String renders the URL with the password replaced by ***, for logs and
// start-up banners.
func (c *smtpConfig) String() string {
	var b strings.Builder
	b.WriteString(c.scheme + "://")
	if c.user != "" {
		b.WriteString(url.User(c.user).String())
		if c.pass != "" {
			b.WriteString(":***")
		}
		b.WriteByte('@')
	}
	b.WriteString(c.addr())
	if len(c.query) > 0 {
		b.WriteString("?" + c.query.Encode())
	}
	return b.String()
}
