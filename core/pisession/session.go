package pisession

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"
	"unicode/utf8"
)

// Errors a caller can test for with errors.Is.
var (
	// ErrNotSession: the file is not a pi session (its first JSON line is
	// not a session header, or it has no JSON line at all). It is left as
	// it is.
	ErrNotSession = errors.New("not a pi session file")
	// ErrDamaged: the entries' parent links form a cycle, so the file has no
	// well-defined conversation (pi itself would loop forever on it). It is
	// left as it is.
	ErrDamaged = errors.New("the session's history is damaged")
	// ErrReadOnly: the file cannot be written (permissions, or a session of
	// a newer format than this program writes).
	ErrReadOnly = errors.New("the session file is read-only")
	// ErrClosed: the Session was closed.
	ErrClosed = errors.New("the session is closed")
	// ErrNoEntry: no entry has the given id.
	ErrNoEntry = errors.New("no such entry")
)

// leafMarkerType is the customType of the entry Branch writes so that pi,
// which takes the last entry of the file as the leaf, reopens the session
// on the chosen branch. custom entries are never sent to the model and pi's
// tree hides them; pi-tui reads a trailing marker as "the leaf is the
// marker's parent".
const leafMarkerType = "pi-tui.leaf"

// maxWarnings bounds the warnings kept per session; the rest are counted.
const maxWarnings = 50

// Options tune a Session. The zero value is ready to use.
type Options struct {
	// Now is the clock for timestamps (time.Now when nil).
	Now func() time.Time
	// Rand is the source of ids (crypto/rand when nil).
	Rand io.Reader
	// MaxLineBytes bounds one line (DefaultMaxLineBytes when 0).
	MaxLineBytes int
	// MaxFileBytes and MaxEntries bound the file Open reads into memory
	// (DefaultMaxFileBytes and DefaultMaxEntries when 0); a larger one
	// fails with ErrTooLarge. Listing reads any size.
	MaxFileBytes int64
	MaxEntries   int
	// ReadOnly opens the file for reading only; writes fail with
	// ErrReadOnly. For previews and listings, which must never write.
	ReadOnly bool
	// SummaryCustom names custom entry types (customType) whose data a
	// summary keeps (Summary.Custom), so a listing learns an application's
	// records without opening each file again.
	SummaryCustom []string
	// Unsynced lets WriteSession leave syncing to the caller, which writes
	// many files and syncs them together once (an import).
	Unsynced bool
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	return o
}

// node is one entry held in memory.
type node struct {
	raw      []byte
	id       string
	parentID string // "" = null
	typ      string
	tsOff    int32 // the raw JSON timestamp is raw[tsOff:tsOff+tsLen]
	tsLen    int32
	parent   int32 // index of the parent, -1 for a root or a missing parent
	line     int32 // 1-based line in the file (0 while not yet written)
	role     uint8
	own      bool // appended by this Session (not an arrival)
}

// ts returns the raw JSON value of the entry's timestamp (nil if none).
func (n *node) ts() []byte {
	if n.tsLen == 0 {
		return nil
	}
	return n.raw[n.tsOff : n.tsOff+n.tsLen]
}

// Session is an open pi session file. Its methods are safe for concurrent
// use. Several Sessions, in this or other processes, and pi itself may hold
// the same file: each append first reads what others appended (reported as
// arrivals) and then adds one whole line at the end.
type Session struct {
	mu sync.Mutex
	state
}

