package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/url"

	"github.com/danielgtaylor/huma/v2"

	"concierge/internal/apperr"
	"concierge/internal/knowledge"
)

type uploadForm struct {
	BotID int64           `form:"bot_id" minimum:"1" doc:"The bot whose knowledge base receives the files."`
	Files []huma.FormFile `form:"files" doc:"One or more files: PDF, DOCX, HTML, Markdown, plain text or CSV."`
}

type uploadInput struct {
	RawBody huma.MultipartFormFiles[uploadForm]
}

// uploads reads the multipart files (each already capped by the request
// body limit).
func uploads(in *uploadInput) (int64, []knowledge.Upload, error) {
	form := in.RawBody.Data()
	if form == nil || form.BotID <= 0 {
		return 0, nil, apperr.Invalid("body.bot_id", "Field required", "missing")
	}
	out := make([]knowledge.Upload, 0, len(form.Files))
	for i, f := range form.Files {
		if !f.IsSet {
			continue
		}
		if err := checkTextField(f.Filename, "body", "files", i, "filename"); err != nil {
			return 0, nil, err
		}
		data, err := io.ReadAll(f.File)
		if err != nil {
			return 0, nil, apperr.BadRequest("cannot read the uploaded file " + f.Filename)
		}
		out = append(out, knowledge.Upload{Name: f.Filename, Data: data})
	}
	return form.BotID, out, nil
}

type previewOutput struct {
	Body struct {
		Files []struct {
			Name    string `json:"name"`
			Format  string `json:"format,omitempty"`
			Bytes   int    `json:"bytes"`
			Pages   int    `json:"pages"`
			Credits int64  `json:"credits"`
			Error   string `json:"error,omitempty" doc:"Why this file would be refused (it would cost nothing)."`
		} `json:"files"`
		TotalCredits int64 `json:"total_credits"`
		Balance      int64 `json:"balance"`
		Sufficient   bool  `json:"sufficient"`
	}
}

// IngestionView is an upload's progress.
type IngestionView struct {
	JobID          string              `json:"job_id"`
	BotID          int64               `json:"bot_id"`
	Status         string              `json:"status" enum:"queued,running,completed,failed,partial"`
	CreditsCharged int64               `json:"credits_charged"`
	Files          []IngestionFileView `json:"files"`
	Progress       struct {
		Total     int `json:"total"`
		Completed int `json:"completed"`
		Failed    int `json:"failed"`
	} `json:"progress"`
	CreatedAt  string  `json:"created_at"`
	FinishedAt *string `json:"finished_at"`
}

// IngestionFileView is one file's progress.
type IngestionFileView struct {
	Name     string  `json:"name"`
	Bytes    int64   `json:"bytes"`
	Status   string  `json:"status" enum:"queued,running,completed,failed"`
	Passages int     `json:"passages"`
	Credits  int64   `json:"credits"`
	Error    *string `json:"error"`
}

func ingestionView(ing *knowledge.Ingestion) IngestionView {
	v := IngestionView{JobID: ing.PublicID, BotID: ing.BotID, Status: ing.Status, CreditsCharged: ing.CreditsCharged,
		CreatedAt: timestamp(ing.CreatedAt), FinishedAt: optTime(ing.FinishedAt), Files: make([]IngestionFileView, len(ing.Files))}
	for i, f := range ing.Files {
		v.Files[i] = IngestionFileView{Name: f.Name, Bytes: f.Bytes, Status: f.Status, Passages: f.Passages, Credits: f.Credits, Error: f.Error}
		v.Progress.Total++
		switch f.Status {
		case knowledge.StatusCompleted:
			v.Progress.Completed++
		case knowledge.StatusFailed:
			v.Progress.Failed++
		}
	}
	return v
}

type ingestionOutput struct {
	Status int
	Body   IngestionView
}

type jobIDInput struct {
	JobID string `path:"job_id" maxLength:"64"`
}

type botQuery struct {
	BotID int64 `query:"bot_id" required:"true" minimum:"1"`
}

type documentsInput struct {
	BotID int64 `query:"bot_id" required:"true" minimum:"1"`
	Page  int   `query:"page" minimum:"1" default:"1"`
	Limit int   `query:"limit" minimum:"1" maximum:"200" default:"50"`
}

