package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The scenario table's rows for a project of several folders (ADR 0085,
// 0089), on both engines: the project "mono" gains a second folder "web"
// beside it (its own AGENTS.md, src/AGENTS.md and src/app.ts), and the
// agent reaches it as NAME:path or by its absolute path.

// addWeb makes the folder web beside the project's root and adds it to
// the project, trusted or not; it returns the folder's canonical path.
func (s *scene) addWeb(trusted bool) string {
	s.t.Helper()
	web := mkdir(s.t, filepath.Dir(s.root), "web")
	writeFile(s.t, filepath.Join(web, "AGENTS.md"), "Web rule: use tabs.")
	writeFile(s.t, filepath.Join(web, "src", "AGENTS.md"), "Src rule: no default exports.")
	writeFile(s.t, filepath.Join(web, "src", "app.ts"), "export const APP = 'WEB-APP';\n")
	args := []string{"projects", "folders", "add", "mono", web}
	if trusted {
		args = append(args, "--trust")
	}
	s.c.ok(args...)
	return web
}

// noRequestHolds fails when any request sent to the model holds text.
func (s *scene) noRequestHolds(text string) {
	s.t.Helper()
	for _, req := range s.fake.Requests() {
		if strings.Contains(req.Raw, text) {
			s.t.Fatalf("%q reached the model", text)
		}
	}
}

// A file of the second folder is read as web:path and by its absolute
// path, and written as web:path; the system prompt names both folders;
// the session is noted as having worked there, so removing the folder
// names it.
func TestScenarioFoldersReadAndWrite(t *testing.T) {
	eachEngine(t, true, callsThenAnswer, func(t *testing.T, s *scene) {
		web := s.addWeb(true)
		code, evs, errs := s.prompt("read web:src/app.ts")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		s.launched(evs)
		promptOK(t, evs)
		if res := lastResult(s.fake); !strings.Contains(res, "WEB-APP") {
			t.Errorf("the read of web:src/app.ts gave the model %q", res)
		}
		sys := s.fake.Requests()[0].System
		if !strings.Contains(sys, "# Project folders") || !strings.Contains(sys, `"web"`) || !strings.Contains(sys, web) || !strings.Contains(sys, `"web:path"`) {
			t.Errorf("the system prompt does not name the folders:\n%s", sys)
		}

		code, evs, errs = s.prompt("read " + filepath.Join(web, "src", "app.ts"))
		if code != 0 || strings.Count(lastResult(s.fake), "WEB-APP") != 1 {
			t.Errorf("the read by absolute path: exit %d %s, result %q", code, errs, lastResult(s.fake))
		}
		promptOK(t, evs)

		code, evs, errs = s.prompt("--yes", "write web:notes.txt")
		if code != 0 {
			t.Fatalf("write: exit %d: %s", code, errs)
		}
		promptOK(t, evs)
		if b, err := os.ReadFile(filepath.Join(web, "notes.txt")); err != nil || string(b) != "noted" {
			t.Errorf("web:notes.txt holds %q, %v", b, err)
		}
		if _, err := os.Stat(filepath.Join(s.root, "web:notes.txt")); err == nil {
			t.Error("the write made a file named web:notes.txt in the primary root")
		}

		// Each prompt was a session of its own: all three worked in web.
		code, _, errs = s.c.run("", "projects", "folders", "remove", "mono", "web")
		if code == 0 || !strings.Contains(errs, "3 sessions of mono worked in folder") {
			t.Errorf("removing a folder sessions worked in: exit %d, %q; want it refused naming them", code, errs)
		}
		for _, row := range sessionsJSON(t, s.c) {
			if id, _ := row["id"].(string); id == "" || !strings.Contains(errs, id) {
				t.Errorf("the refusal does not name session %s: %q", id, errs)
			}
		}
	})
}