// state is everything a Session holds, apart so that a reload can build a
// fresh one and swap it in whole.
type state struct {
	opts Options
	path string

	f        *os.File // nil until the file exists (deferred) and after Close
	closed   bool
	readOnly bool
	deferred bool     // nothing written yet; see Flush
	pending  [][]byte // deferred lines (the header first)
	madeHere bool     // created deferred by this Session: Unflush may undo its Flush

	header   Header
	nodes    []node
	byID     map[string]int32
	dangling map[string]struct{} // parent ids that name no entry
	relinked bool                // resolveAll ran since the last cycle check
	stale    bool                // parents need relinking (see insert, settle)
	// resolvePasses counts resolveAll's passes over every node, so tests
	// can tell that a read costs one pass, not one per duplicate.
	resolvePasses int
	leaf          int32             // -1 = before the first entry
	offset        int64             // bytes of the file read as whole lines
	needNL        bool              // the last line read has no '\n'
	lines         int32             // lines read, the header included
	damaged       string            // set when an arrival made a cycle
	upgrade       bool              // an old format read in memory; rewritten on the first write
	lastInfo      int32             // index of the latest session_info, -1
	ownPending    map[string][]byte // lines written but not yet read back
	firstKept     map[int32]string  // v1 compactions: firstKeptEntryIndex as an id
	headerOff     int64             // where the header line starts in the file
	tornWarned    bool              // the partial last line was reported
	// beforeWrite, in tests, runs between the refresh and the write of an
	// append: the window in which pi may write a line of its own.
	beforeWrite func()
	warnings    []string
	moreWarns   int
}

// NewSession describes a session to create.
type NewSession struct {
	Cwd           string // absolute working directory, stored in the header
	ParentSession string // path of the session this one forks, or ""
	// ID is the session id; a fresh UUIDv7 when empty.
	ID string
	// Deferred keeps everything in memory until Flush, or until the first
	// assistant message is appended (pi's rule), and only then creates the
	// file. A deferred session that is closed before that leaves no file.
	Deferred bool
}

