package safehttp

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// staticAllow lists the packages (directories relative to the module root,
// matched exactly, not their subdirectories) that may build their own HTTP
// clients, transports or dialers because they only ever talk to endpoints an
// operator configured, never to a URL a customer supplied. Every other
// package must go through safehttp. Keep it short and give a reason.
var staticAllow = map[string]string{
	"internal/mail":            "SMTP to the operator-configured relay; never a customer-supplied host",
	"internal/payment":         "the payment provider's API at an operator-configured base URL",
	"cmd/loadbench":            "operator-run load tool aimed at the operator's own (loopback) instance",
	"cmd/concierge":            "the healthcheck subcommand asks the server's own /readyz on its loopback listen address",
	"cmd/kbbench":              "operator-run benchmark: asks POST /chat of the instance it starts itself on 127.0.0.1",
	"cmd/soak":                 "operator-run soak: drives the replicas, proxy and fakes it starts itself on 127.0.0.1",
	"internal/testkit":         "test support: the harness client talks only to the app it starts on 127.0.0.1",
	"internal/llm":             "language-model APIs at operator-configured base URLs; never a customer-supplied URL",
	"internal/retrieval":       "the embeddings server at the operator-configured CONCIERGE_EMBEDDINGS_BASE_URL; never a customer-supplied URL",
	"internal/lead/emailcheck": "the e-mail verification provider at an operator-configured URL (CONCIERGE_EMAIL_VERIFY_URL)",
	"internal/idp":             "the OpenID provider's discovery, keys and token endpoint at the operator-configured issuer (CONCIERGE_IDP_ISSUER); never a customer-supplied URL",
}

// forbiddenRefs are package-level identifiers whose mere use bypasses the
// guard: default clients/transports (environment proxy, no address checks)
// and package-level dial/fetch helpers.
var forbiddenRefs = map[string]map[string]bool{
	"net/http":   {"DefaultClient": true, "DefaultTransport": true, "Get": true, "Head": true, "Post": true, "PostForm": true},
	"net":        {"Dial": true, "DialTimeout": true, "DialTCP": true},
	"crypto/tls": {"Dial": true, "DialWithDialer": true},
}

// forbiddenTypes may not be constructed (composite literal, & of one, or
// new()): a hand-built client/transport/dialer has none of the checks.
var forbiddenTypes = map[string]map[string]bool{
	"net/http":   {"Client": true, "Transport": true},
	"net":        {"Dialer": true},
	"crypto/tls": {"Dialer": true},
}

type violation struct {
	pos  token.Position
	what string
}

// scanFile reports the forbidden uses in one file. It works on the AST, so
// comments and string literals never trip it, and it follows import
// renames ("import h \"net/http\"").
func scanFile(fset *token.FileSet, filename string, src any) ([]violation, error) {
	f, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	local := map[string]string{} // local package name → import path
	var out []violation
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if forbiddenRefs[path] == nil {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			out = append(out, violation{fset.Position(imp.Pos()), "dot-import of " + path + " (hides its uses from this check)"})
			continue
		}
		local[name] = path
	}
	if len(local) == 0 {
		return out, nil
	}
	// qualified returns the import path and name of pkg.Name, if e is one.
	qualified := func(e ast.Expr) (string, string, bool) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", "", false
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return "", "", false
		}
		path, ok := local[id.Name]
		return path, sel.Sel.Name, ok
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if path, name, ok := qualified(n); ok && forbiddenRefs[path][name] {
				out = append(out, violation{fset.Position(n.Pos()), path + "." + name})
			}
		case *ast.CompositeLit:
			if path, name, ok := qualified(n.Type); ok && forbiddenTypes[path][name] {
				out = append(out, violation{fset.Position(n.Pos()), path + "." + name + "{...}"})
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 {
				if path, name, ok := qualified(n.Args[0]); ok && forbiddenTypes[path][name] {
					out = append(out, violation{fset.Position(n.Pos()), "new(" + path + "." + name + ")"})
				}
			}
		}
		return true
	})
	return out, nil
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's working directory")
		}
		dir = parent
	}
}

// TestNoUnguardedHTTP is G12's static CI check: outside safehttp and
// staticAllow, no non-test file may use the default client/transport, the
// package-level fetch/dial helpers, or construct its own client, transport
// or dialer.
func TestNoUnguardedHTTP(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	allowedHits := map[string]int{}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			switch {
			case path == root:
				return nil
			case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" || name == "node_modules":
				return filepath.SkipDir
			case rel == "internal/safehttp":
				return filepath.SkipDir // the guarded package itself
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		vs, err := scanFile(fset, path, nil)
		if err != nil {
			// A file another engineer is mid-way through editing must not
			// hide violations elsewhere; report it and carry on.
			t.Errorf("%s: parse: %v", rel, err)
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		for _, v := range vs {
			if _, ok := staticAllow[pkg]; ok {
				allowedHits[pkg]++
				continue
			}
			line := v.pos.Line
			t.Errorf("%s:%d: uses %s: fetch customer URLs through internal/safehttp, or add %s to staticAllow with a reason", rel, line, v.what, pkg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("scanned no files: wrong module root?")
	}
	var pkgs []string
	for p := range staticAllow {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		t.Logf("allowlisted %s: %d use(s) (%s)", p, allowedHits[p], staticAllow[p])
	}
	t.Logf("scanned %d non-test files under %s", files, root)
}

// TestScanFileSelf proves the checker sees real uses through renamed
// imports and ignores look-alikes in comments, strings and other packages.
func TestScanFileSelf(t *testing.T) {
	src := `package p

import (
	h "net/http"
	"net"
	"crypto/tls"
	"fmt"
)

// http.Get( in a comment, http.DefaultClient, &http.Client{}
var s = "net.Dial( http.Get( &http.Transport{"

type myClient struct{ Client int }

func f() {
	_, _ = h.Get("x")                      // 1
	_ = h.DefaultClient                    // 2
	c := &h.Client{}                       // 3
	_ = h.Transport{}                      // 4
	_, _ = net.Dial("tcp", "x")            // 5
	_ = &net.Dialer{}                      // 6
	_ = new(h.Transport)                   // 7
	fn := h.PostForm                       // 8
	_, _ = tls.Dial("tcp", "x", nil)       // 9
	_ = h.DefaultTransport.(*h.Transport)  // 10
	var ok *h.Client                       // a type, not a construction
	_ = myClient{Client: 1}
	_ = fmt.Sprint(c, fn, ok, s)
	_, _ = h.NewRequest("GET", "x", nil)
}
`
	vs, err := scanFile(token.NewFileSet(), "p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, fmt.Sprintf("%d:%s", v.pos.Line, v.what))
	}
	want := []string{
		"16:net/http.Get", "17:net/http.DefaultClient", "18:net/http.Client{...}", "19:net/http.Transport{...}",
		"20:net.Dial", "21:net.Dialer{...}", "22:new(net/http.Transport)", "23:net/http.PostForm",
		"24:crypto/tls.Dial", "25:net/http.DefaultTransport",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	dot, _ := scanFile(token.NewFileSet(), "d.go", "package p\nimport . \"net/http\"\nvar _ = Get\n")
	if len(dot) != 1 {
		t.Errorf("dot-import not reported: %v", dot)
	}
}
