package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/filesearch"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
)

type itemKind int

const (
	kindUser itemKind = iota
	kindAssistant
	kindTool
	kindNotice
	kindCompaction
)

// item is one block of the transcript. Items from the store keep their
// entry and are decoded only when first drawn, so opening a long session
// costs little; live items are built from events.
type item struct {
	kind  itemKind
	entry *sessions.Entry // decoded lazily
	ready bool
	// before is the nearest stored answer before this item: a tool
	// result's call (and its arguments) is in it or in an earlier one.
	before *item
	// known is what the file and this program know of stored tool results
	// beyond their entries, looked up by call once the entry is decoded.
	known *known

	text      string
	thinking  string
	partial   bool
	errText   string
	streaming bool

	// tool calls and results
	callID   string
	tool     string
	args     string
	path     string
	status   string // running, ok, error
	result   string
	toolMs   float64
	pre      *events.Preflight
	delivery *events.Delivery
	change   *memory.Change // a remember call's change (memory.go)
	undone   bool
	// live output and its view (tools.go)
	started  time.Time // when the call began, by the UI's clock
	output   string    // a running call's newest output
	skipped  int64     // bytes of its output before output, not kept
	expanded bool      // ctrl+o: its input and whole output shown
	marked   bool      // the selected call, the one ctrl+o acts on

	attached int // files sent before a user message (shown as a count)

	mild    bool // a notice that is information, not an error
	aborted bool // an answer the user aborted

	// drawn lines, cached for a width and the toggles they depend on
	cacheKey string
	lines    []string
}

// itemsFrom builds the items of a branch; ended holds the calls this
// program saw end (nil: none), whose live details outlast a reread.
func itemsFrom(path []sessions.Entry, ended map[string]*endedCall) []*item {
	// Deliveries are recorded after their tool result; link them back so a
	// resumed session shows what each result carried. The built-in engine
	// names the result's entry; the pi bridge, which writes before pi has
	// given the result an id, names the call.
	deliveries := map[string]*entries.DeliveryRecord{}
	k := &known{ended: ended}
	for i := range path {
		if path[i].Type == sessions.TypeCustom {
			var r entries.DeliveryRecord
			if json.Unmarshal(path[i].Payload(), &r) != nil || r.Kind != entries.CustomSubdirContext {
				continue
			}
			switch {
			case r.ToolResultID != "":
				deliveries[r.ToolResultID] = &r
			case r.ToolCallID != "":
				if k.byCall == nil {
					k.byCall = map[string]*entries.DeliveryRecord{}
				}
				k.byCall[r.ToolCallID] = &r
			}
		}
	}
	if k.byCall == nil && len(k.ended) == 0 {
		k = nil
	}
	out := make([]*item, 0, len(path))
	var answer *item // the latest answer so far
	for i := range path {
		e := &path[i]
		switch e.Type {
		case sessions.TypeUser:
			out = append(out, &item{kind: kindUser, entry: e})
		case sessions.TypeAssistant:
			answer = &item{kind: kindAssistant, entry: e, before: answer}
			out = append(out, answer)
		case sessions.TypeToolResult:
			it := &item{kind: kindTool, entry: e, before: answer, known: k}
			if r := deliveries[e.ID]; r != nil {
				it.delivery = deliveryOf(r)
			}
			out = append(out, it)
		case sessions.TypeCompaction:
			out = append(out, &item{kind: kindCompaction, entry: e})
		}
	}
	linkChanges(path, out)
	return out
}

// decode fills a stored item's fields from its entry.
func (it *item) decode() {
	if it.ready || it.entry == nil {
		it.ready = true
		return
	}
	it.ready = true
	if it.kind == kindCompaction {
		var c sessions.Compaction
		json.Unmarshal(it.entry.Payload(), &c)
		it.text = c.Summary
		return
	}
	var sm entries.StoredMessage
	if json.Unmarshal(it.entry.Payload(), &sm) != nil {
		it.errText = "(this entry cannot be read)"
		return
	}
	for _, p := range sm.Message.Parts {
		switch p.Type {
		case provider.PartText:
			it.text += p.Text
		case provider.PartThinking:
			it.thinking += p.Text
		case provider.PartToolCall:
			if it.args != "" {
				it.args += "\n"
			}
			it.args += p.ToolName + " " + string(p.Arguments)
		case provider.PartToolResult:
			it.callID, it.tool, it.result = p.ToolCallID, p.ToolName, p.Text
			it.status = "ok"
			if p.IsError {
				it.status = "error"
			}
		}
	}
	if it.kind == kindUser {
		// What was typed; the files attached to it are counted.
		it.text, it.attached = filesearch.SplitAttached(it.text)
	}
	it.partial, it.errText = sm.Partial, sm.Error
	if sm.StopReason == provider.StopAborted {
		// The user stopped it: that is not an error, and it reopens as it
		// was shown live.
		it.aborted, it.errText = true, ""
	}
	if it.kind == kindTool {
		it.tool, it.path, it.pre, it.toolMs = sm.Tool, sm.Path, sm.Preflight, sm.ToolMs
		if it.args == "" {
			it.args = callArgs(it.before, it.callID)
		}
		it.known.fill(it)
	}
}

