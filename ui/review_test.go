package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// turnsThatChangeFiles is a model whose first turn writes notes.txt and
// whose second runs bash that edits it and adds a file; every other
// message is answered in words.
func turnsThatChangeFiles() fakemodel.Script {
	return func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult != "" {
			return fakemodel.Reply{Text: "done: " + strings.Fields(req.LastUser + " x")[0]}
		}
		switch req.LastUser {
		case "write":
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w1", Name: "write", Args: map[string]string{"path": "notes.txt", "content": "one\ntwo\n"}}}}
		case "bash":
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "b1", Name: "bash", Args: map[string]string{"command": "echo three >> notes.txt && echo new > added.txt"}}}}
		}
		return fakemodel.Reply{Text: "said: " + req.LastUser}
	}
}

func reviewRig(t *testing.T, w, h int) *kitRig {
	t.Helper()
	r := newKitRig(t, w, h, turnsThatChangeFiles(), true)
	if err := r.m.opts.Host.SetPermissionMode(context.Background(), "full-auto"); err != nil {
		t.Fatal(err)
	}
	r.chat()
	return r
}

func (r *kitRig) read(rel string) string {
	b, err := os.ReadFile(filepath.Join(r.home, "proj", rel))
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// A tool call that changed files has a card under it: each file with its
// status and +N −M; ctrl+o shows the diff.
func TestToolCallsShowTheirFileChanges(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		r := reviewRig(t, size[0], size[1])
		r.say("write")
		r.waitFor("done: write", "M notes.txt  +2 −1", "ctrl+o diff")
		r.say("bash")
		r.waitFor("done: bash", "M notes.txt  +1 −0", "A added.txt  +1 −0")
		r.keys("ctrl+o")
		r.waitFor("+++ b/added.txt", "+new")
	}
}

// /undo puts the last turn's files back, after saying which; /changes
// lists every change with its state and redoes one.
func TestUndoTheLastTurnAndRedoFromTheReviewScreen(t *testing.T) {
	t.Parallel()
	r := reviewRig(t, 100, 30)
	r.say("write")
	r.waitFor("done: write")
	r.say("bash")
	r.waitFor("done: bash")
	r.command("/undo", "Undo the last turn's file changes?", "notes.txt", "added.txt")
	r.settle() // a question put after a read takes keys once the keyboard rests
	r.keys("y")
	r.waitFor("undid 2 changes")
	if got := r.read("notes.txt"); got != "one\ntwo\n" || r.exists("added.txt") {
		t.Fatalf("after /undo: notes.txt = %q, added.txt there: %v", got, r.exists("added.txt"))
	}
	r.command("/changes", "Review · the session's file changes", "── you: write", "1  active  M  +2 −1  write  notes.txt",
		"── you: bash", "2  undone  A  +1 −0  bash   added.txt", "3  undone  M  +1 −0  bash   notes.txt")
	r.keys("r") // the latest change is selected: notes.txt's
	r.waitFor("redid 1 change (3): notes.txt")
	if got := r.read("notes.txt"); got != "one\ntwo\nthree\n" {
		t.Fatalf("after the redo notes.txt = %q", got)
	}
	r.keys("k", "r")
	r.waitFor("redid 1 change (2): added.txt")
	if !r.exists("added.txt") {
		t.Fatal("the redo did not bring added.txt back")
	}
}

// An undo over the user's own later edit is refused, naming the file and
// changing nothing, until the user says to overwrite.
func TestUndoRefusesOverTheUsersEditUntilForced(t *testing.T) {
	t.Parallel()
	r := reviewRig(t, 100, 30)
	r.say("write")
	r.waitFor("done: write")
	if err := os.WriteFile(filepath.Join(r.home, "proj", "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.command("/undo", "Undo the last turn's file changes?")
	r.settle()
	r.keys("y")
	r.waitFor("Nothing was undone", "notes.txt (changed since the agent left it)", "o overwrite them")
	if got := r.read("notes.txt"); got != "mine\n" {
		t.Fatalf("a refused undo wrote notes.txt: %q", got)
	}
	r.settle()
	r.keys("o")
	r.waitFor("undid 1 change: notes.txt")
	if got := r.read("notes.txt"); got != "hello\n" {
		t.Fatalf("after the forced undo notes.txt = %q", got)
	}
}

// /tree, continuing from a message after which the agent changed files,
// asks about the files: files too puts them back and branches.
func TestTreeOffersToRewindTheFilesToo(t *testing.T) {
	t.Parallel()
	r := reviewRig(t, 100, 30)
	r.say("write")
	r.waitFor("done: write")
	r.command("/tree", "Tree · every branch", "you: write")
	r.keys("home", "enter")
	r.waitFor("Continue from here: the files too?", "notes.txt", "f files too", "c conversation only")
	r.settle()
	r.keys("f")
	r.waitScreen("undid 1 change: notes.txt", "branched: the old branch is kept")
	if got := r.read("notes.txt"); got != "hello\n" {
		t.Fatalf("after files too: notes.txt = %q", got)
	}
}

// changingTurns is turnsThatChangeFiles with two more turns: "many"
// runs bash adding 30 files at once, "slow" runs bash that waits on the
// FIFO gate (when gate is not "") before it adds slow.txt.
func changingTurns(gate string) fakemodel.Script {
	base := turnsThatChangeFiles()
	return func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult == "" {
			switch req.LastUser {
			case "many":
				return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "m1", Name: "bash", Args: map[string]string{"command": "for i in $(seq 1 30); do echo $i > f$i.txt; done"}}}}
			case "slow":
				return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "s1", Name: "bash", Args: map[string]string{"command": "read _ < " + gate + "; echo slow > slow.txt"}}}}
			}
		}
		return base(n, req)
	}
}