// Create starts a new session file in dir (created if missing), named as
// pi names its files. Unless ns.Deferred, the file (holding the header) is
// created at once. The name is claimed with O_EXCL: an existing file is
// never overwritten.
func Create(ctx context.Context, dir string, ns NewSession, opts Options) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	now := opts.Now()
	id := ns.ID
	if id == "" {
		var err error
		if id, err = newUUIDv7(now, opts.Rand); err != nil {
			return nil, err
		}
	}
	if !validSessionID(id) {
		return nil, fmt.Errorf("create session: id %q may hold only letters, digits, '.', '_' and '-'", id)
	}
	ts := FormatTimestamp(now)
	w := newObjWriter()
	w.str("type", TypeSession)
	w.val("version", Version)
	w.str("id", id)
	w.str("timestamp", ts)
	w.str("cwd", ns.Cwd)
	w.strIf("parentSession", ns.ParentSession)
	raw, err := w.done()
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	s := &Session{state: state{
		opts:     opts,
		path:     filepath.Join(dir, FileName(ts, id)),
		header:   Header{Version: Version, ID: id, Timestamp: ts, Cwd: ns.Cwd, ParentSession: ns.ParentSession, Raw: raw},
		byID:     map[string]int32{},
		leaf:     -1,
		lastInfo: -1,
		deferred: true,
		pending:  [][]byte{raw},
		lines:    1,
		madeHere: ns.Deferred,
	}}
	if !ns.Deferred {
		if err := s.flushLocked(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// validSessionID follows pi 0.85's rule for ids (they become file names).
func validSessionID(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || i == len(id)-1 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// Open reads a session file. Lines pi would skip (malformed JSON, blank,
// over the line limit, an entry without an id) are skipped with a warning,
// as are dangling parent links; the file is never modified by opening it.
// A file whose first JSON line is not a session header fails with
// ErrNotSession, one whose parent links form a cycle with ErrDamaged.
//
// A file that cannot be opened for writing opens read-only: it reads as
// usual and writes fail with ErrReadOnly.
func Open(ctx context.Context, path string, opts Options) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	readOnly := opts.ReadOnly
	var f *os.File
	var err error
	if !readOnly {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND|openNonblock, 0)
	}
	if readOnly || err != nil && (errors.Is(err, fs.ErrPermission) || isReadOnlyFS(err)) {
		f, err = os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
		readOnly = true
	}
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = errors.New("not a regular file")
		}
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	s := &Session{state: state{opts: opts, path: path, f: f, readOnly: readOnly}}
	if err := s.loadLocked(); err != nil {
		f.Close()
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	return s, nil
}

// loadLocked reads the whole file into a fresh state (one whose file is
// open and nothing else is set).
func (s *state) loadLocked() error {
	fi, err := s.f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() > s.opts.MaxFileBytes {
		return &tooLargeError{size: fi.Size(), maxBytes: s.opts.MaxFileBytes}
	}
	s.byID = make(map[string]int32, fi.Size()/800+16)
	s.leaf, s.lastInfo = -1, -1
	if err := s.readLocked(fi.Size(), true); err != nil {
		return err
	}
	if s.header.Raw == nil {
		return noHeaderError(fi.Size())
	}
	if s.header.Version < Version {
		s.migrateInMemory()
	} else if s.header.Version > Version {
		s.warn(newerVersionText(s.header.Version))
		s.readOnly = true
	}
	s.resolveAll()
	if cyc := s.findCycle(); cyc != "" {
		return fmt.Errorf("%s: %w", cyc, ErrDamaged)
	}
	s.relinked = false
	s.leaf = s.fileLeaf()
	return nil
}

// readLocked reads whole lines from s.offset up to size and adds them. A
// last line without its newline is left unread, so a writer that is still
// writing it can finish, unless takeLast: then one that is a complete
// entry is taken (pi takes it too).
func (s *state) readLocked(size int64, takeLast bool) error {
	if size <= s.offset {
		return nil
	}
	lr := newLineReader(s.f, s.offset, size, s.opts.MaxLineBytes)
	sized := false
	var batch []scanned
	for {
		l, ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok || !l.terminated || len(batch) == cap(batch) && cap(batch) > 0 {
			if err := s.addBatch(batch); err != nil {
				return err
			}
			batch = batch[:0]
			if err := s.entryLimit(size); err != nil {
				return err
			}
		}
		if !ok {
			return nil
		}
		if !sized {
			// Size the entry list once from the first block's line density,
			// so a long session is not copied while it grows.
			sized = true
			if nl := bytes.Count(lr.buf, []byte{'\n'}); nl > 0 && len(lr.buf) > 0 {
				est := int64(nl) * (size - s.offset) / int64(len(lr.buf))
				est = min(est, (size-s.offset)/32, 1<<24)
				s.nodes = slices.Grow(s.nodes, int(est)+16)
				if est > 2*scanBatch {
					batch = make([]scanned, 0, scanBatch)
				}
			}
		}
		if !l.terminated {
			if !takeLast || l.tooLong || !s.takeUnterminated(l) {
				return nil
			}
			continue
		}
		if batch == nil {
			if err := s.addOne(scanned{l: l}); err != nil {
				return err
			}
			if err := s.entryLimit(size); err != nil {
				return err
			}
			continue
		}
		batch = append(batch, scanned{l: l})
	}
}

// entryLimit fails once the tree holds more entries than Options.MaxEntries
// (size is the file's, for the message).
func (s *state) entryLimit(size int64) error {
	if len(s.nodes) > s.opts.MaxEntries {
		return &tooLargeError{size: size, maxCount: s.opts.MaxEntries}
	}
	return nil
}

// scanBatch is how many lines a long read scans at a time, split among the
// processors: the scan is most of the cost of opening a long session.
const scanBatch = 2048

// scanned is a line and what scanning it found.
type scanned struct {
	l       rawLine
	f       entryFields
	err     error
	badUTF8 bool
	done    bool
}

func (sc *scanned) scan() {
	if sc.done {
		return
	}
	sc.done = true
	if sc.l.tooLong || isBlank(sc.l.b) {
		return
	}
	sc.f, sc.err = scanEntry(sc.l.b)
	sc.badUTF8 = sc.err == nil && !utf8.Valid(sc.l.b)
}

// addBatch scans the lines on all processors, then adds them in order.
func (s *state) addBatch(batch []scanned) error {
	if len(batch) == 0 {
		return nil
	}
	if n := min(runtime.GOMAXPROCS(0), len(batch)/64); n > 1 {
		var wg sync.WaitGroup
		per := (len(batch) + n - 1) / n
		for k := 0; k < len(batch); k += per {
			part := batch[k:min(k+per, len(batch))]
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range part {
					part[i].scan()
				}
			}()
		}
		wg.Wait()
	}
	for i := range batch {
		if err := s.addOne(batch[i]); err != nil {
			return err
		}
	}
	return nil
}

