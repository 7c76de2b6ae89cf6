package knowledge

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/jobs"
	"concierge/internal/knowledge/extract"
	"concierge/internal/outbox"
	"concierge/internal/secret"
	"concierge/internal/store"
)

const jobIngest = "knowledge.ingest"

// Ingestion statuses (DESIGN.md).
const (
	StatusQueued    = "queued"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusPartial   = "partial"
)

// Upload is one uploaded file.
type Upload struct {
	Name string
	Data []byte
}

// FileCost is the preview of one file.
type FileCost struct {
	Name    string
	Format  string
	Bytes   int
	Pages   int
	Credits int64
	Error   string // why the file would be refused; it would cost nothing
}

// Preview is the cost of an upload before committing it.
type Preview struct {
	Files        []FileCost
	TotalCredits int64
	Balance      int64
	Sufficient   bool
}

// PreviewCost says what uploading files would cost, refusing what would be
// refused, and charges nothing. The cost rule is data: pages × the plan
// catalogue's ingest_per_page.
func (s *Service) PreviewCost(ctx context.Context, workspaceID, botID int64, files []Upload) (*Preview, error) {
	if err := s.checkUploads(ctx, workspaceID, botID, files); err != nil {
		return nil, err
	}
	ent, err := s.billing.Entitlements(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	per := ent.CreditCosts.IngestPerPage
	out := &Preview{Balance: ent.Usage.CreditsBalance}
	for _, f := range files {
		fc := FileCost{Name: cleanName(f.Name), Bytes: len(f.Data)}
		if int64(len(f.Data)) > ent.Limit("upload_bytes") {
			fc.Error = fmt.Sprintf("larger than the plan's %s upload limit", humanBytes(ent.Limit("upload_bytes")))
		} else if doc, err := extract.Extract(ctx, f.Name, f.Data, s.opts.Extract); err != nil {
			fc.Error = extractError(err).Error()
			var v *apperr.Validation
			if errors.As(extractError(err), &v) {
				fc.Error = v.Fields[0].Msg
			}
		} else {
			fc.Format, fc.Pages, fc.Credits = doc.Format, doc.Pages, int64(doc.Pages)*per
			out.TotalCredits += fc.Credits
		}
		out.Files = append(out.Files, fc)
	}
	out.Sufficient = out.TotalCredits <= out.Balance
	return out, nil
}

// checkUploads applies the rules every upload must meet before anything is
// stored: the bot is the caller's, the count and names are sane, and no
// file is empty or binary junk.
func (s *Service) checkUploads(ctx context.Context, workspaceID, botID int64, files []Upload) error {
	if err := s.ownBot(ctx, s.db.Reader(), workspaceID, botID); err != nil {
		return err
	}
	if len(files) == 0 {
		return apperr.Invalid("body.files", "send at least one file", "missing")
	}
	if len(files) > s.opts.MaxFiles {
		return apperr.Invalid("body.files", fmt.Sprintf("at most %d files per upload", s.opts.MaxFiles), "too_long")
	}
	return nil
}

// Ingestion is an upload and its progress.
type Ingestion struct {
	ID             int64      `db:"id"`
	PublicID       string     `db:"public_id"`
	WorkspaceID    int64      `db:"workspace_id"`
	BotID          int64      `db:"bot_id"`
	Status         string     `db:"status"`
	CreditsCharged int64      `db:"credits_charged"`
	Error          *string    `db:"error"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
	FinishedAt     *time.Time `db:"finished_at"`
	Files          []IngestionFile
}

// IngestionFile is one file's progress.
type IngestionFile struct {
	ID         int64   `db:"id"`
	Ordinal    int     `db:"ordinal"`
	Name       string  `db:"name"`
	Bytes      int64   `db:"bytes"`
	Status     string  `db:"status"`
	DocumentID *int64  `db:"document_id"`
	Passages   int     `db:"passages"`
	Credits    int64   `db:"credits"`
	Error      *string `db:"error"`
}

// Ingest stores an upload durably and queues its ingestion; the answer
// comes at once with the job id to poll. Files over the plan's size limit
// refuse the whole upload (413); unsupported, empty or binary files 422.
func (s *Service) Ingest(ctx context.Context, workspaceID, botID int64, files []Upload) (*Ingestion, error) {
	if err := s.checkUploads(ctx, workspaceID, botID, files); err != nil {
		return nil, err
	}
	ent, err := s.billing.Entitlements(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	if !ent.Serving {
		return nil, &apperr.SubscriptionRequired{Message: "the workspace is not serving: choose a plan to add knowledge"}
	}
	var bad []apperr.FieldError
	for i, f := range files {
		if max := ent.Limit("upload_bytes"); int64(len(f.Data)) > max {
			return nil, apperr.New(apperr.KindTooLarge, fmt.Sprintf("%s is larger than the plan's %s upload limit",
				cleanName(f.Name), humanBytes(max)))
		}
		if _, err := extract.Detect(f.Name, f.Data); err != nil {
			bad = append(bad, apperr.FieldError{Loc: []string{"body", "files", fmt.Sprint(i)},
				Msg: cleanName(f.Name) + ": " + err.Error(), Type: "value_error"})
		}
	}
	if len(bad) > 0 {
		return nil, &apperr.Validation{Fields: bad}
	}
	now := s.clock.Now()
	ing := &Ingestion{PublicID: secret.Token("ing_", 16), WorkspaceID: workspaceID, BotID: botID, Status: StatusQueued,
		CreatedAt: now, UpdatedAt: now}
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := store.Get(ctx, tx, &ing.ID, `INSERT INTO ingestions (public_id, workspace_id, bot_id, status, created_at,
			updated_at) VALUES (?, ?, ?, 'queued', ?, ?) RETURNING id`, ing.PublicID, workspaceID, botID, now, now); err != nil {
			return err
		}
		for i, f := range files {
			name := cleanName(f.Name)
			fi := IngestionFile{Ordinal: i, Name: name, Bytes: int64(len(f.Data)), Status: StatusQueued}
			if err := store.Get(ctx, tx, &fi.ID, `INSERT INTO ingestion_files (ingestion_id, workspace_id, bot_id, ordinal,
				name, bytes, status, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'queued', ?) RETURNING id`,
				ing.ID, workspaceID, botID, i, name, len(f.Data), now); err != nil {
				return err
			}
			if _, err := store.Exec(ctx, tx, `INSERT INTO ingestion_file_contents (file_id, content) VALUES (?, ?)`,
				fi.ID, f.Data); err != nil {
				return err
			}
			ing.Files = append(ing.Files, fi)
		}
		jobID, err := s.queue.EnqueueTx(ctx, tx, jobs.NewJob{Kind: jobIngest, WorkspaceID: workspaceID, BotID: botID,
			Payload: map[string]int64{"ingestion_id": ing.ID}, MaxAttempts: 5})
		if err != nil {
			return err
		}
		_, err = store.Exec(ctx, tx, `UPDATE ingestions SET job_id = ? WHERE id = ?`, jobID, ing.ID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("knowledge: ingest: %w", err)
	}
	s.queue.Wake()
	return ing, nil
}

// Status returns an ingestion of the workspace by its public job id; any
// other id, including another workspace's, is not found.
func (s *Service) Status(ctx context.Context, workspaceID int64, publicID string) (*Ingestion, error) {
	var ing Ingestion
	err := store.Get(ctx, s.db.Reader(), &ing, `SELECT id, public_id, workspace_id, bot_id, status, credits_charged, error,
		created_at, updated_at, finished_at FROM ingestions WHERE public_id = ? AND workspace_id = ?`, publicID, workspaceID)
	if store.IsNotFound(err) {
		return nil, apperr.NotFound("no ingestion job with this id")
	}
	if err != nil {
		return nil, fmt.Errorf("knowledge: ingestion status: %w", err)
	}
	if err := s.loadFiles(ctx, s.db.Reader(), &ing); err != nil {
		return nil, err
	}
	return &ing, nil
}

func (s *Service) loadFiles(ctx context.Context, q store.Q, ing *Ingestion) error {
	err := store.Select(ctx, q, &ing.Files, `SELECT id, ordinal, name, bytes, status, document_id, passages, credits, error
		FROM ingestion_files WHERE ingestion_id = ? ORDER BY ordinal`, ing.ID)
	if err != nil {
		return fmt.Errorf("knowledge: ingestion files: %w", err)
	}
	return nil
}

// ingestJob processes an ingestion's files one by one. It is safe to run
// again after a crash: finished files are skipped, and a file that was
// being indexed has its unfinished document removed and starts over (its
// debit key makes a second charge impossible).
func (s *Service) ingestJob(ctx context.Context, j *jobs.Job) error {
	var p struct {
		IngestionID int64 `json:"ingestion_id"`
	}
	if err := j.Decode(&p); err != nil {
		return err
	}
	var ing Ingestion
	err := store.Get(ctx, s.db.Reader(), &ing, `SELECT id, public_id, workspace_id, bot_id, status, credits_charged, error,
		created_at, updated_at, finished_at FROM ingestions WHERE id = ?`, p.IngestionID)
	if store.IsNotFound(err) {
		return nil // the bot (and its uploads) were deleted
	}
	if err != nil {
		return err
	}
	if err := s.loadFiles(ctx, s.db.Reader(), &ing); err != nil {
		return err
	}
	if _, err := store.Exec(ctx, s.db.Writer(), `UPDATE ingestions SET status = 'running', updated_at = ? WHERE id = ?
		AND status IN ('queued', 'running')`, s.clock.Now(), ing.ID); err != nil {
		return err
	}
	costs := s.billing.Costs()
	attemptStart := s.clock.Now()
	var todo []IngestionFile
	for _, f := range ing.Files {
		if f.Status != StatusCompleted && f.Status != StatusFailed {
			todo = append(todo, f)
		}
	}
	srcOf := func(f IngestionFile, content []byte) source {
		return source{WorkspaceID: ing.WorkspaceID, BotID: ing.BotID, Name: f.Name, Kind: "upload",
			Data: content, CostPerPage: costs.IngestPerPage, CreditKey: fmt.Sprintf("ingest-file:%d", f.ID),
			Started: func(docID int64) error {
				_, err := store.Exec(ctx, s.db.Writer(), `UPDATE ingestion_files SET document_id = ? WHERE id = ?`, docID, f.ID)
				return err
			},
			Published: func(ctx context.Context, tx *sqlx.Tx, res *indexed) error {
				return completeFile(ctx, tx, f.ID, res, s.clock.Now())
			}}
	}
	// While one file is written, the next is read and parsed on the other
	// cores: parsing touches no database, so it is safe ahead of time.
	// A retry after a crash may find every file already done: nothing to
	// read, only the ingestion to finish.
	var next <-chan prefetched
	if len(todo) > 0 {
		next = s.prefetch(ctx, ing.WorkspaceID, todo, srcOf)
	}
	for i, f := range todo {
		pre := <-next
		if i+1 < len(todo) {
			next = s.prefetch(ctx, ing.WorkspaceID, todo[i+1:], srcOf)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if pre.err != nil {
			return pre.err
		}
		// An attempt that crashed mid-file left a document in 'indexing'
		// (never retrievable): remove it before starting over. The
		// document id may not have been recorded yet, so look by name too.
		if f.DocumentID != nil {
			s.discard(*f.DocumentID)
		}
		if _, err := store.Exec(ctx, s.db.Writer(), `DELETE FROM documents WHERE bot_id = ? AND name = ? AND source = 'upload'
			AND status = 'indexing' AND created_at < ?`, ing.BotID, f.Name, attemptStart); err != nil {
			return err
		}
		s.setFile(ctx, f.ID, StatusRunning, nil, nil)
		res, err := s.index(ctx, pre.src, pre.parsed)
		if err != nil {
			// A transient failure retries the job (the file starts over),
			// except on the last attempt: then the file fails, so the
			// ingestion always ends completed, partial or failed.
			if ctx.Err() != nil || (isTransient(err) && j.Attempts < j.MaxAttempts) {
				return err
			}
			msg := userMessage(err)
			s.setFile(ctx, f.ID, StatusFailed, &msg, nil)
			continue
		}
		if res.Unchanged { // nothing was published: record it here
			s.setFile(ctx, f.ID, StatusCompleted, nil, res)
		}
	}
	return s.finishIngestion(ctx, ing.ID)
}

// prefetched is an upload's source with its parse under way.
type prefetched struct {
	src    source
	parsed <-chan *parsed
	err    error // reading the content failed
}

// prefetch reads the first file's content and starts parsing it in the
// background. The parse's result is buffered, so an abandoned prefetch
// (the job stopped) leaves no goroutine behind once parsing ends, which
// ctx bounds.
func (s *Service) prefetch(ctx context.Context, workspaceID int64, files []IngestionFile,
	srcOf func(IngestionFile, []byte) source) <-chan prefetched {
	out := make(chan prefetched, 1)
	go func() {
		f := files[0]
		var content []byte
		if err := store.Get(ctx, s.db.Reader(), &content, `SELECT c.content FROM ingestion_file_contents c
			JOIN ingestion_files f ON f.id = c.file_id WHERE c.file_id = ? AND f.workspace_id = ?`, f.ID, workspaceID); err != nil {
			out <- prefetched{err: err}
			return
		}
		src := srcOf(f, content)
		ch := make(chan *parsed, 1)
		out <- prefetched{src: src, parsed: ch}
		ch <- s.parse(ctx, src)
	}()
	return out
}

// completeFile records a file as indexed and drops its uploaded bytes.
func completeFile(ctx context.Context, tx store.Q, fileID int64, res *indexed, now time.Time) error {
	if _, err := store.Exec(ctx, tx, `UPDATE ingestion_files SET status = 'completed', document_id = ?, passages = ?,
		credits = ?, error = NULL, updated_at = ? WHERE id = ?`, res.DocumentID, res.Passages, res.Credits, now, fileID); err != nil {
		return err
	}
	_, err := store.Exec(ctx, tx, `DELETE FROM ingestion_file_contents WHERE file_id = ?`, fileID)
	return err
}

func (s *Service) setFile(ctx context.Context, fileID int64, status string, errMsg *string, res *indexed) {
	now := s.clock.Now()
	var err error
	switch {
	case res != nil:
		err = s.db.Tx(ctx, func(tx *sqlx.Tx) error { return completeFile(ctx, tx, fileID, res, now) })
	case status == StatusFailed:
		err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
			if _, err := store.Exec(ctx, tx, `UPDATE ingestion_files SET status = ?, error = ?, updated_at = ?
				WHERE id = ?`, status, errMsg, now, fileID); err != nil {
				return err
			}
			_, err := store.Exec(ctx, tx, `DELETE FROM ingestion_file_contents WHERE file_id = ?`, fileID)
			return err
		})
	default:
		_, err = store.Exec(ctx, s.db.Writer(), `UPDATE ingestion_files SET status = ?, updated_at = ? WHERE id = ?`, status, now, fileID)
	}
	if err != nil {
		s.log.WarnContext(ctx, "record file progress", "file_id", fileID, "err", err)
	}
}

func (s *Service) finishIngestion(ctx context.Context, id int64) error {
	var rows []struct {
		Status  string `db:"status"`
		Credits int64  `db:"credits"`
	}
	if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT status, credits FROM ingestion_files WHERE ingestion_id = ?`, id); err != nil {
		return err
	}
	ok, failed := 0, 0
	var credits int64
	for _, r := range rows {
		credits += r.Credits
		switch r.Status {
		case StatusCompleted:
			ok++
		case StatusFailed:
			failed++
		}
	}
	status := StatusCompleted
	switch {
	case ok == 0 && failed > 0:
		status = StatusFailed
	case failed > 0:
		status = StatusPartial
	}
	now := s.clock.Now()
	return s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var ing struct {
			WorkspaceID int64  `db:"workspace_id"`
			BotID       int64  `db:"bot_id"`
			PublicID    string `db:"public_id"`
		}
		if err := store.Get(ctx, tx, &ing, `SELECT workspace_id, bot_id, public_id FROM ingestions WHERE id = ?`, id); err != nil {
			return err
		}
		if _, err := store.Exec(ctx, tx, `UPDATE ingestions SET status = ?, credits_charged = ?, updated_at = ?, finished_at = ?
			WHERE id = ?`, status, credits, now, now, id); err != nil {
			return err
		}
		_, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: ing.WorkspaceID, BotID: ing.BotID, Type: "ingestion.finished",
			Data: map[string]any{"job_id": ing.PublicID, "status": status, "files_completed": ok, "files_failed": failed, "credits": credits}})
		return err
	})
}

