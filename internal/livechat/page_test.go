package livechat_test

import (
	"strings"
	"testing"

	"concierge/internal/testkit"
)

// The inbox page is static, served with a strict CSP; its script renders
// with textContent only.
func TestOperatorPage(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite)
	csp := "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
		"form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
	a.Run(t,
		testkit.Scenario{Name: "page", Method: "GET", Path: "/operator", Status: 200,
			Header:   map[string]string{"Content-Security-Policy": csp, "X-Frame-Options": "DENY"},
			Contains: []string{`<script src="/operator.js" defer></script>`, `role="log"`, `id="signin-form"`}},
		testkit.Scenario{Name: "script", Method: "GET", Path: "/operator.js", Status: 200,
			Header: map[string]string{"Content-Type": "application/javascript; charset=utf-8"},
			Check: func(t *testing.T, r *testkit.Response) {
				for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "localStorage"} {
					if strings.Contains(string(r.Body), bad) {
						t.Errorf("operator.js uses %s", bad)
					}
				}
			}},
		testkit.Scenario{Name: "style", Method: "GET", Path: "/operator.css", Status: 200},
	)
	if r := a.Do(t, "GET", "/operator", nil); strings.Contains(strings.ReplaceAll(string(r.Body), `<script src=`, ""), "<script") {
		t.Fatal("inline script on the inbox page")
	}
}
