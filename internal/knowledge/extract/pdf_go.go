package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ledongthuc/pdf"
)

// abort is panicked from inside the library's callbacks to stop it: the
// library has no context parameter, but its interpreter calls us for every
// operator.
type abort struct{ err error }

// readPDFGo extracts text with github.com/ledongthuc/pdf. It must only run
// where a runaway parse can be killed (the sandbox child), or on platforms
// without one: recover() contains its panics, not its allocations.
func readPDFGo(ctx context.Context, data []byte, maxRunes int) (res *pdfText, err error) {
	defer func() {
		if r := recover(); r != nil {
			res = nil
			if a, ok := r.(abort); ok {
				err = a.err
				return
			}
			err = newErr(ErrMalformed, fmt.Errorf("pdf: panic: %v", r), "the PDF could not be read; it may be damaged")
		}
	}()
	ra := &pdfReaderAt{ctx: ctx, data: data}
	r, err := pdf.NewReader(ra, int64(len(data)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) {
			return nil, newErr(ErrUnsupported, err, "the PDF is password-protected")
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, newErr(ErrMalformed, err, "the PDF could not be read; it may be damaged")
	}
	res = &pdfText{Title: r.Trailer().Key("Info").Key("Title").Text()}
	pages, err := pageList(ctx, r)
	if err != nil {
		return nil, err
	}
	out := &pageWriter{ctx: ctx, maxBytes: maxRunes * 4}
	for _, p := range pages {
		res.Pages = append(res.Pages, out.page(p))
	}
	return res, nil
}

// pdfReaderAt serves the file to the library, fails every read once the
// deadline has passed (so loops that re-read objects stop), and presents
// PDF 2.0 headers as 1.7, which the library refuses for no other reason.
type pdfReaderAt struct {
	ctx  context.Context
	data []byte
}

func (r *pdfReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= int64(len(r.data)) {
		return 0, io.EOF
	}
	n := copy(p, r.data[off:])
	if off < 8 && strings.HasPrefix(string(r.data[:min(len(r.data), 8)]), "%PDF-2.") {
		for i := range n {
			if at := off + int64(i); at >= 5 && at < 8 {
				p[i] = "%PDF-1.7"[at]
			}
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// pageList walks the page tree iteratively with a node budget: the
// library's own Page(i) rescans the tree per page (quadratic) and follows
// cycles forever.
func pageList(ctx context.Context, r *pdf.Reader) ([]pdf.Page, error) {
	var pages []pdf.Page
	stack := []pdf.Value{r.Trailer().Key("Root").Key("Pages")}
	for visited := 0; len(stack) > 0; visited++ {
		if len(pages) > maxPDFPages {
			return nil, newErr(ErrTooLarge, nil, "the PDF has more than %d pages", maxPDFPages)
		}
		if visited > 4*maxPDFPages {
			return nil, newErr(ErrMalformed, nil, "the PDF could not be read; its page tree is damaged")
		}
		if visited%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		typ := v.Key("Type").Name()
		if typ == "" { // some writers leave out /Type
			switch {
			case v.Key("Kids").Kind() == pdf.Array:
				typ = "Pages"
			case !v.Key("Contents").IsNull():
				typ = "Page"
			}
		}
		switch typ {
		case "Page":
			pages = append(pages, pdf.Page{V: v})
		case "Pages":
			kids := v.Key("Kids")
			if kids.Len() > 2*maxPDFPages {
				return nil, newErr(ErrTooLarge, nil, "the PDF has more than %d pages", maxPDFPages)
			}
			for i := kids.Len() - 1; i >= 0; i-- {
				stack = append(stack, kids.Index(i))
			}
		}
	}
	return pages, nil
}

// pageWriter interprets content streams: text-showing operators give the
// text, positioning operators give spaces, line and paragraph breaks.
type pageWriter struct {
	ctx      context.Context
	maxBytes int
	total    int
	ops      int
	sb       strings.Builder
	pending  string  // horizontal separator owed before the next text
	y        float64 // current baseline
	textY    float64 // baseline of the last text shown
	lineY    float64 // baseline of the text line matrix (reset by BT)
	leading  float64
	size     float64
}

// page returns what could be read of one page; a malformed stream loses
// the rest of its page, not the document.
func (w *pageWriter) page(p pdf.Page) (text string) {
	w.sb.Reset()
	w.pending, w.y, w.textY, w.lineY, w.leading, w.size = "", 0, 0, 0, 0, 0
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(abort); ok {
				panic(r)
			}
			text = w.sb.String()
		}
	}()
	contents := p.V.Key("Contents")
	if contents.IsNull() {
		return ""
	}
	fonts := map[string]pdf.TextEncoding{}
	var enc pdf.TextEncoding
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		w.ops++
		if w.ops%256 == 0 && w.ctx.Err() != nil {
			panic(abort{w.ctx.Err()})
		}
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		num := func(i int) float64 {
			if i < len(args) {
				return args[i].Float64()
			}
			return 0
		}
		switch op {
		case "Tf":
			if len(args) == 2 {
				name := args[0].Name()
				e, ok := fonts[name]
				if !ok {
					f := p.Font(name)
					e = f.Encoder()
					fonts[name] = e
				}
				enc, w.size = e, math.Abs(num(1))
			}
		case "TL":
			w.leading = num(0)
		case "Td", "TD":
			if op == "TD" {
				w.leading = -num(1)
			}
			w.lineY += num(1)
			w.move(w.lineY)
		case "Tm":
			w.lineY = num(5)
			w.move(w.lineY)
		case "T*":
			w.nextLine()
		case "'", "\"":
			w.nextLine()
			if len(args) > 0 {
				w.show(enc, args[len(args)-1].RawString())
			}
		case "Tj":
			if len(args) == 1 {
				w.show(enc, args[0].RawString())
			}
		case "TJ":
			if len(args) != 1 {
				return
			}
			for i := 0; i < args[0].Len(); i++ {
				x := args[0].Index(i)
				if x.Kind() == pdf.String {
					w.show(enc, x.RawString())
				} else if x.Float64() < -250 { // a gap of a quarter em is a space
					w.space()
				}
			}
		case "BT":
			w.lineY = 0
			w.space()
		case "ET":
			w.space()
		}
	})
	return w.sb.String()
}

