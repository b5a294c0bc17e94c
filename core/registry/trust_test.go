package registry

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/store"
)

func readTrust(t *testing.T, agent string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(agent, TrustFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeTrust(t *testing.T, agent, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(agent, TrustFile), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	dir := filepath.Join(parts...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	return real
}

// pi-tui's trust toggles write pi's trust.json exactly as pi writes it
// (sorted keys, two-space indent, trailing newline) and keep every key
// they do not own, nulls included.
func TestTrustTogglesWritePisTrustJSON(t *testing.T) {
	ctx := context.Background()
	st, agent := openStore(t), t.TempDir()
	reg := NewRegistry(st, agent)
	base := t.TempDir()
	api := mkdir(t, base, "api")
	writeTrust(t, agent, "{\n  \"/zzz\": null,\n  \"/aaa\": false\n}\n")

	p, _, err := reg.Add(ctx, api, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Trusted {
		t.Errorf("added with trust but untrusted: %+v", p)
	}
	want := fmt.Sprintf("{\n  %q: false,\n  %q: true,\n  %q: null\n}\n", "/aaa", api, "/zzz")
	if got := readTrust(t, agent); got != want {
		t.Errorf("trust.json =\n%s\nwant\n%s", got, want)
	}
	if err := reg.SetTrusted(ctx, p.ID, false); err != nil {
		t.Fatal(err)
	}
	want = fmt.Sprintf("{\n  %q: false,\n  %q: false,\n  %q: null\n}\n", "/aaa", api, "/zzz")
	if got := readTrust(t, agent); got != want {
		t.Errorf("after untrust trust.json =\n%s\nwant\n%s", got, want)
	}
	if p, _ := reg.Get(ctx, p.ID); p.Trusted {
		t.Errorf("untrusted project reads as trusted")
	}
}

// A decision pi made is pi-tui's decision at the next look: the nearest
// decision on the folder or a parent applies, and a child's false beats a
// parent's true.
func TestTrustDecidedInPiIsSeenWithNearestAncestorRules(t *testing.T) {
	ctx := context.Background()
	st, agent := openStore(t), t.TempDir()
	reg := NewRegistry(st, agent)
	base := mkdir(t, t.TempDir())
	api := mkdir(t, base, "src", "api")
	web := mkdir(t, base, "src", "web")
	pa, _, _ := reg.Add(ctx, api, "", false)
	pw, _, _ := reg.Add(ctx, web, "", false)
	if b, _ := reg.Binding(ctx, pa.ID); b.Trusted {
		t.Fatal("trusted without any decision")
	}
	// pi: "Trust parent folder" for src, "Do not trust" for web.
	writeTrust(t, agent, fmt.Sprintf("{\n  %q: true,\n  %q: false\n}\n", filepath.Join(base, "src"), web))
	if b, _ := reg.Binding(ctx, pa.ID); !b.Trusted {
		t.Error("api is not trusted through its trusted parent")
	}
	if b, _ := reg.Binding(ctx, pw.ID); b.Trusted {
		t.Error("web's own false did not beat its parent's true")
	}
	list, _ := reg.List(ctx, true)
	for _, p := range list {
		if p.Trusted != (p.ID == pa.ID) {
			t.Errorf("list: %s trusted = %v", p.Name, p.Trusted)
		}
	}
}

func TestNearestDecision(t *testing.T) {
	d := Decisions{"/a": Trusted, "/a/b": Untrusted, "/a/b/c": Undecided, "/x/y": Trusted}
	for dir, want := range map[string]string{"/a": "true /a", "/a/z": "true /a", "/a/b/c/d": "false /a/b", "/x": "none", "/": "none"} {
		tr, at, ok := d.Nearest(dir)
		got := "none"
		if ok {
			got = fmt.Sprintf("%v %s", tr, at)
		}
		if got != want {
			t.Errorf("Nearest(%s) = %s, want %s", dir, got, want)
		}
	}
}

// defaultProjectTrust (global settings.json only) decides where no
// decision does: "always" trusts, "ask" and "never" do not.
func TestDefaultProjectTrust(t *testing.T) {
	ctx := context.Background()
	st, agent := openStore(t), t.TempDir()
	reg := NewRegistry(st, agent)
	api := mkdir(t, t.TempDir(), "api")
	web := mkdir(t, t.TempDir(), "web")
	pa, _, _ := reg.Add(ctx, api, "", false)
	pw, _, _ := reg.Add(ctx, web, "", false)
	writeTrust(t, agent, fmt.Sprintf("{\n  %q: false\n}\n", web))
	// A project cannot vouch for itself.
	os.MkdirAll(filepath.Join(api, ".pi"), 0o755)
	os.WriteFile(filepath.Join(api, ".pi", "settings.json"), []byte(`{"defaultProjectTrust":"always"}`), 0o644)
	for _, c := range []struct {
		def      string
		api, web bool
	}{{"always", true, false}, {"ask", false, false}, {"never", false, false}, {"", false, false}} {
		os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"defaultProjectTrust":"`+c.def+`"}`), 0o644)
		a, _ := reg.Get(ctx, pa.ID)
		w, _ := reg.Get(ctx, pw.ID)
		if a.Trusted != c.api || w.Trusted != c.web {
			t.Errorf("defaultProjectTrust %q: api %v web %v, want %v %v", c.def, a.Trusted, w.Trusted, c.api, c.web)
		}
	}
}

// A broken trust.json is one sentence naming the file and the position;
// it counts as no decisions and is never overwritten.
func TestMalformedTrustJSON(t *testing.T) {
	ctx := context.Background()
	st, agent := openStore(t), t.TempDir()
	reg := NewRegistry(st, agent)
	api := mkdir(t, t.TempDir(), "api")
	p, _, _ := reg.Add(ctx, api, "", false)
	for _, c := range []struct{ text, where string }{
		{fmt.Sprintf("{\n  %q: true,\n  \"/y\": 1\n}\n", api), "line 3, column 9"},
		{fmt.Sprintf("{\n  %q: true,\n}\n", api), "line 3, column 1"},
		{"[true]", "line 1, column 1"},
	} {
		writeTrust(t, agent, c.text)
		probs := reg.TrustProblems(ctx)
		path := filepath.Join(agent, TrustFile)
		if len(probs) != 1 || !strings.HasPrefix(probs[0].Error(), path+" is not valid JSON at "+c.where) || strings.Contains(probs[0].Error(), "\n") {
			t.Errorf("%q: problems = %v, want %s at %s", c.text, probs, path, c.where)
		}
		if q, _ := reg.Get(ctx, p.ID); q.Trusted {
			t.Errorf("%q: a broken file's decision was used", c.text)
		}
		err := reg.SetTrusted(ctx, p.ID, true)
		if err == nil || !strings.Contains(err.Error(), "fix it by hand") {
			t.Errorf("%q: SetTrusted = %v", c.text, err)
		}
		if got := readTrust(t, agent); got != c.text {
			t.Errorf("%q: the broken file was rewritten: %q", c.text, got)
		}
	}
}

// A trust.json that is a FIFO is refused at once, never waited on.
func TestTrustJSONFIFO(t *testing.T) {
	agent := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(agent, TrustFile), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	_, err := NewTrust(agent).Read(context.Background())
	if err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("read = %v", err)
	}
}

// pi-tui waits for pi's lock and re-reads under it, so a decision pi
// writes while holding the lock is kept: no update is lost.
func TestTrustWaitsForPisLockAndLosesNoUpdate(t *testing.T) {
	agent := t.TempDir()
	tr := NewTrust(agent)
	held := make(chan struct{}, 1)
	tr.held = func() {
		select {
		case held <- struct{}{}:
		default:
		}
	}
	lock := filepath.Join(agent, TrustFile+".lock")
	if err := os.Mkdir(lock, 0o755); err != nil { // pi takes its lock
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- tr.Set(context.Background(), "/home/u/api", true) }()
	<-held // pi-tui found the lock held and waits
	select {
	case err := <-done:
		t.Fatalf("wrote while pi held the lock: %v", err)
	default:
	}
	writeTrust(t, agent, "{\n  \"/home/u/web\": false\n}\n") // pi writes under its lock
	if err := syscall.Rmdir(lock); err != nil {              // and releases it
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, want := readTrust(t, agent), "{\n  \"/home/u/api\": true,\n  \"/home/u/web\": false\n}\n"; got != want {
		t.Errorf("trust.json = %q, want %q", got, want)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("the lock was not released: %v", err)
	}
}

// A lock left behind by a process that died (older than proper-lockfile's
// 10 s) is removed; something else in the lock's place is an error.
func TestTrustStaleLockAndLockInTheWay(t *testing.T) {
	agent := t.TempDir()
	lock := filepath.Join(agent, TrustFile+".lock")
	os.Mkdir(lock, 0o755)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(lock, old, old)
	if err := NewTrust(agent).Set(context.Background(), "/a", true); err != nil {
		t.Fatalf("stale lock: %v", err)
	}
	syscall.Rmdir(lock)
	os.WriteFile(lock, nil, 0o644)
	err := NewTrust(agent).Set(context.Background(), "/b", true)
	if err == nil || !strings.Contains(err.Error(), "in the way") {
		t.Errorf("file in the lock's place: %v", err)
	}
	// A live lock that is never released ends in an error, not a hang.
	os.Remove(lock)
	os.Mkdir(lock, 0o755)
	tr := NewTrust(agent)
	tr.wait = 0
	if err := tr.Set(context.Background(), "/c", true); err == nil || !strings.Contains(err.Error(), "locked by another program") {
		t.Errorf("held lock: %v", err)
	}
}

// Many writers at once (SSH sessions, a script, pi) each keep the
// others' decisions.
func TestConcurrentTrustWritersLoseNothing(t *testing.T) {
	agent := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- NewTrust(agent).Set(context.Background(), fmt.Sprintf("/p/%02d", i), i%2 == 0)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	d, err := NewTrust(agent).Read(context.Background())
	if err != nil || len(d) != 16 {
		t.Fatalf("decisions = %v, %v", d, err)
	}
}

// Keys are sorted by UTF-16 code units and quoted as JavaScript quotes
// them, so a file pi-tui writes is byte for byte the file pi would write.
func TestTrustFormatMatchesJavaScript(t *testing.T) {
	d := Decisions{"/\U0001F600": Trusted, "/\uFB01": Untrusted, "/a\"b\\c\n\x01<&>\u2028": Trusted}
	want := "{\n  \"/a\\\"b\\\\c\\n\\u0001<&>\u2028\": true,\n  \"/\U0001F600\": true,\n  \"/\uFB01\": false\n}\n"
	if got := string(formatTrust(d)); got != want {
		t.Errorf("format =\n%q\nwant\n%q", got, want)
	}
	if got := string(formatTrust(Decisions{})); got != "{}\n" {
		t.Errorf("empty = %q", got)
	}
	back, err := parseTrust("t", []byte(want))
	if err != nil || len(back) != 3 || back["/a\"b\\c\n\x01<&>\u2028"] != Trusted {
		t.Errorf("round trip = %v %v", back, err)
	}
}

// The first open after an upgrade carries the store's trust flags into
// trust.json, once, without overriding a decision trust.json already
// holds for that folder.
func TestTrustFlagsMoveToTrustJSONOnce(t *testing.T) {
	ctx := context.Background()
	st, agent := openStore(t), t.TempDir()
	base := mkdir(t, t.TempDir())
	trusted := mkdir(t, base, "trusted")
	plain := mkdir(t, base, "plain")
	under := mkdir(t, base, "shared", "under")
	decided := mkdir(t, base, "decided")
	// An older pi-tui's rows, trust in the store.
	for i, r := range []struct {
		root string
		v    bool
	}{{trusted, true}, {plain, false}, {under, false}, {decided, true}} {
		if _, _, err := st.InsertProject(ctx, store.ProjectRow{ID: fmt.Sprintf("p0000000%d", i), Name: fmt.Sprint("n", i), Root: r.root, Trusted: r.v}); err != nil {
			t.Fatal(err)
		}
	}
	shared := filepath.Join(base, "shared")
	writeTrust(t, agent, fmt.Sprintf("{\n  %q: false,\n  %q: true\n}\n", decided, shared))

	reg := NewRegistry(st, agent)
	list, err := reg.List(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range list {
		got[p.Root] = p.Trusted
	}
	if !got[trusted] || got[plain] || got[under] || got[decided] {
		t.Errorf("trust after the upgrade = %v", got)
	}
	want := map[string]string{decided: "false", shared: "true", trusted: "true", under: "false"}
	keys := []string{decided, shared, under, trusted} // sorted as JavaScript sorts them
	var b strings.Builder
	b.WriteString("{\n")
	for i, k := range keys {
		fmt.Fprintf(&b, "  %q: %s", k, want[k])
		if i < len(keys)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	if got := readTrust(t, agent); got != b.String() {
		t.Errorf("trust.json =\n%s\nwant\n%s", got, b.String())
	}
	// Once: the user removes a decision in pi; the next open keeps it gone.
	writeTrust(t, agent, "{}\n")
	if _, err := NewRegistry(st, agent).List(ctx, true); err != nil {
		t.Fatal(err)
	}
	if got := readTrust(t, agent); got != "{}\n" {
		t.Errorf("the migration ran twice: %q", got)
	}
}

// A broken trust.json holds the migration back (nothing is lost, nothing
// overwritten) until it is fixed.
func TestTrustMigrationWaitsForABrokenFile(t *testing.T) {
	ctx := context.Background()
	st, agent := openStore(t), t.TempDir()
	root := mkdir(t, t.TempDir(), "api")
	st.InsertProject(ctx, store.ProjectRow{ID: "p00000001", Name: "api", Root: root, Trusted: true})
	writeTrust(t, agent, "{")
	NewRegistry(st, agent).List(ctx, true)
	if got := readTrust(t, agent); got != "{" {
		t.Fatalf("broken file rewritten: %q", got)
	}
	writeTrust(t, agent, "{}")
	list, _ := NewRegistry(st, agent).List(ctx, true)
	if len(list) != 1 || !list[0].Trusted {
		t.Errorf("after the fix = %+v", list)
	}
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
