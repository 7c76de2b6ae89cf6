package config

import "testing"

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