func changingRig(t *testing.T, w, h int, gate string) *kitRig {
	t.Helper()
	r := newKitRig(t, w, h, changingTurns(gate), true)
	if err := r.m.opts.Host.SetPermissionMode(context.Background(), "full-auto"); err != nil {
		t.Fatal(err)
	}
	r.chat()
	return r
}

// A card is drawn from the call's ToolEnded alone (events injected here,
// no store needed): each file's status letter, its path shortened from
// the start to fit, +N −M or "binary", the marks for what cannot be
// undone, and the checkpoint's note; the call ctrl+o acts on says
// "ctrl+o diff", the others how to select them.
func TestCardFromTheCallsEnd(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		r := changingRig(t, size[0], size[1], "")
		r.say("hi")
		r.waitFor("said: hi")
		id := r.sessionIDs()[0]
		long := strings.Repeat("deep/", 20) + "handler_test.go"
		pub := r.m.opts.Host.Events
		pub.Publish(events.ToolEnded{SessionID: id, ToolCallID: "x1", ToolName: "bash", Result: "ok", ChangesNote: "the walk stopped at 250,000 files",
			Changes: []events.FileChange{
				{N: 7, Path: "src/new.go", Status: "added", Added: 12, Kept: true},
				{N: 8, Path: long, Status: "modified", Added: 1, Removed: 3, Kept: true},
				{N: 9, Path: "logo.png", Status: "deleted", Binary: true},
			}})
		r.waitScreen("A src/new.go  +12 −0", "M …/deep/", "/deep/handler_test.go  +1 −3", "D logo.png  binary · not undoable",
			"checkpoint: the walk stopped at 250,000 files", "ctrl+o diff · /changes undoes")
		pub.Publish(events.ToolEnded{SessionID: id, ToolCallID: "x2", ToolName: "write", Path: "b.txt", Result: "ok",
			Changes: []events.FileChange{{N: 10, Path: "b.txt", Status: "modified", Added: 1, Removed: 1, Kept: true}}})
		// The latest call is now the one ctrl+o acts on; the first says
		// how to select it.
		r.waitScreen("M b.txt  +1 −1", "alt+↑ selects · ctrl+o diff")
		frame := r.final()
		if strings.Contains(frame, long) {
			t.Errorf("at %dx%d the long path is not shortened:\n%s", size[0], size[1], frame)
		}
	}
}

// A session opened again shows its calls' cards (its transcript is
// rebuilt from its entries; the cards come from the review service), and
// a card says "undone" once /undo has put its file back.
func TestCardsComeBackWithTheSessionAndShowUndone(t *testing.T) {
	t.Parallel()
	r := changingRig(t, 100, 30, "")
	r.say("write")
	r.waitFor("done: write", "M notes.txt  +2 −1")
	r.sessions("write")
	r.keys("enter")
	r.waitScreen("Session · proj", "✓ write notes.txt", "M notes.txt  +2 −1", "ctrl+o diff")
	r.keys("ctrl+o")
	r.waitScreen("+++ b/notes.txt", "+one", "ctrl+o closes the diff")
	r.command("/undo", "Undo the last turn's file changes?", "1 file to put back", "notes.txt")
	r.settle()
	r.keys("y")
	r.waitScreen("undid 1 change: notes.txt", "M notes.txt  +2 −1 · undone")
	if got := r.read("notes.txt"); got != "hello\n" {
		t.Fatalf("after /undo notes.txt = %q", got)
	}
}