// addOne adds a terminated line.
func (s *state) addOne(sc scanned) error {
	l := sc.l
	if s.needNL && l.n == 1 && l.off == s.offset {
		// The newline the last entry was missing: its writer was still
		// writing it.
		s.offset++
		s.needNL = false
		return nil
	}
	s.lines++
	s.offset = l.off + l.n
	s.needNL = false
	return s.addLine(&sc)
}

// takeUnterminated adds a last line that lacks its newline when it is a
// whole entry. It reports whether it did.
func (s *state) takeUnterminated(l rawLine) bool {
	if isBlank(l.b) {
		return false
	}
	if validLine(l.b) != nil {
		if !s.tornWarned {
			s.tornWarned = true
			s.warn(tornText(s.lines+1, len(l.b)))
		}
		return false
	}
	s.lines++
	s.offset = l.off + l.n
	s.needNL = true
	_ = s.addLine(&scanned{l: l})
	return true
}

// addLine adds one complete line: the header if none was found yet, else
// an entry. Only a non-header first JSON line is an error.
func (s *state) addLine(sc *scanned) error {
	line := s.lines
	kind, id, err := classifyLine(sc, line, s.opts.MaxLineBytes, &s.header, s)
	if kind == lineHeader {
		s.headerOff = sc.l.off
	}
	if kind != lineEntry {
		return err
	}
	l, f := sc.l, sc.f
	n := node{raw: l.b, id: string(id), typ: f.typ, tsOff: int32(f.tsOff), tsLen: int32(len(f.ts)), parent: -1, role: f.role, line: line}
	// A parent that is already known shares its id string; a parentId
	// that is null, missing or not a string makes a root, as in pi.
	if b, ok := plainString(f.parentID); ok {
		last := int32(len(s.nodes)) - 1
		// The newest entry always owns its id in byID (the later of two
		// equal ids wins), so a match needs no map lookup.
		if last >= 0 && len(b) > 0 && s.nodes[last].id == string(b) {
			n.parent, n.parentID = last, s.nodes[last].id // the usual case
		} else if p, found := s.byID[string(b)]; found {
			n.parent, n.parentID = p, s.nodes[p].id
		} else {
			n.parentID = string(b)
		}
	} else if f.parentID != nil && !isNull(f.parentID) {
		n.parentID, _ = stringValue(f.parentID)
	}
	if mine, ok := s.ownPending[n.id]; ok && string(mine) == string(l.b) {
		n.own = true
		delete(s.ownPending, n.id)
	}
	s.insert(n)
	return nil
}

// insert appends a node to the tree, resolving its parent. A node that
// changes what earlier nodes' parent ids mean (it reuses an id, or it is
// the parent a child named before it) marks the tree stale instead of
// relinking it: the caller relinks once, with settle, after the whole read,
// so a file of n lines costs O(n) however many of them do that.
func (s *state) insert(n node) int32 {
	i := int32(len(s.nodes))
	if prev, dup := s.byID[n.id]; dup && n.id != "" {
		s.warn(reusedIDText(n.line, n.id, s.nodes[prev].line))
		s.nodes = append(s.nodes, n)
		s.byID[n.id] = i
		s.stale = true // children of the earlier entry now mean this one
	} else {
		if n.parentID != "" && n.parent < 0 {
			if p, ok := s.byID[n.parentID]; ok {
				n.parent = p
				n.parentID = s.nodes[p].id // share the string
			}
		}
		s.nodes = append(s.nodes, n)
		if n.id != "" {
			s.byID[n.id] = i
		}
		if s.dangling != nil {
			if _, was := s.dangling[n.id]; was {
				s.stale = true // a child that came first now has its parent
			}
		}
	}
	if n.parentID != "" && s.nodes[i].parent < 0 {
		if s.dangling == nil {
			s.dangling = map[string]struct{}{}
		}
		s.dangling[n.parentID] = struct{}{}
	}
	if n.typ == TypeSessionInfo {
		s.lastInfo = i
	}
	return i
}

// settle relinks the tree if an insert left it stale.
func (s *state) settle() {
	if s.stale {
		s.resolveAll()
	}
}

