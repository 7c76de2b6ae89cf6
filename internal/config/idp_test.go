package config

import (
	"strings"
	"testing"
)

func TestIDPConfig(t *testing.T) {
	load := func(kv ...string) (Config, error) {
		env := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			env[kv[i]] = kv[i+1]
		}
		return Load(func(k string) string { return env[k] })
	}
	c, err := load()
	if err != nil || c.IDP.Enabled() || c.IDP.Issuer != "https://accounts.google.com" {
		t.Fatalf("default: %v %+v", err, c.IDP)
	}
	full := []string{"CONCIERGE_IDP_CLIENT_ID", "web-id", "CONCIERGE_IDP_CLIENT_SECRET", "s3cret",
		"CONCIERGE_IDP_REDIRECT_URL", "https://api.example.com/auth/idp/callback", "CONCIERGE_FRONTEND_URL", "https://app.example.com/in",
		"CONCIERGE_IDP_AUDIENCES", " ios-id, android-id ,", "CONCIERGE_IDP_MOBILE_REDIRECT_URL", "com.example.app:/in"}
	c, err = load(full...)
	if err != nil || !c.IDP.Enabled() || strings.Join(c.IDP.AcceptedAudiences(), "|") != "web-id|ios-id|android-id" {
		t.Fatalf("full: %v %+v", err, c.IDP)
	}
	if strings.Contains(c.IDP.ClientSecret.String(), "s3cret") {
		t.Fatal("client secret printable")
	}
	for _, bad := range [][]string{
		{"CONCIERGE_IDP_CLIENT_ID", "web-id"},
		append(append([]string{}, full...), "CONCIERGE_FRONTEND_URL", "/relative"),
		append(append([]string{}, full...), "CONCIERGE_IDP_ISSUER", "accounts.google.com"),
		append(append([]string{}, full...), "CONCIERGE_IDP_MOBILE_REDIRECT_URL", "javascript:alert(1)"),
		append(append([]string{}, full...), "CONCIERGE_FRONTEND_URL", "https://app.example.com/#x"),
	} {
		if _, err := load(bad...); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