// attachedNote says how many files a user message was sent with.
func (it *item) attachedNote() string {
	if it.attached == 0 {
		return ""
	}
	return "(+ " + common.Plural(it.attached, "file") + " attached)"
}

// callArgs returns the arguments of call id, from the nearest answer
// (answer, or one before it) that made the call: a stored tool result does
// not repeat them ("" when no answer has it).
func callArgs(answer *item, id string) string {
	for a := answer; a != nil && id != ""; a = a.before {
		var sm entries.StoredMessage
		if a.entry == nil || json.Unmarshal(a.entry.Payload(), &sm) != nil {
			continue
		}
		for _, p := range sm.Message.Parts {
			if p.Type == provider.PartToolCall && p.ToolCallID == id && len(p.Arguments) > 0 {
				return string(p.Arguments)
			}
		}
	}
	return ""
}

// render draws an item at width. Finished assistant text goes through
// glamour (markdown); while streaming it is wrapped plain text, so every
// token costs a wrap of one message, not a markdown render.
func (it *item) render(st *common.UI, width int, opts viewOpts) []string {
	key := fmt.Sprintf("%d|%v|%v|%d", width, opts.thinking, it.streaming, len(it.text)+len(it.thinking)+len(it.result)) + it.toolCacheKey(st, opts)
	if it.cacheKey == key && it.lines != nil {
		return it.lines
	}
	it.decode()
	var b strings.Builder
	// Everything here came from a model, a tool or a file: its controls
	// are shown, never sent to the terminal. Tabs are expanded before
	// wrapping: the width functions count a tab as nothing, the terminal
	// as a jump.
	wrap := func(s string) string {
		return indent(common.Wrap(strings.ReplaceAll(common.Visible(s), "\t", "    "), max(width-4, 10)))
	}
	switch it.kind {
	case kindUser:
		b.WriteString(st.Key.Render("you") + "\n" + wrap(it.text))
		if note := it.attachedNote(); note != "" {
			b.WriteString("\n" + st.Dim.Render(wrap(note)))
		}
	case kindAssistant:
		if it.text == "" && it.thinking == "" && it.errText == "" && !it.streaming {
			// A turn of tool calls only: its tool lines say it all; an
			// answer aborted before its first word says that.
			if !it.aborted {
				it.lines, it.cacheKey = nil, key
				return nil
			}
			b.WriteString(st.Dim.Render(wrap("· aborted before the answer began")))
			break
		}
		if it.text == "" && it.thinking == "" && !it.streaming {
			// The call failed before any answer arrived (a refused
			// connection, a rejected key): there is no answer, partial or
			// whole, only the error saying what failed.
			b.WriteString(st.Error.Render(wrap("✗ " + it.errText)))
			break
		}
		b.WriteString(st.Title.Render("pi"))
		if it.partial {
			b.WriteString(st.Warn.Render("  (partial: the answer was cut off or aborted)"))
		}
		b.WriteString("\n")
		if it.thinking != "" {
			if opts.thinking {
				b.WriteString(st.Dim.Render(wrap(it.thinking)) + "\n")
			} else {
				b.WriteString(st.Dim.Render(fmt.Sprintf("(thinking, %s: ctrl+t shows it)", common.Plural(len(it.thinking), "char"))) + "\n")
			}
		}
		text := it.text
		if !it.streaming && text != "" && opts.markdown != nil {
			if out, err := opts.markdown(common.MarkdownSafe(text), width); err == nil {
				text = strings.ReplaceAll(strings.Trim(common.SafeANSI(out), "\n"), "\t", "    ")
			} else {
				text = wrap(text)
			}
		} else {
			text = wrap(text)
		}
		b.WriteString(text)
		if it.errText != "" {
			b.WriteString("\n" + st.Error.Render(wrap("✗ "+it.errText)))
		}
	case kindTool:
		b.WriteString(it.toolLine(st, width, opts.params[it.tool]))
		b.WriteString(it.changeLines(st, width))
		b.WriteString(it.fileLines(st, width, opts))
		b.WriteString(it.outputLines(st, width))
		b.WriteString(it.expandedDiff(st, width, opts))
	case kindNotice:
		if it.mild {
			b.WriteString(st.Dim.Render(wrap("· " + it.text)))
		} else {
			b.WriteString(st.Error.Render(wrap("! " + it.text)))
		}
	case kindCompaction:
		b.WriteString(st.Dim.Render("── earlier conversation compacted; its summary:") + "\n" + st.Dim.Render(wrap(head(it.text, 8))))
	}
	it.lines = strings.Split(b.String(), "\n")
	it.lines = append(it.lines, "")
	it.cacheKey = key
	return it.lines
}

