package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// IDPEnv configures sign-in through an OpenID Connect provider with
// discovery (Google by default; Microsoft, Keycloak, Auth0, ... alike).
type IDPEnv struct {
	// Issuer is the provider's issuer URL; discovery is read from
	// <issuer>/.well-known/openid-configuration.
	Issuer       string `env:"IDP_ISSUER" envDefault:"https://accounts.google.com"`
	ClientID     string `env:"IDP_CLIENT_ID"`
	ClientSecret Secret `env:"IDP_CLIENT_SECRET"`
	// RedirectURL is this server's GET /auth/idp/callback as registered
	// with the provider.
	RedirectURL string `env:"IDP_REDIRECT_URL"`
	// Audiences are further client ids whose ID tokens POST
	// /auth/idp/id-token accepts (the mobile apps' own client ids).
	Audiences []string `env:"IDP_AUDIENCES" envSeparator:","`
	// FrontendURL is where the web flow lands, with the API key (or an
	// error code) in the URL fragment.
	FrontendURL string `env:"FRONTEND_URL"`
	// MobileRedirectURL is where the flow lands with client=mobile (the
	// app's own URL scheme, e.g. com.example.app:/signed-in).
	MobileRedirectURL string `env:"IDP_MOBILE_REDIRECT_URL"`
}

// Enabled reports whether provider sign-in is configured.
func (e IDPEnv) Enabled() bool { return e.ClientID != "" }

// AcceptedAudiences are the client id and the extra audiences.
func (e IDPEnv) AcceptedAudiences() []string {
	out := []string{e.ClientID}
	for _, a := range e.Audiences {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

func (e IDPEnv) validate() []error {
	if !e.Enabled() {
		return nil
	}
	var errs []error
	if e.ClientSecret == "" || e.RedirectURL == "" || e.FrontendURL == "" {
		errs = append(errs, errors.New("CONCIERGE_IDP_CLIENT_ID needs CONCIERGE_IDP_CLIENT_SECRET, CONCIERGE_IDP_REDIRECT_URL and CONCIERGE_FRONTEND_URL"))
	}
	check := func(name, v string, web bool) {
		if v == "" {
			return
		}
		u, err := url.Parse(v)
		if err != nil || u.Scheme == "" || (web && (u.Scheme != "https" && u.Scheme != "http" || u.Host == "")) {
			errs = append(errs, fmt.Errorf("%s=%q: want an absolute URL", name, v))
			return
		}
		switch strings.ToLower(u.Scheme) {
		case "javascript", "data", "vbscript", "file":
			errs = append(errs, fmt.Errorf("%s=%q: scheme not allowed", name, v))
		}
		if u.Fragment != "" {
			errs = append(errs, fmt.Errorf("%s=%q: must not have a fragment", name, v))
		}
	}
	check("CONCIERGE_IDP_ISSUER", e.Issuer, true)
	check("CONCIERGE_IDP_REDIRECT_URL", e.RedirectURL, true)
	check("CONCIERGE_FRONTEND_URL", e.FrontendURL, true)
	check("CONCIERGE_IDP_MOBILE_REDIRECT_URL", e.MobileRedirectURL, false)
	return errs
}
