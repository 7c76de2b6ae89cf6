package crawl

import (
	"errors"
	"net/url"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://example.com", "http://example.com/"},
		{"HTTP://WWW.Example.COM/About", "http://www.example.com/About"},
		{"https://example.com:443/a", "https://example.com/a"},
		{"http://example.com:80/a", "http://example.com/a"},
		{"https://example.com:80/a", "https://example.com:80/a"},
		{"http://example.com:8080/a", "http://example.com:8080/a"},
		{"http://example.com./a", "http://example.com/a"},
		{"http://example.com/a#section", "http://example.com/a"},
		{"http://example.com/#", "http://example.com/"},
		{"http://example.com/docs/", "http://example.com/docs"},
		{"http://example.com/docs//", "http://example.com/docs"},
		{"http://example.com/", "http://example.com/"},
		{"http://example.com/a/./b/../c", "http://example.com/a/c"},
		{"http://example.com/a/b/..", "http://example.com/a"},
		{"http://example.com/../../a", "http://example.com/a"},
		{"http://example.com/%7Euser/%2e%2E/x", "http://example.com/x"},
		{"http://example.com/a%2fb", "http://example.com/a%2Fb"},
		{"http://example.com/caf%c3%a9", "http://example.com/caf%C3%A9"},
		{"http://example.com/café", "http://example.com/caf%C3%A9"},
		{"http://example.com/a b", "http://example.com/a%20b"},
		{"http://example.com/a//b", "http://example.com/a//b"},
		{"http://example.com/?", "http://example.com/"},
		{"http://example.com/p?b=2&a=1", "http://example.com/p?a=1&b=2"},
		{"http://example.com/p?tag=z&a=1&tag=b", "http://example.com/p?a=1&tag=z&tag=b"},
		{"http://example.com/p?utm_source=x&UTM_Medium=y&gclid=1&fbclid=2&id=7", "http://example.com/p?id=7"},
		{"http://example.com/p?utm_source=x", "http://example.com/p"},
		{"http://example.com/p?a=1&&b=%7e", "http://example.com/p?a=1&b=~"},
		{"http://example.com/p?q=a+b&q2=%2b", "http://example.com/p?q=a+b&q2=%2B"},
		{"http://bücher.example/", "http://xn--bcher-kva.example/"},
		{"http://[::1]:80/x", "http://[::1]/x"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/"},
		{"  http://example.com/x  ", "http://example.com/x"},
	} {
		got, err := Normalize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		// A key is a fixed point: normalising it again changes nothing.
		if again, err := Normalize(got); err != nil || again != got {
			t.Errorf("Normalize(%q) = %q, %v; not idempotent", got, again, err)
		}
	}
	for _, in := range []string{
		"mailto:a@example.com", "tel:+123", "javascript:void(0)", "ftp://example.com/", "file:///etc/passwd",
		"data:text/html,hi", "/relative", "http://", "http://user:pass@example.com/", "http://public@127.0.0.1/", "%zz",
	} {
		if got, err := Normalize(in); !errors.Is(err, ErrInvalidURL) {
			t.Errorf("Normalize(%q) = %q, %v; want ErrInvalidURL", in, got, err)
		}
	}
}

func TestFetchFormKeepsTrailingSlash(t *testing.T) {
	u, err := parse("http://Example.com/docs/?utm_source=x#top")
	if err != nil || u.String() != "http://example.com/docs/" {
		t.Errorf("parse = %v, %v", u, err)
	}
}

func TestSameSite(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"www.example.com", "docs.example.com", true},
		{"example.com", "a.b.example.com", true},
		{"example.com", "example.org", false},
		{"www.example.co.uk", "shop.example.co.uk", true},
		{"example.co.uk", "other.co.uk", false},
		{"alice.github.io", "bob.github.io", false}, // private suffix: different owners
		{"www.example.test", "docs.example.test", true},
		{"example.test", "example.org.test", false},
		{"127.0.0.1", "10.0.0.1", false},
		{"127.0.0.1", "127.0.0.1", true},
		{"localhost", "localhost", true},
	} {
		if got := siteOf(tc.a) == siteOf(tc.b); got != tc.same {
			t.Errorf("same site %s / %s = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

func TestSkippable(t *testing.T) {
	for in, want := range map[string]bool{
		"http://x.test/a.zip": true, "http://x.test/A.JPG": true, "http://x.test/v.mp4?x=1": true,
		"http://x.test/setup.exe": true, "http://x.test/doc.pdf": false, "http://x.test/doc.docx": false,
		"http://x.test/page.html": false, "http://x.test/v1.2/docs": false, "http://x.test/": false,
	} {
		u, _ := url.Parse(in)
		if got := skippable(u); got != want {
			t.Errorf("skippable(%s) = %v, want %v", in, got, want)
		}
	}
}
