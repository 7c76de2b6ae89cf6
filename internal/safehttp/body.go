package safehttp

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
)

// maxEncodingLayers bounds "Content-Encoding: gzip, gzip, ..." stacking; a
// real server never needs more than one layer.
const maxEncodingLayers = 2

// ReadBody reads and closes resp.Body and returns at most max DECODED bytes.
//
// The guarded Transport disables Go's transparent decompression, so the
// Content-Encoding (gzip, x-gzip, deflate in zlib or raw form, identity) is
// decoded here, streaming, and reading stops with ErrTooLarge as soon as the
// decoded output passes max: a 1 GiB gzip bomb costs max bytes of memory and
// about max bytes of decompression work. A declared Content-Length above max
// is refused without reading. Unknown encodings are an error, not passed
// through, because the caller would otherwise parse compressed bytes.
func ReadBody(resp *http.Response, max int64) ([]byte, error) {
	if resp == nil || resp.Body == nil {
		return nil, errors.New("safehttp: response has no body")
	}
	defer resp.Body.Close()
	if max < 0 {
		max = 0
	}
	r, identity, err := decodedReader(resp)
	if err != nil {
		return nil, err
	}
	if c, ok := r.(io.Closer); ok && !identity {
		defer c.Close()
	}
	hint := int64(0)
	if identity && resp.ContentLength > 0 {
		if resp.ContentLength > max {
			return nil, fmt.Errorf("%w: Content-Length %d exceeds %d bytes", ErrTooLarge, resp.ContentLength, max)
		}
		hint = resp.ContentLength
	}
	return readAtMost(r, max, hint)
}

// readAtMost reads r to EOF, failing with ErrTooLarge once more than max
// bytes come out. It asks r for at most max+1 bytes in total, so a
// decompressor underneath never decodes much past the limit.
func readAtMost(r io.Reader, max, hint int64) ([]byte, error) {
	limit := max
	if limit < math.MaxInt64 {
		limit++
	}
	var buf bytes.Buffer
	if hint > 0 && hint <= max {
		buf.Grow(int(hint))
	}
	n, err := buf.ReadFrom(io.LimitReader(r, limit))
	if err != nil {
		return nil, err
	}
	if n > max {
		return nil, fmt.Errorf("%w: body exceeds %d bytes", ErrTooLarge, max)
	}
	return buf.Bytes(), nil
}

// decodedReader returns a reader of resp's decoded body; identity reports
// that no decoding was needed (so Content-Length describes the output).
func decodedReader(resp *http.Response) (r io.Reader, identity bool, err error) {
	var encs []string
	if !resp.Uncompressed { // Go already decoded it (not with our Transport)
		for _, v := range resp.Header.Values("Content-Encoding") {
			for _, e := range strings.Split(v, ",") {
				e = strings.ToLower(strings.TrimSpace(e))
				if e != "" && e != "identity" {
					encs = append(encs, e)
				}
			}
		}
	}
	if len(encs) == 0 {
		return resp.Body, true, nil
	}
	if len(encs) > maxEncodingLayers {
		return nil, false, fmt.Errorf("safehttp: %d stacked content encodings", len(encs))
	}
	r = resp.Body
	// Encodings are listed in the order applied, so undo them in reverse.
	for i := len(encs) - 1; i >= 0; i-- {
		switch encs[i] {
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(r)
			if errors.Is(err, io.EOF) {
				return http.NoBody, false, nil // HEAD, 204, or an empty body
			}
			if err != nil {
				return nil, false, fmt.Errorf("safehttp: gzip body: %w", err)
			}
			r = zr
		case "deflate":
			// RFC 9110 "deflate" is zlib-wrapped, but many servers send raw
			// DEFLATE; the zlib header is recognisable, so accept both.
			br := bufio.NewReader(r)
			hdr, err := br.Peek(2)
			if len(hdr) == 0 && errors.Is(err, io.EOF) {
				return http.NoBody, false, nil
			}
			if len(hdr) == 2 && hdr[0]&0x0f == 8 && (uint16(hdr[0])<<8|uint16(hdr[1]))%31 == 0 {
				zr, err := zlib.NewReader(br)
				if err != nil {
					return nil, false, fmt.Errorf("safehttp: deflate body: %w", err)
				}
				r = zr
			} else {
				r = flate.NewReader(br)
			}
		default:
			return nil, false, fmt.Errorf("safehttp: unsupported Content-Encoding %q", encs[i])
		}
	}
	return r, false, nil
}