// toolLine is the compact line of a tool call: tool, target, status, time,
// preflight markers and the instructions its result carried.
func (it *item) toolLine(st *common.UI, width int, params []string) string {
	mark := map[string]string{"running": "…", "ok": "✓", "error": "✗"}[it.status]
	target := common.VisibleLine(it.path)
	switch {
	case !ownLine[it.tool]:
		// A tool pi shows by its arguments (an extension's, an MCP
		// server's): key=value in its schema's order.
		target = entries.ArgsLine(entries.ToolArgs(json.RawMessage(jsonPart(it.args)), params), argsLineMax)
	case it.tool == "bash" || target == "":
		target = argSummary(it.tool, it.args)
	}
	line := fmt.Sprintf("%s %s %s", mark, common.VisibleLine(it.tool), target)
	denial, why := it.failure()
	if denial != "" {
		line += " · " + denial
	}
	if it.status != "running" && it.toolMs > 0 {
		line += " · " + toolTime(it.toolMs)
	}
	if it.status == "running" && !it.started.IsZero() {
		line += " · " + elapsedText(st.Now().Sub(it.started))
	}
	if it.pre != nil {
		line += fmt.Sprintf(" · preflight %.1fms %s", it.pre.Ms, it.pre.Cache)
		if it.pre.Fallback != "" {
			line += " fallback:" + it.pre.Fallback
		}
	}
	if d := it.delivery; d != nil {
		var parts []string
		for _, f := range d.Delivered {
			p := fmt.Sprintf("+%s (%s)", f.Label, sizeText(f.Bytes))
			if f.Truncated {
				p += " cut"
			}
			parts = append(parts, p)
		}
		for _, f := range d.Deferred {
			parts = append(parts, "deferred "+f)
		}
		if d.Untrusted {
			parts = append(parts, "untrusted: nested instructions withheld")
		}
		if len(parts) == 0 {
			parts = append(parts, "chain: "+strings.Join(d.Chain, " › "))
		}
		line += " · instructions " + common.VisibleLine(strings.Join(parts, ", "))
	}
	if why != "" {
		line += " · " + why
	}
	style := st.Dim
	if it.status == "error" {
		style = st.Error
	}
	s := indent(common.Wrap(line, max(width-4, 10)))
	if it.marked {
		s = "▸" + s[1:] // the call ctrl+o acts on
	}
	return style.Render(s)
}

// indent puts two spaces before every line.
func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// ownLine are the tools whose line names their target (a path, a
// command) as pi's own display of them does; any other tool's line shows
// its arguments.
var ownLine = map[string]bool{"read": true, "write": true, "edit": true, "bash": true, "grep": true, "find": true, "ls": true}

// argsLineMax bounds the arguments on a tool's line, in runes (pi cuts
// them at 100 characters).
const argsLineMax = 100

// jsonPart is a call's arguments without the tool name a stored call's
// text may start with.
func jsonPart(args string) string {
	if i := strings.IndexByte(args, '{'); i >= 0 {
		return args[i:]
	}
	return args
}

// argSummary names a tool call's target from its arguments: the path, or
// bash's command.
func argSummary(tool, args string) string {
	var a map[string]any
	if json.Unmarshal([]byte(jsonPart(args)), &a) != nil {
		return ""
	}
	if tool == "bash" {
		c, _ := a["command"].(string)
		// A command's later lines must not hide behind its first: the
		// count comes first and says there are more.
		first, rest, multi := strings.Cut(strings.TrimSuffix(c, "\n"), "\n")
		c = common.VisibleLine(first)
		if r := []rune(c); len(r) > 60 {
			c = string(r[:59]) + "…"
		}
		if multi {
			c = fmt.Sprintf("(%d lines) %s⏎…", strings.Count(rest, "\n")+2, c)
		}
		return c
	}
	p, _ := a["path"].(string)
	return common.VisibleLine(p)
}

func sizeText(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}

type viewOpts struct {
	// params are the tools' schema orders the engine said (SetParams).
	params   map[string][]string
	thinking bool
	markdown func(string, int) (string, error)
	files    map[string]*callFiles
	hints    CardHints
	// target is the call ctrl+o acts on (its card says so).
	target *item
}

// head is s's first lines, with an ellipsis line when there are more.
func head(s string, lines int) string {
	parts := strings.SplitN(s, "\n", lines+1)
	if len(parts) > lines {
		return strings.Join(parts[:lines], "\n") + "\n…"
	}
	return s
}
