package testkit

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"testing"
)

// File is one file of a multipart upload.
type File struct {
	Name string
	Data []byte
}

// Upload posts a multipart form with bot_id and files (the POST /ingest
// shape) to path with the workspace key.
func (a *TestApp) Upload(t testing.TB, path, key string, botID int64, files ...File) *Response {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if botID != 0 {
		if err := w.WriteField("bot_id", fmt.Sprint(botID)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		part, err := w.CreateFormFile("files", f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := part.Write(f.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", a.URL+path, &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("X-API-Key", key)
	res, err := a.Client.Do(req)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return &Response{Status: res.StatusCode, Header: res.Header, Body: raw}
}