// resolveAll links every node to its parent through the id map (the later
// of two equal ids wins, as in pi's map).
func (s *state) resolveAll() {
	s.dangling = nil
	s.relinked = true
	s.stale = false
	s.resolvePasses++
	for i := range s.nodes {
		n := &s.nodes[i]
		n.parent = -1
		if n.parentID == "" {
			continue
		}
		if p, ok := s.byID[n.parentID]; ok {
			n.parent = p
		} else {
			if s.dangling == nil {
				s.dangling = map[string]struct{}{}
			}
			s.dangling[n.parentID] = struct{}{}
		}
	}
}

// findCycle returns a description of a parent cycle, or "".
func (s *state) findCycle() string {
	j := cycleIn(len(s.nodes), func(i int32) int32 { return s.nodes[i].parent })
	if j < 0 {
		return ""
	}
	return cycleText(s.nodes[j].id, s.nodes[j].line)
}

// danglingWarning summarises parent links that name no entry.
func (s *state) danglingWarnings() []string {
	if len(s.dangling) == 0 {
		return nil
	}
	var out []string
	for i := range s.nodes {
		n := &s.nodes[i]
		if n.parentID != "" && n.parent < 0 {
			out = append(out, danglingText(n.id, n.line, n.parentID))
			if len(out) == maxDangling {
				break
			}
		}
	}
	return out
}

// fileLeaf is where pi would continue: the last entry of the file, or,
// when that is the marker Branch writes, the marker's parent.
func (s *state) fileLeaf() int32 {
	i := int32(len(s.nodes)) - 1
	if i < 0 {
		return -1
	}
	if s.isLeafMarker(i) {
		return s.nodes[i].parent
	}
	return i
}

func (s *state) isLeafMarker(i int32) bool {
	n := &s.nodes[i]
	if n.typ != TypeCustom {
		return false
	}
	v := findMember(n.raw, "customType")
	return v != nil && rawStringEquals(v, leafMarkerType)
}

func (s *state) warn(msg string) {
	if len(s.warnings) < maxWarnings {
		s.warnings = append(s.warnings, msg)
		return
	}
	s.moreWarns++
}

// Warnings lists what opening and reading skipped or could not make sense
// of, one sentence each.
func (s *Session) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.warnings...)
	out = append(out, s.danglingWarnings()...)
	if s.moreWarns > 0 {
		out = append(out, fmt.Sprintf("and %d more warnings", s.moreWarns))
	}
	if s.damaged != "" {
		out = append(out, s.damaged)
	}
	return out
}

// File returns the session file's path (where it will be, while deferred).
func (s *Session) File() string { return s.path }

// Header returns the header.
func (s *Session) Header() Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header
}

// ID returns the session id.
func (s *Session) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header.ID
}

// Persisted reports whether the file exists (false while deferred).
func (s *Session) Persisted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.deferred
}

// ReadOnly reports whether writes are refused.
func (s *Session) ReadOnly() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readOnly
}

func (s *state) entry(i int32) Entry {
	n := &s.nodes[i]
	return Entry{Type: n.typ, ID: n.id, ParentID: n.parentID, Raw: n.raw, tsOff: n.tsOff, tsLen: n.tsLen, role: n.role}
}

// Len returns the number of entries, every branch counted.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.nodes)
}

// Entries returns every entry, every branch, in file order.
func (s *Session) Entries() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Entry, len(s.nodes))
	for i := range s.nodes {
		out[i] = s.entry(int32(i))
	}
	return out
}

// Get returns the entry with the given id, on any branch.
func (s *Session) Get(id string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.byID[id]
	if !ok {
		return Entry{}, false
	}
	return s.entry(i), true
}

// Children returns the entries whose parent is id, in file order. With id
// "" it returns the roots, entries whose parent is missing included (pi
// shows those as roots too).
func (s *Session) Children(id string) []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	want := int32(-1)
	if id != "" {
		var ok bool
		if want, ok = s.byID[id]; !ok {
			return nil
		}
	}
	var out []Entry
	for i := range s.nodes {
		if s.nodes[i].parent == want {
			out = append(out, s.entry(int32(i)))
		}
	}
	return out
}

// Leaf returns the id of the entry the next append continues from, or ""
// before the first entry.
func (s *Session) Leaf() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leaf < 0 {
		return ""
	}
	return s.nodes[s.leaf].id
}