// /undo's question appears after a read, while the user may be typing
// their next message: what they type goes on to the input and answers
// nothing, until the keyboard rests.
func TestTypingNeverAnswersUndo(t *testing.T) {
	t.Parallel()
	r := changingRig(t, 100, 30, "")
	r.say("write")
	r.waitFor("done: write")
	r.command("/undo", "Undo the last turn's file changes?", "keys ignored until you stop typing")
	r.keys("y")
	r.waitScreen("Undo the last turn's file changes?", "› y")
	if got := r.read("notes.txt"); got != "one\ntwo\n" {
		t.Fatalf("a typed y answered /undo: notes.txt = %q", got)
	}
	r.settle()
	r.keys("n")
	r.waitScreen("› y")
	if frame := r.final(); strings.Contains(frame, "Undo the last turn's") {
		t.Errorf("n did not close the question:\n%s", frame)
	}
	if got := r.read("notes.txt"); got != "one\ntwo\n" {
		t.Fatalf("n undid: notes.txt = %q", got)
	}
}

// The Review screen at 80×24 and 120×40: every change under its turn's
// message, in columns, the cursor on the latest; end and home move to the
// last and the first, which stay on screen.
func TestReviewScreenListsChangesAcrossTurns(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		r := changingRig(t, size[0], size[1], "")
		r.say("write")
		r.waitFor("done: write")
		r.say("many")
		r.waitFor("done: many")
		// bash's files are listed in path order: f9.txt is the last.
		r.command("/changes", "Review · the session's file changes", "31 changes")
		r.waitScreen("› 31  active  A  +1 −0  bash   f9.txt", "u undo")
		r.keys("home")
		r.waitScreen("── you: write", "›  1  active  M  +2 −1  write  notes.txt")
		r.keys("end")
		r.waitScreen("› 31  active  A  +1 −0  bash   f9.txt")
		r.keys("esc")
		r.waitScreen("… and 22 more files (/changes lists them)")
	}
}

