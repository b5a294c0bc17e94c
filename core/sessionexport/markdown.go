package sessionexport

import (
	"fmt"
	"io"
	"strings"
)

// writeMarkdown writes the page as Markdown: a heading a message, text as
// it was written (Markdown already, as models write it), and each tool
// call folded in <details> with its arguments, result and diffs fenced.
func writeMarkdown(w io.Writer, v pageView) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n_pi session %s · %s_\n", oneLine(v.Title), v.ID, oneLine(v.Cwd))
	for _, br := range v.Branches {
		if br.Heading != "" {
			fmt.Fprintf(&b, "\n---\n\n## %s\n", br.Heading)
		}
		for _, it := range br.Items {
			switch it.Kind {
			case "user":
				b.WriteString("\n### User\n\n")
			case "assistant":
				b.WriteString("\n### Assistant")
				if it.Model != "" {
					fmt.Fprintf(&b, " (%s)", oneLine(it.Model))
				}
				b.WriteString("\n\n")
			default:
				b.WriteString("\n> ")
				b.WriteString(strings.ReplaceAll(strings.Join(it.Texts, "\n\n"), "\n", "\n> "))
				b.WriteString("\n")
				continue
			}
			for _, t := range it.Think {
				b.WriteString("<details><summary>Thinking</summary>\n\n" + fence(t, "") + "\n</details>\n\n")
			}
			for _, t := range it.Texts {
				b.WriteString(t + "\n\n")
			}
			for _, c := range it.Calls {
				head := c.Name
				if c.Summary != "" {
					head += ": " + c.Summary
				}
				if c.IsError {
					head += " (failed)"
				}
				fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n%s\n", escapeSummary(head), fence(c.Args, "json"))
				if c.Answered {
					b.WriteString("\nResult:\n\n" + fence(c.Result, "") + "\n")
				}
				for _, d := range c.Diffs {
					fmt.Fprintf(&b, "\n%s %s +%d −%d\n\n%s\n", d.Status, oneLine(d.Path), d.Added, d.Removed, fence(d.Diff, "diff"))
				}
				b.WriteString("</details>\n\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fence puts s in a code block whose fence is longer than any run of
// backticks in s, so nothing in s can end it.
func fence(s, lang string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimSuffix(s, "\n") + "\n" + f + "\n"
}

// escapeSummary keeps a call's one line from closing the <summary> or
// opening markup of its own.
func escapeSummary(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(oneLine(s))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