// Outside every folder is refused as outside the root is: a path beside
// them, a link in the second folder leading out, and a link in it leading
// into the primary root (each folder its own os.Root). The secret never
// reaches the model.
func TestScenarioFoldersEscapesRefused(t *testing.T) {
	eachEngine(t, true, callsThenAnswer, func(t *testing.T, s *scene) {
		web := s.addWeb(true)
		outside := filepath.Join(filepath.Dir(s.root), "outside")
		writeFile(t, filepath.Join(outside, "secret.txt"), "SECRET-OUTSIDE")
		writeFile(t, filepath.Join(s.root, "private.txt"), "PRIMARY-PRIVATE")
		if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(web, "leak.txt")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(s.root, "private.txt"), filepath.Join(web, "cross.txt")); err != nil {
			t.Fatal(err)
		}
		for _, target := range []string{"../outside/secret.txt", filepath.Join(outside, "secret.txt"), "web:leak.txt", "web:../outside/secret.txt", "web:cross.txt"} {
			code, evs, errs := s.prompt("read " + target)
			if code != 0 {
				t.Fatalf("read %s: exit %d: %s", target, code, errs)
			}
			if ends := typed(evs, "tool_execution_end"); len(ends) != 1 || ends[0]["isError"] != true {
				t.Errorf("read %s ended %v, want an error", target, ends)
			}
			if res := lastResult(s.fake); !strings.Contains(res, "outside") {
				t.Errorf("read %s: the model was not sent pi-tui's refusal: %q", target, res)
			}
		}
		s.noRequestHolds("SECRET-OUTSIDE")
		s.noRequestHolds("PRIMARY-PRIVATE")
	})
}

// A read in the trusted second folder delivers that folder's own chain,
// labelled with its name, once; the primary root's nested files are not
// part of it.
func TestScenarioFoldersNestedDelivery(t *testing.T) {
	eachEngine(t, true, callsThenAnswer, func(t *testing.T, s *scene) {
		s.addWeb(true)
		code, evs, errs := s.prompt("read web:src/app.ts")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		d := deliveries(evs)
		if len(d) != 1 || deliveredLabels(d[0]) != "web:AGENTS.md:block,web:src/AGENTS.md:block" {
			t.Fatalf("the read in web delivered %v", d)
		}
		res := lastResult(s.fake)
		for _, want := range []string{"Web rule: use tabs.", "Src rule: no default exports.", `## "web:AGENTS.md"`, `## "web:src/AGENTS.md"`} {
			if strings.Count(res, want) != 1 {
				t.Errorf("the result does not carry %q once:\n%s", want, res)
			}
		}
		if strings.Contains(res, "API rule") {
			t.Errorf("the primary root's nested file came with a read in web:\n%s", res)
		}
		if sys := s.fake.Requests()[0].System; strings.Contains(sys, "Web rule") {
			t.Errorf("the folder's AGENTS.md reached the system prompt:\n%s", sys)
		}
	})
}

// An untrusted second folder delivers none of its files, in a trusted
// project: the model is told they are withheld, never their text.
func TestScenarioFoldersUntrustedDeliversNothing(t *testing.T) {
	eachEngine(t, true, callsThenAnswer, func(t *testing.T, s *scene) {
		s.addWeb(false)
		code, evs, errs := s.prompt("read web:src/app.ts")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		promptOK(t, evs)
		d := deliveries(evs)
		if len(d) != 1 || d[0] == nil || d[0]["untrusted"] != true || deliveredLabels(d[0]) != "" {
			t.Fatalf("the read in the untrusted folder delivered %v", d)
		}
		if res := lastResult(s.fake); !strings.Contains(res, "WEB-APP") || !strings.Contains(res, "web:src/AGENTS.md") {
			t.Errorf("the result:\n%s", res)
		}
		s.noRequestHolds("Web rule")
		s.noRequestHolds("Src rule")
		if sys := s.fake.Requests()[0].System; !strings.Contains(sys, "untrusted") {
			t.Errorf("the system prompt does not say the folder is untrusted:\n%s", sys)
		}
	})
}

