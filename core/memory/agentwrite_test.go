package memory

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/store"
)

// A value written by a newer pi-tui, with members this version does not
// know at both levels, survives a load and a save here untouched; the
// agent's mark is kept too.
func TestUnknownMembersAndAuthorSurviveASave(t *testing.T) {
	ctx := context.Background()
	svc, st, _ := newService(t)
	root := "/projects/future"
	stored := `{"format":"entries-v1","entries":[{"id":"a","title":"T","content":"user note","pinned":true,"tags":["x","y"]},` +
		`{"id":"b","title":"","content":"agent note","by":"agent","conf\u0069dence":0.5}],"content":"stale","updatedAt":7,"owner":{"name":"n"}}`
	if err := st.CompareAndSwapKV(ctx, Namespace, root, nil, stored); err != nil {
		t.Fatal(err)
	}
	m, err := svc.Load(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if m.Entries[1].By != ByAgent || m.Entries[0].By != "" {
		t.Fatalf("authors read as %q, %q", m.Entries[0].By, m.Entries[1].By)
	}
	// The user edits the first entry's content in an editor and saves.
	entries := append([]Entry(nil), m.Entries...)
	entries[0].Content = "user note, edited"
	if _, err := svc.Save(ctx, m, entries); err != nil {
		t.Fatal(err)
	}
	kv, _, _ := st.GetKV(ctx, Namespace, root)
	var got struct {
		Entries []map[string]json.RawMessage `json:"entries"`
		Owner   json.RawMessage              `json:"owner"`
	}
	if err := json.Unmarshal([]byte(kv.Value), &got); err != nil {
		t.Fatal(err)
	}
	if string(got.Owner) != `{"name":"n"}` {
		t.Errorf("top-level member lost: %s", kv.Value)
	}
	if string(got.Entries[0]["pinned"]) != "true" || string(got.Entries[0]["tags"]) != `["x","y"]` {
		t.Errorf("entry members lost: %s", kv.Value)
	}
	if string(got.Entries[1]["by"]) != `"agent"` || string(got.Entries[1]["confidence"]) != "0.5" {
		t.Errorf("agent mark or escaped-name member lost: %s", kv.Value)
	}
	// An entry without the mark does not gain one: readers that predate
	// it see exactly the members they know.
	if _, ok := got.Entries[0]["by"]; ok {
		t.Errorf("a user's entry was written with \"by\": %s", kv.Value)
	}
}

// Encoding by hand writes what encoding/json wrote before it: the bytes
// of a stored value do not change for a value with nothing new in it.
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	entries := []Entry{{ID: "a", Title: "<b> & \"q\"", Content: "line\n\ttab \u2028 \x01 \xff end"}, {ID: "b", Content: "plain"}}
	entries = Normalize(entries, nil)
	got, err := Encode(Value{Entries: entries, UpdatedAt: 42})
	if err != nil {
		t.Fatal(err)
	}
	type plain struct {
		ID      string `json:"id"`
		Title   string `json:"title"`
		Content string `json:"content"`
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(struct {
		Format    string  `json:"format"`
		Entries   []plain `json:"entries"`
		Content   string  `json:"content"`
		UpdatedAt int64   `json:"updatedAt"`
	}{Format, []plain{{entries[0].ID, entries[0].Title, entries[0].Content}, {entries[1].ID, entries[1].Title, entries[1].Content}}, Project(entries), 42})
	if want := strings.TrimSuffix(b.String(), "\n"); string(got) != want {
		t.Errorf("Encode:\n got %s\nwant %s", got, want)
	}
}

func TestApplyAddReplaceRemoveAndUndo(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newService(t)
	root := "/projects/api"
	m, _ := svc.Load(ctx, root)
	if _, err := svc.Save(ctx, m, []Entry{{ID: "style", Title: "Style", Content: "use gofmt"}}); err != nil {
		t.Fatal(err)
	}
	title := "Tests"
	_, add, err := svc.Apply(ctx, root, Op{Action: ActionAdd, Title: &title, Content: "  run go test ./...  "})
	if err != nil {
		t.Fatal(err)
	}
	if add.After.By != ByAgent || add.After.Content != "run go test ./..." || add.Index != 1 || add.Bytes != len("## Style\n\nuse gofmt\n\n## Tests\n\nrun go test ./...") {
		t.Fatalf("add change = %+v", add)
	}
	if !strings.HasPrefix(add.Summary(), "added entry "+add.After.ID+` "Tests" (memory now 48 of 32,768 bytes`) {
		t.Errorf("summary = %q", add.Summary())
	}
	_, rep, err := svc.Apply(ctx, root, Op{Action: ActionReplace, Match: "gofmt", Content: "use gofumpt"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Before.Content != "use gofmt" || rep.Before.By != "" || rep.After.Content != "use gofumpt" || rep.After.By != ByAgent || rep.After.Title != "Style" {
		t.Fatalf("replace change = %+v / %+v", rep.Before, rep.After)
	}
	_, rem, err := svc.Apply(ctx, root, Op{Action: ActionRemove, ID: "style"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := svc.Load(ctx, root)
	if len(got.Entries) != 1 || got.Entries[0].Title != "Tests" {
		t.Fatalf("after remove: %+v", got.Entries)
	}
	// Undo in reverse order brings back the user's entry, unmarked.
	if _, err := svc.Undo(ctx, rem); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Undo(ctx, rep); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Undo(ctx, add); err != nil {
		t.Fatal(err)
	}
	got, _ = svc.Load(ctx, root)
	if len(got.Entries) != 1 || got.Entries[0].Content != "use gofmt" || got.Entries[0].By != "" || got.Entries[0].ID != "style" {
		t.Fatalf("after undoing everything: %+v", got.Entries)
	}
	// A second undo finds the entry gone and changes nothing.
	if _, err := svc.Undo(ctx, add); !errors.Is(err, ErrUndoStale) {
		t.Errorf("undo twice: %v, want ErrUndoStale", err)
	}
}

// An undo never overwrites what someone wrote after the agent.
func TestUndoRefusesAnEntryChangedSince(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newService(t)
	_, add, err := svc.Apply(ctx, "/r", Op{Action: ActionAdd, Content: "agent's"})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := svc.Load(ctx, "/r")
	m.Entries[0].Content = "the user's now"
	if _, err := svc.Save(ctx, m, m.Entries); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Undo(ctx, add); !errors.Is(err, ErrUndoStale) {
		t.Fatalf("undo = %v, want ErrUndoStale", err)
	}
	if got, _ := svc.Load(ctx, "/r"); got.Content != "the user's now" {
		t.Errorf("memory = %q", got.Content)
	}
}

func TestApplyRefusesOverLimitAndBadTargets(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newService(t)
	root := "/r"
	m, _ := svc.Load(ctx, root)
	if _, err := svc.Save(ctx, m, []Entry{{ID: "big", Content: strings.Repeat("x", LimitBytes-60)}, {ID: "n2", Content: "note two"}, {ID: "n3", Content: "note three"}}); err != nil {
		t.Fatal(err)
	}
	before, _ := svc.Load(ctx, root)
	var tl *TooLargeError
	if _, _, err := svc.Apply(ctx, root, Op{Action: ActionAdd, Content: strings.Repeat("y", 100)}); !errors.As(err, &tl) {
		t.Fatalf("over the limit: %v", err)
	}
	for _, tc := range []struct {
		op   Op
		want string
	}{
		{Op{Action: ActionReplace, Match: "note", Content: "z"}, "more than one entry contains"},
		{Op{Action: ActionRemove, ID: "nope"}, `there is no entry with id "nope"; the ids are: big "xxxx`},
		{Op{Action: ActionRemove, Match: "absent"}, `no entry contains "absent"`},
		{Op{Action: ActionRemove}, "name the entry"},
		{Op{Action: ActionAdd, Content: "  "}, "content is empty"},
		{Op{Action: ActionReplace, ID: "n2"}, "replace needs a new content or title"},
		{Op{Action: "forget"}, `unknown action "forget"`},
	} {
		if _, _, err := svc.Apply(ctx, root, tc.op); err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want one line with %q", tc.op, err, tc.want)
		}
	}
	if after, _ := svc.Load(ctx, root); after.Content != before.Content || after.UpdatedAt != before.UpdatedAt {
		t.Error("a refused change changed the stored memory")
	}
}

// A save by someone else between the agent's load and its save is not
// overwritten: the agent's change is made again on top of it.
func TestApplyRetriesOnceOnTopOfAConcurrentSave(t *testing.T) {
	ctx := context.Background()
	root := "/r"
	// The store's clock is read by a save just before its compare-and-swap:
	// the first time the agent's save reads it, another editor saves.
	var other *Service
	race := false
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), store.FileName), store.Options{Now: func() time.Time {
		if race {
			race = false
			cur, _ := other.Load(ctx, root)
			if _, err := other.Save(ctx, cur, append(cur.Entries, Entry{ID: "late", Content: "late user note"})); err != nil {
				t.Error(err)
			}
		}
		return time.UnixMilli(1000)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, other := NewService(st), NewService(st)
	m, _ := other.Load(ctx, root)
	if _, err := other.Save(ctx, m, []Entry{{ID: "u", Content: "user"}}); err != nil {
		t.Fatal(err)
	}
	race = true
	_, ch, err := svc.Apply(ctx, root, Op{Action: ActionAdd, Content: "agent note"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := svc.Load(ctx, root)
	if got.Content != "user\n\nlate user note\n\nagent note" || ch.Index != 2 {
		t.Errorf("memory = %q, change at %d", got.Content, ch.Index)
	}
}

func TestAgentWritesSwitch(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newService(t)
	if on, err := svc.AgentWrites(ctx, "p1"); on || err != nil {
		t.Fatalf("default = %v, %v; want off", on, err)
	}
	if err := svc.SetAgentWrites(ctx, "p1", true); err != nil {
		t.Fatal(err)
	}
	if on, _ := svc.AgentWrites(ctx, "p1"); !on {
		t.Error("switch did not turn on")
	}
	if on, _ := svc.AgentWrites(ctx, "p2"); on {
		t.Error("another project's switch turned on")
	}
	svc.SetAgentWrites(ctx, "p2", true)
	svc.SetAgentWrites(ctx, "p1", false)
	if on, _ := svc.AgentWrites(ctx, "p1"); on {
		t.Error("switch did not turn off")
	}
	// The list's view of every switch reads them as one project's does.
	if all, err := svc.AllAgentWrites(ctx); err != nil || len(all) != 2 || all["p1"] || !all["p2"] || all["p3"] {
		t.Errorf("all switches = %v, %v; want p1 off, p2 on", all, err)
	}
}