// pathIdx returns the indices from the root to i. The walk is bounded by
// the number of entries, so even a cycle that arrived after Open cannot
// make it loop.
func (s *state) pathIdx(i int32) []int32 {
	n := 0
	for j := i; j >= 0 && n <= len(s.nodes); j = s.nodes[j].parent {
		n++
	}
	n = min(n, len(s.nodes))
	out := make([]int32, n)
	for j := i; j >= 0 && n > 0; j = s.nodes[j].parent {
		n--
		out[n] = j
	}
	return out
}

// Path returns the active branch: the entries from the root to the leaf.
func (s *Session) Path() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entries(s.pathIdx(s.leaf))
}

// PathTo returns the branch from the root to the entry id.
func (s *Session) PathTo(id string) ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.byID[id]
	if !ok {
		return nil, fmt.Errorf("session %s has no entry %s: %w", s.header.ID, id, ErrNoEntry)
	}
	return s.entries(s.pathIdx(i)), nil
}

func (s *state) entries(idx []int32) []Entry {
	out := make([]Entry, len(idx))
	for k, i := range idx {
		out[k] = s.entry(i)
	}
	return out
}

// Name returns the session's name: the latest session_info in the file
// (on any branch, as pi reads it), trimmed; "" when none or cleared.
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastInfo < 0 {
		return ""
	}
	info, err := s.entry(s.lastInfo).SessionInfo()
	if err != nil {
		return ""
	}
	return trimSpace(info.Name)
}

// Labels returns every entry's current label (the latest label entry for
// it in the file; an empty label clears).
func (s *Session) Labels() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for i := range s.nodes {
		if s.nodes[i].typ != TypeLabel {
			continue
		}
		l, err := s.entry(int32(i)).Label()
		if err != nil || l.TargetID == "" {
			continue
		}
		if l.Label == "" {
			delete(out, l.TargetID)
		} else {
			out[l.TargetID] = l.Label
		}
	}
	return out
}

// Settings is the model and thinking level in effect on the active branch.
type Settings struct {
	Provider, ModelID string // "" when the branch names no model
	ThinkingLevel     string // "off" when the branch sets none, as in pi
}

// Settings returns the last model_change (or assistant message's
// provider/model) and thinking_level_change on the active branch.
func (s *Session) Settings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings(s.pathIdx(s.leaf))
}

func (s *state) settings(path []int32) Settings {
	var st Settings
	gotModel, gotLevel := false, false
	for k := len(path) - 1; k >= 0 && !(gotModel && gotLevel); k-- {
		n := &s.nodes[path[k]]
		switch {
		case !gotLevel && n.typ == TypeThinkingLevelChange:
			if v := findMember(n.raw, "thinkingLevel"); v != nil {
				st.ThinkingLevel, _ = stringValue(v)
			}
			gotLevel = true
		case !gotModel && n.typ == TypeModelChange:
			if v := findMember(n.raw, "provider"); v != nil {
				st.Provider, _ = stringValue(v)
			}
			if v := findMember(n.raw, "modelId"); v != nil {
				st.ModelID, _ = stringValue(v)
			}
			gotModel = true
		case !gotModel && n.typ == TypeMessage && n.role == roleAssistant:
			if msg := findMember(n.raw, "message"); msg != nil {
				if v := findMember(msg, "provider"); v != nil {
					st.Provider, _ = stringValue(v)
				}
				if v := findMember(msg, "model"); v != nil {
					st.ModelID, _ = stringValue(v)
				}
			}
			gotModel = true
		}
	}
	if !gotLevel || st.ThinkingLevel == "" {
		st.ThinkingLevel = "off"
	}
	return st
}

// Close releases the file. A deferred session that was never flushed
// leaves no file behind, as in pi.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.pending = nil
	if s.f != nil {
		err := s.f.Close()
		s.f = nil
		return err
	}
	return nil
}

func trimSpace(s string) string {
	start, end := 0, len(s)
	for start < end && isJSSpace(s[start]) {
		start++
	}
	for end > start && isJSSpace(s[end-1]) {
		end--
	}
	return s[start:end]
}

func isJSSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