// In the Review screen u undoes one change and r redoes it; an undo over
// the user's own later edit is refused, naming the file and changing
// nothing, until o overwrites it after a confirmation. Another program's
// undo (here, the service called directly) shows in the open screen.
func TestReviewUndoRedoAndForce(t *testing.T) {
	t.Parallel()
	r := changingRig(t, 100, 30, "")
	r.say("write")
	r.waitFor("done: write")
	r.say("bash")
	r.waitFor("done: bash")
	r.command("/changes", "Review · the session's file changes", "›  3  active  M  +1 −0  bash   notes.txt")
	r.keys("u")
	r.waitScreen("undid 1 change (3): notes.txt", "3  undone")
	if got := r.read("notes.txt"); got != "one\ntwo\n" {
		t.Fatalf("after u notes.txt = %q", got)
	}
	r.keys("u")
	r.waitScreen("change 3 is undone already (r redoes it)")
	r.keys("r")
	r.waitScreen("redid 1 change (3): notes.txt", "3  active")
	if err := os.WriteFile(filepath.Join(r.home, "proj", "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.keys("u")
	r.waitScreen("nothing was changed: notes.txt (changed since the agent left it)", "o overwrites them", "o overwrite after a refusal")
	if got := r.read("notes.txt"); got != "mine\n" {
		t.Fatalf("a refused undo wrote notes.txt: %q", got)
	}
	r.keys("o")
	r.waitScreen("Overwrite 1 file?", "What is in them now is lost")
	r.keys("y")
	r.waitScreen("undid 1 change (3): notes.txt")
	if got := r.read("notes.txt"); got != "one\ntwo\n" {
		t.Fatalf("after the forced undo notes.txt = %q", got)
	}
	id := r.sessionIDs()[0]
	if _, err := r.m.opts.Host.Review.Undo(context.Background(), id, checkpoints.Undo{Changes: []int{2}}); err != nil {
		t.Fatal(err)
	}
	r.waitScreen("2  undone  A  +1 −0  bash   added.txt")
	r.keys("U") // on change 3 (undone): from its turn on, only 2… is undone too
	r.waitScreen("nothing to undo from change 3 on")
	r.keys("home", "U")
	r.waitScreen("Undo change 1 and every later one?", "1 change to 1 file", "notes.txt")
	r.keys("y")
	r.waitScreen("undid 1 change (1): notes.txt", "1  undone")
	if got := r.read("notes.txt"); got != "hello\n" {
		t.Fatalf("after U notes.txt = %q", got)
	}
}

// While the agent works, undo is refused with a sentence saying to wait
// or abort; the Review screen still opens.
func TestReviewRefusesUndoWhileTheAgentWorks(t *testing.T) {
	t.Parallel()
	gate := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(gate, 0o644); err != nil {
		t.Fatal(err)
	}
	r := changingRig(t, 100, 30, gate)
	r.say("write")
	r.waitFor("done: write")
	r.say("slow")
	r.waitFor("… bash read _ <")
	r.say("/changes")
	r.waitScreen("Review · the session's file changes", "1  active  M  +2 −1  write  notes.txt")
	r.keys("u")
	r.waitScreen("the agent is working in this session: undo and redo wait until its turn is over")
	r.keys("U")
	r.waitScreen("the agent is working in this session")
	if got := r.read("notes.txt"); got != "one\ntwo\n" {
		t.Fatalf("an undo ran while the agent worked: notes.txt = %q", got)
	}
	f, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("go\n")
	f.Close()
	r.keys("esc")
	r.waitFor("done: slow")
}

// A forked session shows the parent's changes, on its cards and in its
// Review screen, and does not undo them.
func TestForkShowsTheParentsChangesWithoutUndo(t *testing.T) {
	t.Parallel()
	r := changingRig(t, 100, 30, "")
	r.say("write")
	r.waitFor("done: write")
	r.command("/fork", "Fork · a new session from which entry?")
	r.keys("enter") // from the leaf: the whole branch
	r.waitScreen("forked: a new session", "M notes.txt  +2 −1 · the parent session's")
	r.command("/changes", "Review · the session's file changes", "(the session this one was forked from)", "1  parent  M  +2 −1  write  notes.txt")
	r.keys("u")
	r.waitScreen("change 1 was made in the session this one was forked from")
	r.keys("enter")
	r.waitScreen("Diff · change 1 · notes.txt", "+one")
	if got := r.read("notes.txt"); got != "one\ntwo\n" {
		t.Fatalf("the fork undid its parent's change: notes.txt = %q", got)
	}
}

// /tree's files too, refused because the user edited the file since,
// changes nothing and does not branch; it offers to overwrite or to
// continue with the conversation only, which leaves the file as it is.
func TestTreeRefusalOffersTheConversationOnly(t *testing.T) {
	t.Parallel()
	r := changingRig(t, 100, 30, "")
	r.say("write")
	r.waitFor("done: write")
	if err := os.WriteFile(filepath.Join(r.home, "proj", "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.command("/tree", "Tree · every branch", "you: write")
	r.keys("home", "enter")
	r.waitFor("Continue from here: the files too?")
	r.settle()
	r.keys("f")
	r.waitScreen("Nothing was undone", "notes.txt (changed since the agent left it)", "o overwrite them", "c conversation only", "The session has not branched")
	r.settle()
	r.keys("c")
	r.waitScreen("branched: the old branch is kept")
	if got := r.read("notes.txt"); got != "mine\n" {
		t.Fatalf("conversation only wrote notes.txt: %q", got)
	}
}

// A turn in which the model changes files in two steps (one tool call,
// its result, then another call) is listed in the Review screen under one
// heading, the message that started it, with both changes below it.
func TestReviewHeadsATurnOnce(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 100, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		switch {
		case req.LastToolResult == "":
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w1", Name: "write", Args: map[string]string{"path": "a.txt", "content": "a\n"}}}}
		case !strings.Contains(req.Raw, `"w2"`):
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w2", Name: "write", Args: map[string]string{"path": "b.txt", "content": "b\n"}}}}
		}
		return fakemodel.Reply{Text: "both written"}
	}, true)
	if err := r.m.opts.Host.SetPermissionMode(context.Background(), "full-auto"); err != nil {
		t.Fatal(err)
	}
	r.chat()
	r.say("two files")
	r.waitFor("both written")
	r.command("/changes", "Review · the session's file changes", "2 changes")
	r.waitScreen("── you: two files", "1  active  A  +1 −0  write  a.txt", "2  active  A  +1 −0  write  b.txt")
	view := r.final()
	if n := strings.Count(view, "── you: two files"); n != 1 {
		t.Errorf("the turn's heading shows %d times, want once:\n%s", n, view)
	}
}

// The review screen's keys wrap at 60 columns; the last ones were cut.
func TestReviewKeysWrapAtSixtyColumns(t *testing.T) {
	t.Parallel()
	r := reviewRig(t, 60, 20)
	r.say("write")
	r.waitFor("done: write")
	r.command("/changes", "Review · the session's file changes")
	frame := r.waitKeys("enter/ctrl+o diff · u undo · r redo · U undo it and every later one · esc/q close", "notes.txt")
	assertFrame(t, frame, 60, 20)
	r.final()
}
