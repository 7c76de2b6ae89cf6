package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
)

//go:embed operator.html operator.js operator.css
var operatorFiles embed.FS

// The operator inbox page (GET /operator) and its script and style: static
// files, no inline code, so its Content-Security-Policy needs no hashes.
var (
	OperatorPage   = operatorAsset("operator.html")
	OperatorScript = operatorAsset("operator.js")
	OperatorStyle  = operatorAsset("operator.css")
)

// OperatorCSP is the inbox page's policy: its own script, style and API
// only; no framing.
const OperatorCSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
	"form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

func operatorAsset(name string) Asset {
	body, err := operatorFiles.ReadFile(name)
	if err != nil {
		panic("web: " + err.Error()) // embedded at build time: cannot fail
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(body)
	if err := zw.Close(); err != nil {
		panic("web: gzip " + name + ": " + err.Error())
	}
	sum := sha256.Sum256(body)
	tag := hex.EncodeToString(sum[:16])
	return Asset{Body: body, Gzip: buf.Bytes(), ETag: `"` + tag + `"`, GzipETag: `"` + tag + `-gzip"`}
}
