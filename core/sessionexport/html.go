package sessionexport

import (
	"html/template"
	"io"
	"strings"
	"sync"
	"time"
)

// The page holds its style and nothing else: no script, no font, no image
// to fetch, so it opens the same offline, in a mail, or years later. Every
// text goes through html/template, which escapes it; the only markup is
// the page's own. It is parsed on the first export, not when pi-tui
// starts.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"when":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
		"diffLine": diffClass,
		"lines":    func(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") },
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>{{.Title}}</title>
<style>
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #656d76; --user: #eef4ff; --asst: #f6f8fa; --line: #d0d7de; --add: #dafbe1; --del: #ffebe9; --err: #cf222e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #8d96a0; --user: #15233a; --asst: #161b22; --line: #30363d; --add: #12361f; --del: #3d1619; --err: #ff7b72; } }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); max-width: 920px; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.4rem; margin-bottom: .2rem; } h2 { font-size: 1.1rem; margin-top: 2rem; border-top: 1px solid var(--line); padding-top: 1rem; }
.meta { color: var(--muted); font-size: .85rem; }
.msg { border: 1px solid var(--line); border-radius: 8px; padding: .6rem .9rem; margin: .8rem 0; }
.user { background: var(--user); } .assistant { background: var(--asst); } .note { border-style: dashed; color: var(--muted); }
.who { font-weight: 600; font-size: .85rem; color: var(--muted); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: .5rem; margin: .4rem 0; }
details { margin: .4rem 0; } summary { cursor: pointer; font-family: ui-monospace, monospace; font-size: .9rem; }
.error summary, .error pre { color: var(--err); }
.add { background: var(--add); display: block; } .del { background: var(--del); display: block; } .hunk { color: var(--muted); display: block; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<div class="meta">pi session {{.ID}} · {{.Cwd}} · exported {{when .Now}}</div>
{{range .Branches}}{{if .Heading}}<h2>{{.Heading}}</h2>{{end}}
{{range .Items}}{{if eq .Kind "user"}}<div class="msg user"><div class="who">User · {{when .At}}</div>{{range .Texts}}<div class="text">{{.}}</div>{{end}}</div>
{{else if eq .Kind "assistant"}}<div class="msg assistant"><div class="who">Assistant{{if .Model}} · {{.Model}}{{end}} · {{when .At}}</div>
{{range .Think}}<details><summary>Thinking</summary><div class="text">{{.}}</div></details>{{end}}
{{range .Texts}}<div class="text">{{.}}</div>{{end}}
{{range .Calls}}<details class="call{{if .IsError}} error{{end}}"><summary>{{.Name}}{{if .Summary}}: {{.Summary}}{{end}}{{if .IsError}} (failed){{end}}</summary>
<pre>{{.Args}}</pre>{{if .Answered}}<div class="who">Result</div><pre>{{.Result}}</pre>{{else}}<div class="who">No result</div>{{end}}
{{range .Diffs}}<div class="who">{{.Status}} {{.Path}} +{{.Added}} −{{.Removed}}</div><pre>{{range lines .Diff}}<span class="{{diffLine .}}">{{.}}</span>{{end}}</pre>{{end}}
</details>{{end}}</div>
{{else}}<div class="msg note">{{range .Texts}}<div class="text">{{.}}</div>{{end}}</div>
{{end}}{{end}}{{end}}
</body>
</html>
`))
})

func diffClass(line string) string {
	switch {
	case strings.HasPrefix(line, "+++") || strings.HasPrefix(line, "---"):
		return "hunk"
	case strings.HasPrefix(line, "+"):
		return "add"
	case strings.HasPrefix(line, "-"):
		return "del"
	case strings.HasPrefix(line, "@@"):
		return "hunk"
	}
	return "ctx"
}

// The template's view of what it renders (exported names for the
// template package).
type pageView struct {
	Title, ID, Cwd string
	Now            time.Time
	Branches       []branchView
}

type branchView struct {
	Heading string
	Items   []itemView
}

type itemView struct {
	Kind, Model  string
	At           time.Time
	Texts, Think []string
	Calls        []callView
}

type callView struct {
	Name, Summary, Args, Result string
	IsError, Answered           bool
	Diffs                       []FileDiff
}

func view(title, id, cwd string, now time.Time, bs []branch) pageView {
	v := pageView{Title: title, ID: id, Cwd: cwd, Now: now}
	for _, b := range bs {
		bv := branchView{Heading: b.heading}
		for _, it := range b.items {
			iv := itemView{Kind: it.kind, Model: it.model, At: it.at, Texts: it.texts, Think: it.think}
			for _, c := range it.calls {
				iv.Calls = append(iv.Calls, callView{Name: c.name, Summary: c.summary, Args: c.args, Result: c.result, IsError: c.isError, Answered: c.answered, Diffs: c.diffs})
			}
			bv.Items = append(bv.Items, iv)
		}
		v.Branches = append(v.Branches, bv)
	}
	return v
}

func writeHTML(w io.Writer, v pageView) error { return page().Execute(w, v) }