// isTransient reports errors worth retrying the whole job for (the
// database or a dependency briefly unavailable), as opposed to a bad file.
func isTransient(err error) bool {
	k := apperr.KindOf(err)
	return k == apperr.KindUnavailable || k == apperr.KindInternal && !isDomainError(err)
}

func isDomainError(err error) bool {
	var (
		v  *apperr.Validation
		ic *apperr.InsufficientCredits
		lr *apperr.LimitReached
		sr *apperr.SubscriptionRequired
		fe *apperr.FeatureError
	)
	return errors.As(err, &v) || errors.As(err, &ic) || errors.As(err, &lr) || errors.As(err, &sr) || errors.As(err, &fe)
}

// userMessage is the per-file error shown in the status.
func userMessage(err error) string {
	var (
		v  *apperr.Validation
		ic *apperr.InsufficientCredits
		lr *apperr.LimitReached
		sr *apperr.SubscriptionRequired
		ae *apperr.Error
	)
	switch {
	case errors.As(err, &v) && len(v.Fields) > 0:
		return v.Fields[0].Msg
	case errors.As(err, &ic):
		return fmt.Sprintf("not enough credits: %d required, %d available", ic.Required, ic.Available)
	case errors.As(err, &lr):
		return lr.Message
	case errors.As(err, &sr):
		return sr.Message
	case errors.As(err, &ae) && ae.Message != "":
		return ae.Message
	}
	return "the file could not be indexed"
}

// cleanName keeps a file's base name, without control characters, bounded:
// it becomes the document_name.
func cleanName(name string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.TrimSpace(name))
	if name == "" || name == "." || name == "/" {
		name = "upload"
	}
	if len(name) > 200 {
		name = name[:200]
	}
	return name
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
