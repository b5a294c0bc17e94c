package sessionexport

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// Write exports the session s (open, read-only is enough) to w.
func Write(w io.Writer, s *pisession.Session, o Options) error {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Format == JSONL {
		f, err := os.Open(s.File())
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	}
	title := o.Title
	if title == "" {
		title = s.Name()
	}
	bs := build(s, o)
	if title == "" {
		title = firstUserText(bs)
	}
	title = sessions.Label(title, "")
	if title == "" {
		title = "Session " + s.ID()
	}
	v := view(title, s.ID(), s.Header().Cwd, o.Now(), bs)
	switch o.Format {
	case HTML, "":
		return writeHTML(w, v)
	case Markdown:
		return writeMarkdown(w, v)
	}
	return fmt.Errorf("export: %q is not a format (html, md or jsonl)", o.Format)
}

func firstUserText(bs []branch) string {
	for _, b := range bs {
		for _, it := range b.items {
			if it.kind == "user" && len(it.texts) > 0 {
				return it.texts[0]
			}
		}
	}
	return ""
}
