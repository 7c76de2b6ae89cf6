package config

import (
	"testing"
	"time"
)

func TestPublicOrigin(t *testing.T) {
	for _, c := range []struct {
		addr, public, want string
		bad                bool
	}{
		{addr: "127.0.0.1:8080", want: "http://127.0.0.1:8080"},
		{addr: "0.0.0.0:9000", want: "http://127.0.0.1:9000"},
		{addr: ":9000", want: "http://127.0.0.1:9000"},
		{addr: "[::]:80", want: "http://127.0.0.1:80"},
		{public: "https://Chat.Example.com/", want: "https://chat.example.com"},
		{public: "https://chat.example.com:8443", want: "https://chat.example.com:8443"},
		{public: "ftp://chat.example.com", bad: true},
		{public: "https://chat.example.com/app", bad: true},
		{public: "https://user:pw@chat.example.com", bad: true},
		{public: "https://chat.example.com/?x=1", bad: true},
		{public: "chat.example.com", bad: true},
	} {
		cfg := Config{Addr: c.addr, PublicURL: c.public}
		if cfg.Addr == "" {
			cfg.Addr = "127.0.0.1:8080"
		}
		got, err := cfg.PublicOrigin()
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("addr %q public %q: %q, %v; want %q (error %v)", c.addr, c.public, got, err, c.want, c.bad)
		}
	}
}

func TestDeliveryTimings(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		bad  bool
		want func(Config) bool
	}{
		{env: map[string]string{}, want: func(c Config) bool {
			return c.ReplyTimeout == 90*time.Second && c.SettleAfter == 10*time.Minute && c.WebhookRetrySchedule == nil
		}},
		{env: map[string]string{"CONCIERGE_WEBHOOK_RETRY_SCHEDULE": "0s,1s,2s,30s"}, want: func(c Config) bool {
			return len(c.WebhookRetrySchedule) == 4 && c.WebhookRetrySchedule[3] == 30*time.Second
		}},
		{env: map[string]string{"CONCIERGE_REPLY_TIMEOUT": "20s", "CONCIERGE_SETTLE_AFTER": "30s"}, want: func(c Config) bool {
			return c.ReplyTimeout == 20*time.Second && c.SettleAfter == 30*time.Second
		}},
		{env: map[string]string{"CONCIERGE_SETTLE_AFTER": "60s"}, bad: true}, // not longer than the reply timeout
		{env: map[string]string{"CONCIERGE_WEBHOOK_RETRY_SCHEDULE": "0s,-5s"}, bad: true},
		{env: map[string]string{"CONCIERGE_WEBHOOK_RETRY_SCHEDULE": "0s,fast"}, bad: true},
		{env: map[string]string{"CONCIERGE_DNS_SERVER": "127.0.0.1"}, bad: true},
		{env: map[string]string{"CONCIERGE_DNS_SERVER": "127.0.0.1:5353"}, want: func(c Config) bool { return c.DNSServer == "127.0.0.1:5353" }},
	} {
		cfg, err := Load(func(k string) string { return c.env[k] })
		if (err != nil) != c.bad || (err == nil && !c.want(cfg)) {
			t.Errorf("%v: %+v, %v (want error %v)", c.env, cfg, err, c.bad)
		}
	}
}

// TestEmbeddings: dense retrieval is on with a model; the other settings
// without one, or a base URL that is not an http(s) API root, are refused
// at start rather than ignored.
func TestEmbeddings(t *testing.T) {
	for _, c := range []struct {
		env map[string]string
		bad bool
	}{
		{env: map[string]string{}},
		{env: map[string]string{"CONCIERGE_EMBEDDINGS_MODEL": "text-embedding-3-small", "CONCIERGE_EMBEDDINGS_API_KEY": "sk-x"}},
		{env: map[string]string{"CONCIERGE_EMBEDDINGS_MODEL": "nomic-embed-text", "CONCIERGE_EMBEDDINGS_BASE_URL": "http://127.0.0.1:11434/v1"}},
		{env: map[string]string{"CONCIERGE_EMBEDDINGS_BASE_URL": "http://127.0.0.1:11434/v1"}, bad: true},
		{env: map[string]string{"CONCIERGE_EMBEDDINGS_API_KEY": "sk-x"}, bad: true},
		{env: map[string]string{"CONCIERGE_EMBEDDINGS_MODEL": "m", "CONCIERGE_EMBEDDINGS_BASE_URL": "127.0.0.1:11434"}, bad: true},
		{env: map[string]string{"CONCIERGE_EMBEDDINGS_MODEL": "m", "CONCIERGE_EMBEDDINGS_TIMEOUT": "0s"}, bad: true},
	} {
		cfg, err := Load(func(k string) string { return c.env[k] })
		if (err != nil) != c.bad {
			t.Errorf("%v: %v (want error %v)", c.env, err, c.bad)
		}
		if err == nil && cfg.EmbeddingsTimeout != 30*time.Second && c.env["CONCIERGE_EMBEDDINGS_TIMEOUT"] == "" {
			t.Errorf("%v: timeout %v", c.env, cfg.EmbeddingsTimeout)
		}
	}
}
