package pisession

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// branchFile writes a session file: the header and the given entry lines
// (each a JSON object without type-independent boilerplate filled in: the
// caller writes whole lines, so the test reads like the file).
func branchFile(t testing.TB, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"01a231da-1e6b-72ea-9a58-0448668bdb4c","timestamp":"2026-12-01T13:45:07.948Z","cwd":"/home/user/src/proj"}` + "\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	writeFile(t, p, b.String())
	return p
}

const ts = `"timestamp":"2026-12-01T13:45:08.000Z"`

func parentOf(parent string) string {
	if parent == "" {
		return "null"
	}
	return `"` + parent + `"`
}

func entryMsg(id, parent, role, content string) string {
	extra := ""
	switch role {
	case RoleAssistant:
		extra = `,"api":"openai-completions","provider":"fake","model":"fake-model","usage":{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"stop"`
	case RoleToolResult:
		extra = `,"toolCallId":"c1","toolName":"read","isError":false`
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,%s,"message":{"role":%q,"content":%s%s,"timestamp":1796132708005}}`, id, parentOf(parent), ts, role, content, extra)
}

func user(id, parent, text string) string {
	return entryMsg(id, parent, RoleUser, `[{"type":"text","text":`+quote(text)+`}]`)
}

func asst(id, parent, text string) string {
	return entryMsg(id, parent, RoleAssistant, `[{"type":"text","text":`+quote(text)+`}]`)
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func system(id, parent string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,%s,"message":{"role":"system","content":"","sections":{"preamble":"You are pi"},"toolsAdded":[{"name":"read","description":"Read","parameters":{}}],"timestamp":1796132708005}}`, id, parentOf(parent), ts)
}

func editLine(id, parent, target, replacement string) string {
	return fmt.Sprintf(`{"type":"context_edit","id":%q,"parentId":%s,%s,"targetId":%q,"replacement":%s}`, id, parentOf(parent), ts, target, replacement)
}

func usageLine(id, parent, kind string) string {
	return fmt.Sprintf(`{"type":"usage","id":%q,"parentId":%s,%s,"kind":%q,"provider":"anthropic","model":"m","usage":{"input":0,"output":0,"cacheRead":50000,"cacheWrite":0,"totalTokens":50000,"cost":{"input":0,"output":0,"cacheRead":0.015,"cacheWrite":0,"total":0.015}}}`, id, parentOf(parent), ts, kind)
}

func compaction(id, parent, summary, firstKept string, system bool) string {
	sm := ""
	if system {
		sm = `,"systemMessage":{"role":"system","content":"checkpoint","toolsAdded":[],"timestamp":1796132708005}`
	}
	return fmt.Sprintf(`{"type":"compaction","id":%q,"parentId":%s,%s,"summary":%q,"firstKeptEntryId":%q,"tokensBefore":100%s}`, id, parentOf(parent), ts, summary, firstKept, sm)
}

func sum(s string) string { return "user:" + CompactionSummaryText(s) }

// Each rule of pi 1.6's context building (session-manager's
// buildContextEntries and buildSessionProjection), over a hand-written
// branch: what the model is sent.
func TestContextAsPi16(t *testing.T) {
	for _, c := range pi16Cases() {
		t.Run(c.name, func(t *testing.T) {
			s := mustOpen(t, branchFile(t, c.lines...))
			ctx, err := s.Context()
			if err != nil {
				t.Fatal(err)
			}
			if got := contextTexts(t, ctx); !reflect.DeepEqual(got, c.want) {
				t.Errorf("context\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// pi16Case is a hand-written branch and the context pi 1.6 sends for it.
// piFails marks a branch pi itself cannot load (it throws), where pi-tui's
// rule is its own.
type pi16Case struct {
	name    string
	lines   []string
	want    []string
	piFails bool
}

func pi16Cases() []pi16Case {
	return []pi16Case{
		{"system messages are never conversation", []string{
			system("s1", ""), user("u1", "s1", "hi"), asst("a1", "u1", "hello"), system("s2", "a1"), user("u2", "s2", "next"),
		}, []string{"user:hi", "assistant:hello", "user:next"}, false},
		{"usage entries are counted, not sent", []string{
			user("u1", "", "hi"), usageLine("k1", "u1", "cache_warm"), usageLine("k2", "k1", "some_future_kind"), asst("a1", "k2", "hello"),
		}, []string{"user:hi", "assistant:hello"}, false},
		{"unknown entry types are kept and skipped", []string{
			user("u1", "", "hi"), `{"type":"future_thing","id":"f1","parentId":"u1",` + ts + `,"x":1}`, asst("a1", "f1", "hello"),
		}, []string{"user:hi", "assistant:hello"}, false},
		{"a null replacement leaves the target out", []string{
			user("u1", "", "hi"), asst("a1", "u1", "secret"), editLine("e1", "a1", "a1", "null"), user("u2", "e1", "next"),
		}, []string{"user:hi", "user:next"}, false},
		{"a replacement changes only the content; a string stays a string for user", []string{
			user("u1", "", "hi"), asst("a1", "u1", "long"), editLine("e1", "a1", "u1", `{"content":"short hi"}`), user("u2", "e1", "next"),
		}, []string{"user:(string)short hi", "assistant:long", "user:next"}, false},
		{"a string replacement becomes one text part for assistant and tool results", []string{
			user("u1", "", "hi"), entryMsg("a1", "u1", RoleAssistant, `[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]`),
			entryMsg("t1", "a1", RoleToolResult, `[{"type":"text","text":"huge output"}]`),
			editLine("e1", "t1", "t1", `{"content":"(elided)"}`), editLine("e2", "e1", "a1", `{"content":"called read"}`),
		}, []string{"user:hi", "assistant:called read", "toolResult:(elided)"}, false},
		{"the latest edit on the branch wins", []string{
			user("u1", "", "hi"), editLine("e1", "u1", "u1", `{"content":[{"type":"text","text":"first"}]}`),
			editLine("e2", "e1", "u1", `{"content":[{"type":"text","text":"second"}]}`),
		}, []string{"user:second"}, false},
		{"a later null edit wins over an earlier replacement", []string{
			user("u1", "", "hi"), asst("a1", "u1", "x"), editLine("e1", "a1", "u1", `{"content":"r"}`), editLine("e2", "e1", "u1", "null"),
		}, []string{"assistant:x"}, false},
		{"edits on another branch change nothing", []string{
			user("u1", "", "hi"), asst("a1", "u1", "hello"), editLine("e1", "a1", "u1", "null"), user("u2", "a1", "other branch"),
		}, []string{"user:hi", "assistant:hello", "user:other branch"}, false},
		{"an edit before the target's own position still applies (branch order, not target order)", []string{
			user("u1", "", "hi"), editLine("e1", "u1", "u1", `{"content":"edited"}`), asst("a1", "e1", "hello"),
		}, []string{"user:(string)edited", "assistant:hello"}, false},
		{"custom_message content is replaced and sent as parts", []string{
			user("u1", "", "hi"), `{"type":"custom_message","id":"m1","parentId":"u1",` + ts + `,"customType":"ext","content":"injected","display":true}`,
			editLine("e1", "m1", "m1", `{"content":"trimmed"}`),
		}, []string{"user:hi", "user:trimmed"}, false},
		{"a replacement of a branch summary leaves it as it was; null leaves it out", []string{
			user("u1", "", "hi"), `{"type":"branch_summary","id":"b1","parentId":"u1",` + ts + `,"fromId":"x","summary":"left"}`,
			`{"type":"branch_summary","id":"b2","parentId":"b1",` + ts + `,"fromId":"y","summary":"gone"}`,
			editLine("e1", "b2", "b1", `{"content":"ignored"}`), editLine("e2", "e1", "b2", "null"),
		}, []string{"user:hi", "user:" + branchPrefix + "left" + branchSuffix}, false},
		{"a replacement without content, or not an object, is empty content", []string{
			user("u1", "", "hi"), asst("a1", "u1", "x"), editLine("e1", "a1", "u1", `{}`), editLine("e2", "e1", "a1", `"oops"`),
		}, []string{"user:", "assistant:"}, false},
		{"an edit pi cannot read is ignored and the earlier one stands", []string{
			user("u1", "", "hi"), editLine("e1", "u1", "u1", `{"content":"kept"}`),
			`{"type":"context_edit","id":"e2","parentId":"e1",` + ts + `,"targetId":"u1"}`,
			editLine("e3", "e2", "u1", `{"content":42}`),
		}, []string{"user:(string)kept"}, true},
		{"compaction: summary, kept entries without system messages, then the rest", []string{
			system("s1", ""), user("u1", "s1", "old"), asst("a1", "u1", "old answer"), user("u2", "a1", "kept"), system("s2", "u2"),
			asst("a2", "s2", "kept answer"), compaction("c1", "a2", "S", "u2", true), system("s3", "c1"), user("u3", "s3", "new"),
		}, []string{sum("S"), "user:kept", "assistant:kept answer", "user:new"}, false},
		{"a retain-none compaction names itself", []string{
			user("u1", "", "old"), asst("a1", "u1", "old answer"), compaction("c1", "a1", "S", "c1", true), user("u2", "c1", "new"),
		}, []string{sum("S"), "user:new"}, false},
		{"only the last compaction gives a summary; an earlier one in the kept range gives nothing", []string{
			user("u1", "", "old"), compaction("c1", "u1", "S1", "u1", false), user("u2", "c1", "mid"),
			compaction("c2", "u2", "S2", "u1", false), user("u3", "c2", "new"),
		}, []string{sum("S2"), "user:old", "user:mid", "user:new"}, false},
		{"an edit summarised away by a compaction changes nothing; one in the kept range does", []string{
			user("u1", "", "old"), editLine("e1", "u1", "u2x", "null"), user("u2x", "e1", "kept"), editLine("e2", "u2x", "u3", `{"content":"three"}`),
			user("u3", "e2", "3"), compaction("c1", "u3", "S", "u2x", false),
		}, []string{sum("S"), "user:kept", "user:(string)three"}, false},
		{"an edit targeting the compaction with null leaves its summary out", []string{
			user("u1", "", "old"), compaction("c1", "u1", "S", "c1", false), editLine("e1", "c1", "c1", "null"), user("u2", "e1", "new"),
		}, []string{"user:new"}, false},
		{"several roots: the branch is the leaf's", []string{
			user("u1", "", "first root"), asst("a1", "u1", "a"), user("u2", "", "second root"), asst("a2", "u2", "b"),
		}, []string{"user:second root", "assistant:b"}, false},
		{"full-UUID ids", []string{
			user("0198a3f2-6c1e-7d2a-9b3c-1f2e3d4c5b6a", "", "hi"),
			editLine("0198a3f2-6c1e-7d2a-9b3c-1f2e3d4c5b6b", "0198a3f2-6c1e-7d2a-9b3c-1f2e3d4c5b6a", "0198a3f2-6c1e-7d2a-9b3c-1f2e3d4c5b6a", `{"content":"uuid"}`),
		}, []string{"user:(string)uuid"}, false},
		{"a deferred assistant message is sent like any other", []string{
			user("u1", "", "hi"), strings.Replace(asst("a1", "u1", "later"), `"stopReason":"stop"`, `"stopReason":"deferred","thinkingLevel":"high","endTurn":true`, 1),
		}, []string{"user:hi", "assistant:later"}, false},
	}
}

// An edited message says which edit it carries, keeps every other member
// of its line (role, ids, usage), and the target's line is unchanged.
func TestEditedMessageKeepsItsMetadata(t *testing.T) {
	p := branchFile(t, user("u1", "", "hi"), entryMsg("t1", "u1", RoleToolResult, `[{"type":"text","text":"huge"}]`), editLine("e1", "t1", "t1", `{"content":"small"}`))
	before := readFile(t, p)
	s := mustOpen(t, p)
	c, err := s.Context()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != 2 || c.Messages[1].EditID != "e1" || c.Messages[0].EditID != "" {
		t.Fatalf("messages %+v", c.Messages)
	}
	m, err := c.Messages[1].Message()
	if err != nil {
		t.Fatal(err)
	}
	if m.Role != RoleToolResult || m.ToolCallID != "c1" || m.ToolName != "read" || m.Content.PlainText("") != "small" {
		t.Errorf("edited tool result %+v", m)
	}
	if e, _ := s.Get("t1"); !strings.Contains(string(e.Raw), `"huge"`) {
		t.Errorf("the target's line changed: %s", e.Raw)
	}
	if after := readFile(t, p); after != before {
		t.Errorf("reading the context changed the file")
	}
}

// Stats count as pi's get_session_stats: usage entries, compactions' and
// branch summaries' usage, assistant and tool-result usage; system
// messages are messages; every branch counts.
func TestStatsCountUsageEntries(t *testing.T) {
	tr := strings.Replace(entryMsg("t1", "a1", RoleToolResult, `[]`), `"isError":false`, `"isError":false,"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"total":0.25}}`, 1)
	p := branchFile(t,
		system("s1", ""), user("u1", "s1", "hi"),
		entryMsg("a1", "u1", RoleAssistant, `[{"type":"toolCall","id":"c1","name":"read","arguments":{}},{"type":"toolCall","id":"c2","name":"read","arguments":{}}]`),
		tr, usageLine("k1", "t1", "cache_warm"),
		strings.Replace(compaction("c1", "k1", "S", "c1", false), `"tokensBefore":100`, `"tokensBefore":100,"usage":{"input":100,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":110,"cost":{"total":1}}`, 1),
		asst("a2", "u1", "other branch"),
	)
	st := mustOpen(t, p).Stats()
	want := Stats{UserMessages: 1, AssistantMessages: 2, ToolCalls: 2, ToolResults: 1, TotalMessages: 5,
		Tokens: TokenTotals{Input: 10 + 1 + 100 + 10, Output: 5 + 1 + 10 + 5, CacheRead: 1 + 50000 + 1, CacheWrite: 2 + 2}}
	want.Tokens.Total = want.Tokens.Input + want.Tokens.Output + want.Tokens.CacheRead + want.Tokens.CacheWrite
	want.Cost = 0.5 + 0.25 + 0.015 + 1 + 0.5
	if st != want {
		t.Errorf("stats\n%+v\nwant\n%+v", st, want)
	}
	// The listing counts messages as pi's session list does: usage and
	// context_edit entries are not messages; system messages are.
	sums, err := List(ctxT(t), filepath.Dir(p), nil, Options{})
	if err != nil || len(sums) != 1 {
		t.Fatalf("list: %v %d", err, len(sums))
	}
	if sums[0].Messages != 5 {
		t.Errorf("listing counts %d messages, pi counts 5", sums[0].Messages)
	}
	_ = os.Remove(p)
}

// Whatever a context_edit line holds, building the context neither panics
// nor produces a message that is not valid JSON, and the target either
// keeps its text, loses it, or carries the edit's id.
func FuzzContextEdit(f *testing.F) {
	f.Add(`null`)
	f.Add(`{"content":"x"}`)
	f.Add(`{"content":[{"type":"text","text":"y"}]}`)
	f.Add(`{"content":42}`)
	f.Add(`"str"`)
	f.Add(`{"content":[1,2]}`)
	f.Add(`{"content":null}`)
	f.Fuzz(func(t *testing.T, replacement string) {
		line := `{"type":"context_edit","id":"e1","parentId":"a1",` + ts + `,"targetId":"a1","replacement":` + replacement + `}`
		s, err := Open(ctxT(t), branchFile(t, user("u1", "", "hi"), asst("a1", "u1", "hello"), line), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		c, err := s.Context()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range c.Messages {
			if !json.Valid(m.Raw) {
				t.Fatalf("message from %s is not JSON: %s", m.EntryID, m.Raw)
			}
			if m.EntryID == "a1" && m.EditID == "" && !strings.Contains(string(m.Raw), `"hello"`) {
				t.Fatalf("unedited target lost its text: %s", m.Raw)
			}
		}
	})
}