// DocumentView is a document of the knowledge base.
type DocumentView struct {
	DocumentName string  `json:"document_name" doc:"The file name, or the page's URL; the key for DELETE /documents/{document_name}."`
	BotID        int64   `json:"bot_id"`
	Source       string  `json:"source" enum:"upload,crawl"`
	URL          *string `json:"url"`
	Title        string  `json:"title"`
	Format       string  `json:"format"`
	Bytes        int64   `json:"bytes"`
	Pages        int     `json:"pages"`
	Passages     int     `json:"passages"`
	Credits      int64   `json:"credits"`
	UpdatedAt    string  `json:"updated_at"`
}

type documentsOutput struct {
	Body struct {
		Items []DocumentView `json:"items"`
		Total int            `json:"total"`
		Page  int            `json:"page"`
		Limit int            `json:"limit"`
	}
}

type stateOutput struct {
	Body struct {
		BotID          int64   `json:"bot_id"`
		Trained        bool    `json:"trained" doc:"The bot has at least one ready document."`
		Documents      int     `json:"documents"`
		Files          int     `json:"files"`
		Pages          int     `json:"pages" doc:"Crawled pages."`
		Passages       int     `json:"passages"`
		Tokens         int64   `json:"tokens"`
		Indexing       int     `json:"indexing" doc:"Documents being indexed now."`
		CrawlRunning   bool    `json:"crawl_running"`
		RecrawlEnabled bool    `json:"recrawl_enabled"`
		LastUpdatedAt  *string `json:"last_updated_at"`
	}
}

type deleteDocumentInput struct {
	Name  string `path:"document_name" maxLength:"4096" doc:"URL-encode names that contain slashes (crawled pages)."`
	BotID int64  `query:"bot_id" minimum:"1" doc:"Needed when several bots have a document of this name."`
}

type deletedDocumentOutput struct {
	Body struct {
		Deleted      bool   `json:"deleted"`
		DocumentName string `json:"document_name"`
	}
}

type crawlInput struct {
	Body struct {
		BotID    int64  `json:"bot_id" minimum:"1"`
		URL      string `json:"url" minLength:"1" maxLength:"2048" doc:"http(s) URL of the site; only its registrable domain is crawled."`
		MaxPages int    `json:"max_pages,omitempty" minimum:"1" maximum:"100000" doc:"Default and upper bound: the plan's crawl_pages."`
	}
}

type discoverOutput struct {
	Body struct {
		URL   string   `json:"url"`
		Pages []string `json:"pages"`
		Count int      `json:"count"`
	}
}

// CrawlView is a crawl's progress.
type CrawlView struct {
	Status       string  `json:"status" enum:"idle,queued,running,completed,cancelled,failed"`
	CrawlID      string  `json:"crawl_id,omitempty"`
	Kind         string  `json:"kind,omitempty" enum:"crawl,recrawl"`
	URL          string  `json:"url,omitempty"`
	MaxPages     int     `json:"max_pages,omitempty"`
	PagesFound   int     `json:"pages_found"`
	PagesFetched int     `json:"pages_fetched"`
	PagesIndexed int     `json:"pages_indexed"`
	PagesFailed  int     `json:"pages_failed"`
	PagesSkipped int     `json:"pages_skipped_robots"`
	CurrentURL   *string `json:"current_url"`
	Credits      int64   `json:"credits_charged"`
	Error        *string `json:"error"`
	StartedAt    *string `json:"started_at"`
	FinishedAt   *string `json:"finished_at"`
}

func crawlView(c *knowledge.Crawl) CrawlView {
	if c == nil {
		return CrawlView{Status: knowledge.CrawlIdle}
	}
	started := timestamp(c.CreatedAt)
	return CrawlView{Status: c.Status, CrawlID: c.PublicID, Kind: c.Kind, URL: c.RootURL, MaxPages: c.MaxPages,
		PagesFound: c.Found, PagesFetched: c.Fetched, PagesIndexed: c.Indexed, PagesFailed: c.Failed, PagesSkipped: c.Skipped,
		CurrentURL: c.CurrentURL, Credits: c.CreditsCharged, Error: c.Error, StartedAt: &started, FinishedAt: optTime(c.FinishedAt)}
}

type crawlOutput struct {
	Status int
	Body   CrawlView
}

type crawlCancelInput struct {
	Body struct {
		BotID int64 `json:"bot_id" minimum:"1"`
	}
}