// A write in the second folder is a change listed as web:path, undone
// and redone there; once the folder is removed with --force, undoing
// its change is refused with a sentence saying why, and the file stays.
func TestScenarioFoldersUndo(t *testing.T) {
	eachEngine(t, true, callsThenAnswer, func(t *testing.T, s *scene) {
		web := s.addWeb(true)
		code, evs, errs := s.prompt("--yes", "write web:notes.txt")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		promptOK(t, evs)
		id, _ := onlySession(t, s.c)
		list := changesOf(t, s.c, id)
		if len(list) != 1 || list[0].Path != "web:notes.txt" || list[0].Folder != "web" || list[0].Status != "added" {
			t.Fatalf("changes = %+v, want web:notes.txt added", list)
		}
		notes := filepath.Join(web, "notes.txt")
		s.c.ok("sessions", "undo", id, "--change", "1")
		if _, err := os.Stat(notes); err == nil {
			t.Fatal("the undo left web:notes.txt")
		}
		s.c.ok("sessions", "undo", id, "--change", "1", "--redo")
		if b, err := os.ReadFile(notes); err != nil || string(b) != "noted" {
			t.Fatalf("the redo left %q, %v", b, err)
		}

		s.c.ok("projects", "folders", "remove", "mono", "web", "--force")
		code, out, errs := s.c.run("", "sessions", "undo", id, "--change", "1")
		if code == 0 || !strings.Contains(out+errs, "no longer a folder of the project") {
			t.Errorf("undo after the folder's removal: exit %d %q %q", code, out, errs)
		}
		if _, err := os.Stat(notes); err != nil {
			t.Errorf("the refused undo touched the file: %v", err)
		}
		// The agent no longer reaches it either.
		code, evs, _ = s.prompt("read web:notes.txt")
		if ends := typed(evs, "tool_execution_end"); code != 0 || len(ends) != 1 || ends[0]["isError"] != true {
			t.Errorf("a read in the removed folder: exit %d, ended %v", code, ends)
		}
	})
}

// Adding a folder while a session's runtime is up retires it at the next
// prompt with the reason folders-changed, and the new runtime reaches the
// folder.
func TestScenarioFoldersChangedRetires(t *testing.T) {
	eachEngine(t, true, callsThenAnswer, func(t *testing.T, s *scene) {
		r := s.rpc()
		s.launched(r.prompt("say hi"))
		s.addWeb(true)
		evs := r.prompt("read web:src/app.ts")
		retired, launched := typed(evs, "runtime_retired"), typed(evs, "runtime_launched")
		if len(retired) != 1 || retired[0]["reason"] != "folders-changed" || len(launched) != 1 || launched[0]["reason"] != "folders-changed" {
			t.Fatalf("after adding a folder: retired %v, launched %v; want folders-changed", retired, launched)
		}
		if res := lastResult(s.fake); !strings.Contains(res, "WEB-APP") {
			t.Errorf("the new runtime's read gave %q", res)
		}
	})
}

// A worktree session of a project of two folders isolates the primary
// root only: a write in web lands in the real folder (it is shared), the
// launch says so on standard error and to the model, and the change is
// listed as web's.
func TestScenarioFoldersWorktreeSharesTheOthers(t *testing.T) {
	eachEngine(t, true, callsThenAnswer, func(t *testing.T, s *scene) {
		s.git()
		web := s.addWeb(true)
		code, evs, errs := s.prompt("--worktree", "--yes", "write web:shared.txt")
		if code != 0 {
			t.Fatalf("prompt --worktree: exit %d: %s", code, errs)
		}
		promptOK(t, evs)
		said := false
		for _, n := range typed(evs, "notice") {
			said = said || strings.Contains(fmt.Sprint(n["text"]), `isolates the primary root only: folders "web" are shared`)
		}
		if !said {
			t.Errorf("the launch does not say web is shared: %v", typed(evs, "notice"))
		}
		if b, err := os.ReadFile(filepath.Join(web, "shared.txt")); err != nil || string(b) != "noted" {
			t.Errorf("web's shared.txt = %q, %v; the write should land in the real folder", b, err)
		}
		if sys := s.fake.Requests()[0].System; !strings.Contains(sys, "shared: not part of this session's worktree") {
			t.Errorf("the model is not told web is shared:\n%s", sys)
		}
		m := noteSession.FindStringSubmatch(errs)
		if m == nil {
			t.Fatalf("no note of the worktree on stderr: %q", errs)
		}
		if list := changesOf(t, s.c, m[1]); len(list) != 1 || list[0].Path != "web:shared.txt" {
			t.Errorf("sessions changes = %+v, want web:shared.txt", list)
		}
	})
}