// nextLine is T*: down by the leading, or by a guess when none was set.
func (w *pageWriter) nextLine() {
	lead := w.leading
	if lead == 0 {
		lead = w.size * 1.2
	}
	w.lineY -= lead
	w.move(w.lineY)
}

// move goes to a new baseline; whether that is a space, a line break or
// a paragraph break is decided when text next appears, from the distance
// to the previous text.
func (w *pageWriter) move(y float64) {
	if math.Abs(y-w.y) < 0.5 {
		w.space()
	}
	w.y = y
}

// space records that the next text is apart from the previous one.
func (w *pageWriter) space() { w.pending = " " }

func (w *pageWriter) show(enc pdf.TextEncoding, raw string) {
	s := raw
	if enc != nil {
		s = enc.Decode(raw)
	}
	if s == "" {
		return
	}
	if w.sb.Len() > 0 {
		dy := math.Abs(w.y - w.textY)
		switch {
		case dy >= 0.5 && w.size > 0 && dy > 1.8*w.size:
			w.sb.WriteString("\n\n")
		case dy >= 0.5:
			w.sb.WriteByte('\n')
		case w.pending != "":
			w.sb.WriteString(w.pending)
		}
	}
	w.pending = ""
	w.textY = w.y
	w.sb.WriteString(s)
	w.total += len(s)
	if w.total > w.maxBytes {
		panic(abort{newErr(ErrTooLarge, nil, "the document has more than %d characters of text", w.maxBytes/4)})
	}
}