func (s *Server) knowledgeRoutes() {
	tags := []string{"Knowledge base"}
	maxUpload := s.knowledge.MaxUploadBytes()
	register(s, route{id: "ingest-preview-cost", method: http.MethodPost, path: "/ingest/preview-cost", tags: tags,
		creds: credWorkspace, limit: limitPreviewCost, maxBody: maxUpload, summary: "What an upload would cost, before committing",
		desc: "Multipart like POST /ingest. Charges nothing. Cost rule (data, from the plan catalogue): pages × " +
			"credit_costs.ingest_per_page, where a PDF page is a page and other formats count one page per 3,000 " +
			"characters. Unsupported, empty, binary or oversized files are listed with the reason and cost nothing.",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *uploadInput) (*previewOutput, error) {
			botID, files, err := uploads(in)
			if err != nil {
				return nil, err
			}
			p, err := s.knowledge.PreviewCost(ctx, principal(ctx).WorkspaceID(), botID, files)
			if err != nil {
				return nil, err
			}
			out := &previewOutput{}
			for _, f := range p.Files {
				out.Body.Files = append(out.Body.Files, struct {
					Name    string `json:"name"`
					Format  string `json:"format,omitempty"`
					Bytes   int    `json:"bytes"`
					Pages   int    `json:"pages"`
					Credits int64  `json:"credits"`
					Error   string `json:"error,omitempty" doc:"Why this file would be refused (it would cost nothing)."`
				}{f.Name, f.Format, f.Bytes, f.Pages, f.Credits, f.Error})
			}
			out.Body.TotalCredits, out.Body.Balance, out.Body.Sufficient = p.TotalCredits, p.Balance, p.Sufficient
			return out, nil
		})

	register(s, route{id: "ingest", method: http.MethodPost, path: "/ingest", tags: tags, creds: credWorkspace,
		limit: limitIngest, maxBody: maxUpload, status: http.StatusAccepted, summary: "Upload files to a bot's knowledge base",
		desc: "Multipart: bot_id and one or more files. 202 with job_id; poll GET /ingest/status/{job_id}. A file with " +
			"the name of an existing document replaces it. Credits are charged per file once it is indexed. 413 when " +
			"a file exceeds the plan's upload size; 422 for unsupported, empty or binary files.",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *uploadInput) (*ingestionOutput, error) {
			botID, files, err := uploads(in)
			if err != nil {
				return nil, err
			}
			ing, err := s.knowledge.Ingest(ctx, principal(ctx).WorkspaceID(), botID, files)
			if err != nil {
				return nil, err
			}
			return &ingestionOutput{Status: http.StatusAccepted, Body: ingestionView(ing)}, nil
		})

	register(s, route{id: "ingest-status", method: http.MethodGet, path: "/ingest/status/{job_id}", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Progress of an upload", errors: []int{http.StatusNotFound}},
		func(ctx context.Context, in *jobIDInput) (*ingestionOutput, error) {
			ing, err := s.knowledge.Status(ctx, principal(ctx).WorkspaceID(), in.JobID)
			if err != nil {
				return nil, err
			}
			return &ingestionOutput{Status: http.StatusOK, Body: ingestionView(ing)}, nil
		})

	register(s, route{id: "list-documents", method: http.MethodGet, path: "/documents", tags: tags, creds: credWorkspace,
		limit: limitRead, summary: "Indexed documents and pages of a bot", errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *documentsInput) (*documentsOutput, error) {
			docs, total, err := s.knowledge.Documents(ctx, principal(ctx).WorkspaceID(), in.BotID, in.Page, in.Limit)
			if err != nil {
				return nil, err
			}
			out := &documentsOutput{}
			out.Body.Items = make([]DocumentView, len(docs))
			for i, d := range docs {
				out.Body.Items[i] = DocumentView{DocumentName: d.Name, BotID: d.BotID, Source: d.Source, URL: d.URL, Title: d.Title,
					Format: d.ContentType, Bytes: d.Bytes, Pages: d.Pages, Passages: d.Passages, Credits: d.Credits,
					UpdatedAt: timestamp(d.UpdatedAt)}
			}
			out.Body.Total, out.Body.Page, out.Body.Limit = total, in.Page, in.Limit
			return out, nil
		})

	register(s, route{id: "knowledge-state", method: http.MethodGet, path: "/documents/knowledge-state", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Whether a bot is trained, and on how much",
		errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *botQuery) (*stateOutput, error) {
			st, err := s.knowledge.KnowledgeState(ctx, principal(ctx).WorkspaceID(), in.BotID)
			if err != nil {
				return nil, err
			}
			out := &stateOutput{}
			b := &out.Body
			b.BotID, b.Trained, b.Documents, b.Files, b.Pages = in.BotID, st.Trained, st.Documents, st.Files, st.Pages
			b.Passages, b.Tokens, b.Indexing, b.CrawlRunning, b.RecrawlEnabled = st.Passages, st.Tokens, st.Indexing, st.CrawlRunning, st.RecrawlEnabled
			b.LastUpdatedAt = optTime(st.LastUpdatedAt)
			return out, nil
		})

	register(s, route{id: "delete-document", method: http.MethodDelete, path: "/documents/{document_name}", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "Remove a document and its passages",
		desc:   "409 when several bots have a document of this name and bot_id is not given.",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusConflict}},
		func(ctx context.Context, in *deleteDocumentInput) (*deletedDocumentOutput, error) {
			name, err := url.PathUnescape(in.Name)
			if err != nil {
				return nil, apperr.Invalid("path.document_name", "not a valid escaped name", "value_error")
			}
			if err := s.knowledge.DeleteDocument(ctx, principal(ctx).WorkspaceID(), in.BotID, name); err != nil {
				return nil, err
			}
			out := &deletedDocumentOutput{}
			out.Body.Deleted, out.Body.DocumentName = true, name
			return out, nil
		})

	s.crawlRoutes(tags)
}

