package sessions

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/store"
)

// A fork is a new session holding the branch up to the chosen entry, the
// lines byte for byte, naming its parent; the original is untouched.
func TestForkCopiesTheBranch(t *testing.T) {
	e := setup(t, t.TempDir())
	ctx := context.Background()
	s, _ := e.m.Create(ctx, "p1", "")
	mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("one")))
	a := mustAppend(t, s, TypeAssistant, msg(provider.RoleAssistant, text("two")))
	mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("three")))
	s.Close()
	before, _ := os.ReadFile(s.File())
	f, err := e.m.Fork(ctx, s.ID(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if types(f.Path()) != "user assistant" || f.ID() == s.ID() {
		t.Fatalf("fork path %s, id %s", types(f.Path()), f.ID())
	}
	after, _ := os.ReadFile(s.File())
	if !bytes.Equal(before, after) {
		t.Error("forking changed the original")
	}
	forked, _ := os.ReadFile(f.File())
	lines := strings.SplitAfter(string(forked), "\n")
	orig := strings.SplitAfter(string(before), "\n")
	if len(lines) < 3 || lines[1] != orig[1] || lines[2] != orig[2] {
		t.Errorf("the fork's lines differ from the original's:\n%s", forked)
	}
	ps, _ := pisession.Open(ctx, f.File(), pisession.Options{ReadOnly: true})
	if ps.Header().ParentSession != s.File() {
		t.Errorf("parentSession = %q", ps.Header().ParentSession)
	}
	ps.Close()
	if list, _ := e.m.List(ctx, "p1"); len(list) != 2 {
		t.Errorf("listed %d sessions, want 2", len(list))
	}
}

// Deleting removes the file and the count; other sessions stay.
func TestDeleteRemovesTheFile(t *testing.T) {
	e := setup(t, t.TempDir())
	ctx := context.Background()
	var ids []string
	for _, w := range []string{"keep", "drop"} {
		s, _ := e.m.Create(ctx, "p1", "")
		mustAppend(t, s, TypeUser, msg(provider.RoleUser, text(w)))
		s.Close()
		ids = append(ids, s.ID())
	}
	if err := e.m.Delete(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	list, _ := e.m.List(ctx, "p1")
	if len(list) != 1 || list[0].ID != ids[0] {
		t.Fatalf("list = %+v", list)
	}
	if ps, _ := e.st.Projects(ctx, ""); ps[0].Sessions != 1 {
		t.Errorf("count %d, want 1", ps[0].Sessions)
	}
	if _, err := e.m.Open(ctx, ids[1]); err == nil {
		t.Error("the deleted session still opens")
	}
}

// The tree shows every branch pi wrote, with labels, and marks the
// current branch.
func TestTreeShowsEveryBranchWithLabels(t *testing.T) {
	e := setup(t, piRoot)
	ctx := context.Background()
	installFixture(t, e, "pi085_ext_custom_label_custommsg_branchsummary.jsonl")
	list, _ := e.m.List(ctx, "p1")
	s, err := e.m.Open(ctx, list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tree := s.Tree()
	var off, labelled int
	for _, te := range tree {
		if !te.OnPath {
			off++
		}
		if te.Label != "" {
			labelled++
		}
	}
	if len(tree) <= len(s.Path()) || off == 0 || labelled == 0 {
		t.Errorf("tree of %d (path %d): %d off the branch, %d labelled", len(tree), len(s.Path()), off, labelled)
	}
	// What pi's tree shows and pi-tui's view leaves out is in the tree,
	// named: the extension's custom entry and message, the branch summary.
	byID := map[string]TreeEntry{}
	for _, te := range tree {
		byID[te.ID] = te
	}
	for id, want := range map[string]TreeEntry{
		"1cf3f6c3": {Entry: Entry{Type: "custom"}, CustomType: "demo-state", PiOnly: true},
		"540901a0": {Entry: Entry{Type: "custom_message"}, CustomType: "demo-note", PiOnly: true, Text: "Injected context from extension"},
		"fecd7f7c": {Entry: Entry{Type: "branch_summary"}, PiOnly: true, Text: "The user explored a different conversation branch"},
		"e539805f": {Entry: Entry{Type: TypeUser}, Label: "checkpoint-1"},
	} {
		got, ok := byID[id]
		if !ok || got.Type != want.Type || got.CustomType != want.CustomType || got.PiOnly != want.PiOnly || !strings.HasPrefix(got.Text, want.Text) || got.Label != want.Label {
			t.Errorf("entry %s: %+v, want %+v", id, got, want)
		}
	}
	if te := byID["540901a0"]; te.Parent != "1cf3f6c3" {
		t.Errorf("the custom message's parent is %q, want the custom entry (its label entry is skipped)", te.Parent)
	}
}

// A fork of a worktree session does not share the worktree: it works in
// the project root (discarding one must not pull the folder from under
// the other).
func TestForkOfAWorktreeSessionIsUnbound(t *testing.T) {
	e := setup(t, t.TempDir())
	ctx := context.Background()
	s, _ := e.m.Create(ctx, "p1", "")
	if err := s.SetWorktree(ctx, Worktree{Root: "/wt/a", Dir: "/wt/a", Branch: "pi/a", Base: "main", Main: e.root}); err != nil {
		t.Fatal(err)
	}
	u := mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("one")))
	f, err := e.m.Fork(ctx, s.ID(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if w, bound := f.Worktree(); bound {
		t.Errorf("the fork is bound to %+v", w)
	}
	if w, bound := s.Worktree(); !bound || w.Branch != "pi/a" {
		t.Errorf("the original lost its worktree: %+v %v", w, bound)
	}
}

// A session working in its own worktree is not deleted before it is
// discarded: its folder and branch would be left behind.
func TestDeleteRefusesAnActiveWorktreeSession(t *testing.T) {
	e := setup(t, t.TempDir())
	ctx := context.Background()
	s, _ := e.m.Create(ctx, "p1", "")
	s.SetWorktree(ctx, Worktree{Root: "/wt/a", Dir: "/wt/a", Branch: "pi/a", Base: "main", Main: e.root})
	s.Close()
	if err := e.m.Delete(ctx, s.ID()); err == nil || !strings.Contains(err.Error(), "discard it first") {
		t.Fatalf("delete = %v", err)
	}
	if _, err := os.Stat(s.File()); err != nil {
		t.Errorf("the file is gone: %v", err)
	}
}

// A session working in a worktree of its own names the worktree in its
// header (where pi works on it), and still belongs to its project: in a
// session folder every project shares, its project lists it, the list of
// every session puts it there, and opening it by id finds the project;
// the project may be a sub-folder of its repository. Its fork works in
// the project again and says so in its header.
func TestWorktreeSessionInASharedFolderStaysItsProjects(t *testing.T) {
	top := t.TempDir()
	root := filepath.Join(top, "svc")
	e := setup(t, root)
	ctx := context.Background()
	other := t.TempDir()
	// Listed before p1 ("one"): a file no header maps goes to the first.
	e.st.InsertProject(ctx, store.ProjectRow{ID: "p2", Name: "another", Root: other, CreatedAt: 1})
	m := NewManager(e.st, Config{AgentDir: e.agent, SessionDir: t.TempDir()})
	s, _ := m.Create(ctx, "p1", "")
	w := Worktree{Root: "/data/wt/a/svc", Dir: "/data/wt/a", Branch: "pi/a", Base: "main", Main: top}
	if err := s.SetCwd(ctx, w.Root); err != nil {
		t.Fatal(err)
	}
	if err := s.SetWorktree(ctx, w); err != nil {
		t.Fatal(err)
	}
	u := mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("in the worktree")))
	s.Close()
	if s.Cwd() != w.Root {
		t.Errorf("header cwd = %q, want the worktree's root", s.Cwd())
	}
	if l, _ := m.List(ctx, "p1"); len(l) != 1 || l[0].ID != s.ID() {
		t.Errorf("p1 lists %+v", l)
	}
	if l, _ := m.List(ctx, "p2"); len(l) != 0 {
		t.Errorf("p2 lists %+v", l)
	}
	if all, _ := m.ListAll(ctx); len(all) != 1 || all[0].ProjectID != "p1" {
		t.Errorf("ListAll = %+v", all)
	}
	fresh := NewManager(e.st, Config{AgentDir: e.agent, SessionDir: m.cfg.SessionDir})
	o, err := fresh.Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if o.ProjectID() != "p1" {
		t.Errorf("opened under project %q, want p1", o.ProjectID())
	}
	f, err := m.Fork(ctx, s.ID(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Cwd() != root {
		t.Errorf("the fork's header cwd = %q, want the project's %q", f.Cwd(), root)
	}
}
