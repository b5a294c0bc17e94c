package ui

import (
	"github.com/pi-tui/pi-tui/ui/providersview"

	"context"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/pi-tui/pi-tui/ui/chat"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/editor"
	"github.com/pi-tui/pi-tui/ui/extdialog"
	"github.com/pi-tui/pi-tui/ui/instructionsview"
	"github.com/pi-tui/pi-tui/ui/memoryeditor"
	"github.com/pi-tui/pi-tui/ui/palette"
	"github.com/pi-tui/pi-tui/ui/reviewview"
	"github.com/pi-tui/pi-tui/ui/sessiontree"
)

// reviewHelp is the Review screen's help, as its page gives it.
func reviewHelp() [][]key.Binding {
	return reviewview.New(reviewview.Deps{}).Help()
}

// readmeKeyDocs is docs/keys.md's key table as data: each screen's help,
// taken from the screen itself, and the prose for its keys. The chat and
// an approval are reached as a user reaches them (a session, a scripted
// model asking to run a command); the rest need no program.
func readmeKeyDocs(t *testing.T) []keyScreen {
	f := newFixture(t)
	f.add("proj", "proj", true)
	m := f.model()
	ps, err := f.host.Projects.List(context.Background(), true)
	if err != nil || len(ps) == 0 {
		t.Fatalf("projects: %v %v", ps, err)
	}
	p := ps[0]

	m.session.Open(p) // the list's keys; loading it is not needed
	sessionList := m.session.Help()

	r := newKitRig(t, 100, 30, bashOnce("touch X", nil), true)
	r.chat()
	r.say("run it")
	r.waitFor("Allow bash?")
	r.final()
	chatHelp, approval := r.m.session.Help(), r.m.stack[len(r.m.stack)-1].Help()

	// An extension's dialogs: one table per method; the key table names
	// each key once (enter chooses in a select and sends in the others).
	sel, yn, ed := extdialog.NewKeys(extdialog.MethodSelect), extdialog.NewKeys(extdialog.MethodConfirm), extdialog.NewKeys(extdialog.MethodEditor)
	extHelp := [][]key.Binding{{sel.Choose, yn.Yes, yn.No, ed.Newline, sel.Cancel}, sel.Nav.Bindings()}

	hk := newHelpKeys()
	buf := editor.DefaultKeyMap()
	edit := editor.NewPage(editor.Config{Dir: p.Root, Name: "AGENTS.md", Label: "AGENTS.md"}, m.st)

	return []keyScreen{
		{where: "everywhere", help: [][]key.Binding{m.globalHelpAt(focusProjects, 0)}, rows: []keyRow{
			{keys: []string{"?/f1"}, does: "help for the current screen: every key (`f1` while typing in a field, where `?` is a character)"},
			{keys: []string{"ctrl+c"}, does: "quit (asks first when an editor holds unsaved text or the agent is working; `ctrl+c` again quits)"},
			{keys: []string{"q"}, does: "quit (not while typing in a field)"},
			{keys: []string{"tab", "shift+tab", "1/2/3"}, does: "switch tabs (in the chat `tab` still does; `shift+tab` is the thinking level there)"},
			{keys: []string{"ctrl+k"}, does: "the command palette: go to any session (by name or first message), project, setting or command (see Command palette). " +
				"In a text field (the chat input, a filter), where `ctrl+k` deletes to the line end, `ctrl+g` opens it (`ctrl+g` works on the tabs too). Not over a page or dialog: close it first"},
		}},
		{where: "help screen", help: [][]key.Binding{append(hk.Nav.Bindings(), hk.Close)}, rows: []keyRow{
			{keys: []string{"↑/k", "↓/j", "pgup/b", "pgdn/space", "home/g", "end/G"}, does: "scroll it when it is taller than the window"},
			{keys: []string{"?/esc"}, does: "close it (`q` too)"},
		}},
		{where: "command palette", help: palette.New(palette.Deps{UI: m.st}, nil).Help(), rows: []keyRow{
			{keys: []string{"enter"}, does: "go there: open the session in the Session tab, open the project's sessions, put the cursor on the setting in Settings, run the command " +
				"(a skill or prompt template is put before what the input holds, to finish and send)"},
			{keys: []string{"↑/↓", "pgup", "pgdn"}, does: "move through the matches (`ctrl+p`/`ctrl+n` too); `home`/`end` stay the query's"},
			{keys: []string{"esc"}, does: "close it; what you were typing in the chat stays"},
		}},
		{where: "every text field", help: [][]key.Binding{{buf.Home, buf.WordLeft, buf.DeleteWord, buf.KillStart, buf.KillLine, buf.Undo, buf.Redo, buf.PageUp}}, rows: []keyRow{
			{keys: []string{"ctrl+a/e", "alt+b/f", "ctrl+w", "ctrl+u", "ctrl+k"}, does: "line start/end, word back/forward (`ctrl+←`/`ctrl+→` too), delete word, delete to line start/end (readline; in the AGENTS.md editor `ctrl+e` is `$EDITOR`, `end` goes to the line end)"},
			{keys: []string{"ctrl+z", "ctrl+y"}, does: "undo / redo (chat input, AGENTS.md and memory editors); a run of typing or deleting is one step"},
			{keys: []string{"pgup/pgdn"}, does: "a page up / down in the AGENTS.md and memory editors"},
		}},
		{where: "Projects", help: m.projects.Help(), rows: []keyRow{
			{keys: []string{"↑/k", "↓/j", "pgup", "pgdn", "home", "end/G"}, does: "move"},
			{keys: []string{"/", "esc"}, does: "filter by name or path (`enter` keeps it, `esc` clears it)"},
			{keys: []string{"s"}, does: "sort by recent use or by name (kept for the next start)"},
			{keys: []string{"n"}, does: "add a project: folder (`tab` completes), name, trust; memory comes later from the menu"},
			{keys: []string{"o", "a", "m", "w", "i", "r", "p", "x", "t", "g", "f", "F", "L", "D"}, does: "act on the selected row directly (not while filtering): open session, edit AGENTS.md (a project of several folders asks which folder's), edit memory, " +
				"let the agent write memory on/off, show instructions, rename, pin, archive/restore, trust, move to a group (pick one, type a new name, or none), " +
				"add a folder to the project (as `n` asks: folder, name, trust), remove one of its folders (asks, naming the sessions that worked there; never the primary root; the folder stays on disk), " +
				"relocate a missing project's folder (`tab` completes), remove (asks; `D` again removes; the folder stays on disk). " +
				"The menu shows whether the agent may write memory now; on a section heading these keys say to move to a project"},
			{keys: []string{"enter"}, does: "row menu listing the same keys; on a group heading, fold or open it"},
			{keys: []string{"z"}, does: "fold or open the group under the cursor (remembered); Archived starts folded; a filter looks inside folded groups"},
		}},
		{where: "menus (row menu)", help: dialog.NewMenu(m.st, "menu", nil).Help()[1:], rows: []keyRow{
			{keys: []string{"↑/k", "↓/j", "pgup", "pgdn", "home", "end"}, does: "move (down from the last row goes round to the first); `home`/`end` go to the first/last row, as in every list"},
			{keys: []string{"enter"}, does: "run the highlighted item (or press the key beside it)"},
			{keys: []string{"esc"}, does: "close (`q` too)"},
		}},
		{where: "AGENTS.md editor", help: edit.FullHelp(), rows: []keyRow{
			{keys: []string{"ctrl+s"}, does: "save (atomic; asks if the file changed on disk: reload, overwrite or keep editing); the file ends with a newline"},
			{keys: []string{"esc"}, does: "close; with unsaved changes it asks, as the memory editor does: `s` save and close, `d` discard and close, `k`/`esc` keep editing"},
			{keys: []string{"ctrl+p"}, does: "preview the rendered markdown"},
			{keys: []string{"ctrl+e"}, does: "edit in `$VISUAL`/`$EDITOR`; reloads afterwards. Also for a file the editor refuses (over 1 MiB, not UTF-8)"},
			{keys: []string{"ctrl+f", "enter/↓", "↑"}, does: "find as you type (case-insensitive unless the query has a capital); `enter`/`↓` next, `↑` previous, `esc` stays there"},
			{keys: []string{"ctrl+o"}, does: "edit the file that is in effect, when `AGENTS.override.md` or `CLAUDE.md` wins"},
			{keys: []string{"ctrl+a/end", "ctrl+home/end"}, does: "line and file start/end"},
			{keys: []string{"alt+b/f", "ctrl+w", "ctrl+u", "ctrl+k", "ctrl+z", "ctrl+y", "pgup/pgdn"}, does: "edit as in every text field"},
		}},
		{where: "Memory", help: memoryeditor.New(f.host, m.st, p.Root, p.Name).Help(), rows: []keyRow{
			{keys: []string{"a", "enter", "tab", "d"}, does: "add, edit (`tab` switches title/content, `esc` back), delete (asks)"},
			{keys: []string{"↑", "↓", "pgup", "pgdn", "home/g", "end/G"}, does: "move through the entries"},
			{keys: []string{"p"}, does: "preview exactly what a runtime receives"},
			{keys: []string{"w"}, does: "let the agent write this project's memory, on/off"},
			{keys: []string{"ctrl+s"}, does: "save; refused above 32,768 bytes (the text stays); a conflicting save by someone else offers reload, overwrite or keep editing"},
			{keys: []string{"esc"}, does: "back from an entry to the list; from the list close, with unsaved changes asking as the AGENTS.md editor does: `s` save and close, `d` discard and close, `k`/`esc` keep editing"},
		}},
		{where: "Instructions (`i`)", help: instructionsview.New(f.host, f.host.Runtimes, m.st, p).Help(), rows: []keyRow{
			{keys: []string{"/", "tab"}, does: "type a path to see its chain (`enter` shows it); `tab` completes file and folder names from the project root, as adding a project completes folders, and never lists outside the project (it says so instead)"},
			{keys: []string{"v"}, does: "show the text the agent gets"},
			{keys: []string{"↑/↓"}, does: "scroll (`pgup`/`pgdn` too)"},
			{keys: []string{"esc"}, does: "back from the text, then close (`q` too)"},
		}},
		{where: "Settings", help: m.settings.Help(), rows: []keyRow{
			{keys: []string{"enter"}, does: "edit the global `~/.pi/agent/AGENTS.md`, toggle subdirectory context (`agent-guidance.json`), pick the default model (`settings.json`), cycle the permission mode and the runtime idle TTL (`space` too)"},
			{keys: []string{"↑/k", "↓/j", "pgup", "pgdn", "home/g", "end/G"}, does: "move; the tab scrolls to keep the cursor in view (its lines wrap, never cut); below the settings the cursor rests on each provider's guidance, each path and `none yet` too, for reading only (`enter` and `d` do nothing there), so every line comes into view on a short screen; `home`/`end` go to the first setting and the last row"},
			{keys: []string{"d"}, does: "delete the approval rule under the cursor (asks first)"},
			{keys: []string{"r"}, does: "read the files again"},
			{keys: []string{"p"}, does: "open Providers (the palette's `Providers` too)"},
		}},
		{where: "Providers", help: providersview.New(providersview.Deps{UI: m.st}).Help(), rows: []keyRow{
			{keys: []string{"enter"}, does: "log in to the provider with pi's own login, in this terminal; the screen comes back read afresh (a provider a pi extension registers: pi opens for `/login`, said first); on an MCP server, sign in to it"},
			{keys: []string{"K"}, does: "store an API key for the provider: pi asks for it without echo and keeps it in `auth.json`"},
			{keys: []string{"o"}, does: "log out: pi removes what it stored (an MCP server: its sign-in)"},
			{keys: []string{"a"}, does: "add an OpenAI-compatible endpoint: name, base URL, the variable holding its key; pi-tui asks `GET /v1/models` and shows what it lists before writing `models.json`"},
			{keys: []string{"e"}, does: "turn the MCP server under the cursor on or off in the `mcp.json` that defines it"},
			{keys: []string{"m"}, does: "add an MCP server with pi's `pi mcp add`: a form asks its name, the command that starts it with its arguments (split as a shell splits words, nothing expanded) or its `http(s)://` URL, and the file: the global `mcp.json` or the project's `.pi/mcp.json` (a trusted project's only). `↓`/`enter` next field, `space`/`g`/`p` the file, `ctrl+s` (or `enter` on the last field) adds; a name the file already has is refused, and when pi refuses, its one line shows in the form, which keeps what you typed"},
			{keys: []string{"D"}, does: "remove the MCP server under the cursor from the `mcp.json` that defines it (`pi mcp remove`), after a confirmation; a sign-in pi stored for it is kept (`o` signs out)"},
			{keys: []string{"b"}, does: "logins open a browser, or use a device code or a pasted redirect URL (the default over SSH)"},
			{keys: []string{"r", "↑/k", "↓/j", "esc"}, does: "read again; move; close"},
		}},
		{where: "Session (list)", help: sessionList, rows: []keyRow{
			{keys: []string{"enter", "n"}, does: "open the highlighted session / start a new one (it is written once its first message is sent)"},
			{keys: []string{"↑/k", "↓/j", "home/g", "end/G"}, does: "move; first / last session"},
			{keys: []string{"r"}, does: "rename the session (pi's session name; pi's list shows it too)"},
			{keys: []string{"D"}, does: "delete the session's file, after a confirmation that names it (for pi as well)"},
			{keys: []string{"/"}, does: "filter by title and first message at once, and by content as the files are searched; `esc` clears"},
			{keys: []string{"w", "d", "M", "X"}, does: "a new session in a git worktree of its own; its diff; merge it into the base branch; discard the worktree (see Worktrees)"},
		}},
		{where: "Session (chat)", help: chatHelp, rows: []keyRow{
			{keys: []string{"enter"}, does: "send (while the agent works, the message waits its turn)"},
			{keys: []string{"alt+enter/ctrl+j"}, does: "new line in the message; the input grows to a third of the screen, then scrolls (`↑`/`↓` in the margin mark hidden lines). A paste goes in whole, however long; one of more than 10 lines (or 1,000 characters) shows as one marker, `[paste #1 +200 lines]`, as in pi, and is sent whole"},
			{keys: []string{"ctrl+x"}, does: "expand the paste marker under the cursor (or just before it, where a paste leaves the cursor) into its text, to edit it; `ctrl+z` collapses it again"},
			{keys: []string{"↑", "↓"}, does: "previous / next message you sent (input empty)"},
			{keys: []string{"esc"}, does: "abort the running turn (what arrived is kept, marked)"},
			{keys: []string{"pgup", "pgdn"}, does: "scroll the transcript"},
			{keys: []string{"ctrl+o"}, does: "expand or collapse one tool call: its input and whole output, and the diff of the files it changed (the latest call, or the one selected). A call that changed files has a card under it: each file with `A`/`M`/`D`, `+N −M`, and whether it was undone or cannot be undone"},
			{keys: []string{"alt+↑", "alt+↓"}, does: "select an earlier / later tool call for `ctrl+o` (`▸` marks it; past the latest, none)"},
			{keys: []string{"ctrl+t"}, does: "show thinking"},
			{keys: []string{"ctrl+l"}, does: "back to the sessions list"},
			{keys: []string{"/command"}, does: "`/compact`, `/new`, `/model`, `/thinking`, `/context`, `/name NAME`: compact the session; new session; switch model (the menu opens on the current one, marked \"(current)\"; from the next prompt on: model-changed, which pi takes in place and the built-in engine by a new runtime); set the thinking level (its menu likewise); show the system prompt and tools the model is sent, section by section (on pi, what pi sent at the last prompt); name the session. `/` opens a menu of these, `/changes`, `/undo` and `/plan`, and the skills and prompt templates"},
			{keys: []string{"/tree"}, command: true, does: "every branch of the session, indented where branches part, named as pi's tree names them (`[bash: make test]`, `[custom: TYPE]`, `[model: …]`; see Sessions are pi's files), pi's labels first on their rows; `▶` marks where it is now; `/` searches. `enter` continues from the chosen entry on a new branch (from a message of yours: just before it, with the message back in the input to edit); when the agent changed files after that point it asks first: `f` files too (put back as they were there, guarded: a refusal names the files and offers `o` to overwrite them or `c` the conversation only; nothing branches until one is chosen) or `c` the conversation only; `f` forks. The model and thinking level stay the session's"},
			{keys: []string{"/changes"}, command: true, does: "the Review screen: the session's file changes in order, across turns, with their state (see Review and undo)"},
			{keys: []string{"/undo"}, command: true, does: "put the files the agent changed since your last message back as they were, after a confirmation naming them (guarded: refused, naming the files, if any changed since; `o` then overwrites them). Refused while the agent works. Questions put after a read, as this one, take keys only once you have stopped typing for 400 ms, as approvals do"},
			{keys: []string{"/fork"}, command: true, does: "a new session holding the branch up to the chosen entry (pi's fork: the lines as they are, the old file named as its parent); the old session is unchanged"},
			{keys: []string{"/plan"}, command: true, does: "plan mode on or off for the session (the status bar says `plan mode`): the agent gets only read, grep, find and ls, is told to answer with a plan, and any other call is refused. `/plan TEXT` turns it on and sends TEXT. See Plan mode"},
			{keys: []string{"@file"}, does: "a menu of the project's files, fuzzy-matched as you type; the file is attached when you send"},
			{keys: []string{"tab/enter", "↑/↓", "esc"}, does: "in a menu: insert the highlighted entry (`enter` on a command typed in full runs it); move (`ctrl+p`/`ctrl+n` too); close the menu (the text stays)"},
			{keys: []string{"shift+tab"}, does: "cycle the session's thinking level"},
			{keys: []string{"ctrl+a/e", "alt+b/f", "ctrl+w", "ctrl+u", "ctrl+k", "ctrl+z", "ctrl+y"}, does: "edit as in every text field"},
		}},
		{where: "Tree (`/tree`, `/fork`)", help: sessiontree.New(m.st, false, nil, "", nil, nil, nil).Help(), rows: []keyRow{
			{keys: []string{"enter", "f"}, does: "continue from the chosen entry (see `/tree`; in `/fork`, fork from it); fork a new session from it"},
			{keys: []string{"/"}, does: "search, as pi's tree does: only the rows holding every word typed show (any order and case; labels, commands, paths and message text count). `↑`/`↓` move through them, `enter` acts on the selected one, `esc` clears the search and keeps that entry selected"},
			{keys: []string{"esc"}, does: "close (`q` too)"},
			{keys: []string{"↑/k", "↓/j", "pgup", "pgdn", "home/g", "end/G"}, does: "move; the first / last row"},
		}},
		{where: "Review (`/changes`)", help: reviewHelp(), rows: []keyRow{
			{keys: []string{"↑/k", "↓/j", "pgup", "pgdn", "home/g", "end/G"}, does: "move through the changes, listed under the message that started each turn: number, state (`active`, `undone`, `parent`), `A`/`M`/`D`, `+N −M`, tool, path (the latest first selected)"},
			{keys: []string{"enter/ctrl+o"}, does: "the change's diff, on a page of its own"},
			{keys: []string{"u", "r", "U"}, does: "undo the change; redo an undone one; undo the change and every later one (the files back to before its message; asks first, naming how many). Refused while the agent works; a forked session's parent changes are shown, not undone"},
			{keys: []string{"o"}, does: "after a refusal (the screen names each file that is no longer as the change left it; nothing was changed): overwrite them, after a confirmation"},
			{keys: []string{"esc/q"}, does: "close"},
		}},
		{where: "plan question (chat)", help: chat.PlanQuestionHelp(), rows: []keyRow{
			{keys: []string{"enter"}, does: "run the plan: plan mode ends and the plan is sent as your next message, carried out under the permission mode"},
			{keys: []string{"esc"}, does: "keep planning (plan mode stays on). The question comes when a plan-mode turn ends, as a bar under the transcript (the plan stays in view), and takes `enter` and `esc` only once you have stopped typing for 400 ms; what you type meanwhile goes to the input"},
			{keys: []string{"↑", "↓", "pgup", "pgdn", "home", "end"}, does: "scroll the transcript behind the question, to read the whole plan: a line, half a screen, to its first or last line (at once: reading never answers)"},
		}},
		{where: "approvals (chat)", help: approval, rows: []keyRow{
			{keys: []string{"y", "a", "A", "n/esc", "r"}, does: "allow once, allow this tool for the session, always allow in this project (a rule you edit first, see Security), deny, deny with a reason the model reads. Keys count only once you have stopped typing for 400 ms (see Security)"},
			{keys: []string{"↑", "↓", "pgup", "pgdn", "home", "end"}, does: "scroll the command or diff"},
		}},
		{where: "extension dialogs (chat)", help: extHelp, rows: []keyRow{
			{keys: []string{"enter"}, does: "choose the highlighted option (a select); send the text (an input or editor)"},
			{keys: []string{"y", "n"}, does: "a confirm: yes, no"},
			{keys: []string{"alt+enter/ctrl+j"}, does: "an editor: new line"},
			{keys: []string{"esc"}, does: "cancel (the extension is told). Keys answer only once you have stopped typing for 400 ms, as in approvals; a timeout the extension set counts down on the dialog"},
			{keys: []string{"↑/k", "↓/j", "pgup", "pgdn", "home/g", "end/G"}, does: "move through a select's options (at once: moving never answers)"},
		}},
	}
}