func (s *Server) crawlRoutes(tags []string) {
	register(s, route{id: "crawl-discover", method: http.MethodPost, path: "/crawl/discover", tags: tags, creds: credWorkspace,
		limit: limitDiscover, summary: "Pages a crawl would visit, without indexing them",
		desc: "From the site's sitemaps (indexes and gzip included) and the links of the page, same registrable " +
			"domain only, robots.txt respected, up to the plan's crawl_pages.",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *crawlInput) (*discoverOutput, error) {
			pages, err := s.knowledge.Discover(ctx, principal(ctx).WorkspaceID(), in.Body.BotID, in.Body.URL, in.Body.MaxPages)
			if err != nil {
				return nil, err
			}
			out := &discoverOutput{}
			out.Body.URL, out.Body.Pages, out.Body.Count = in.Body.URL, pages, len(pages)
			return out, nil
		})

	register(s, route{id: "crawl", method: http.MethodPost, path: "/crawl", tags: tags, creds: credWorkspace, limit: limitCrawl,
		status: http.StatusAccepted, summary: "Crawl a site into a bot's knowledge base",
		desc: "202; poll GET /crawl/progress?bot_id=. One crawl per bot at a time (409). Pages are indexed by URL " +
			"(a page already indexed is replaced); each indexed page costs credit_costs.crawl_page; the crawl stops " +
			"early when credits or the plan's document limit run out.",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *crawlInput) (*crawlOutput, error) {
			c, err := s.knowledge.StartCrawl(ctx, principal(ctx).WorkspaceID(), in.Body.BotID, in.Body.URL, in.Body.MaxPages)
			if err != nil {
				return nil, err
			}
			return &crawlOutput{Status: http.StatusAccepted, Body: crawlView(c)}, nil
		})

	register(s, route{id: "crawl-progress", method: http.MethodGet, path: "/crawl/progress", tags: tags, creds: credWorkspace,
		limit: limitRead, summary: "Progress of a bot's latest crawl", desc: "status idle when the bot never crawled.",
		errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *botQuery) (*crawlOutput, error) {
			c, err := s.knowledge.Progress(ctx, principal(ctx).WorkspaceID(), in.BotID)
			if err != nil {
				return nil, err
			}
			return &crawlOutput{Status: http.StatusOK, Body: crawlView(c)}, nil
		})

	register(s, route{id: "crawl-cancel", method: http.MethodPost, path: "/crawl/cancel", tags: tags, creds: credWorkspace,
		limit: limitWrite, summary: "Cancel a bot's running crawl",
		desc:   "The crawl stops within seconds; pages already indexed are kept. 409 when no crawl is running.",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusConflict}},
		func(ctx context.Context, in *crawlCancelInput) (*crawlOutput, error) {
			c, err := s.knowledge.CancelCrawl(ctx, principal(ctx).WorkspaceID(), in.Body.BotID)
			if err != nil {
				return nil, err
			}
			return &crawlOutput{Status: http.StatusOK, Body: crawlView(c)}, nil
		})
}
