package piengine

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
)

// The versions file: what `pi --version` said for each executable, kept
// across pi-tui's processes. Asking costs a whole node start (0.3 s and
// more on a busy machine), which every one-shot `pi-tui prompt` paid
// before pi itself was even started. An entry is used only while the
// file's stamp (path, size, modification time, inode) is unchanged, and
// the pi launched on it confirms its version through the bridge
// (Pi.Cached, Locator.Forget); a stale entry costs one launch that is
// killed before any command is sent.

// Bounds of the versions file.
const (
	versionsMaxBytes   = 64 << 10
	versionsMaxEntries = 16
)

// versionEntry is one line of the versions file's list.
type versionEntry struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	MTime   int64  `json:"mtime"`
	Ino     uint64 `json:"ino"`
	Version string `json:"version"`
}

func (e versionEntry) stamp() stamp {
	return stamp{path: e.Path, size: e.Size, mtime: e.MTime, ino: e.Ino}
}

// readVersions returns the file's entries; a missing, oversized, odd
// (not a regular file) or malformed file is no entries: the version is
// asked again and the file rewritten.
func readVersions(file string) []versionEntry {
	// Looked at before it is opened: opening a FIFO would wait for a
	// writer.
	if fi, err := os.Lstat(file); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > versionsMaxBytes {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, versionsMaxBytes+1))
	if err != nil || len(b) > versionsMaxBytes {
		return nil
	}
	var list []versionEntry
	if json.Unmarshal(b, &list) != nil {
		return nil
	}
	out := list[:0]
	for _, e := range list {
		if _, ok := parseVersion(e.Version); ok && e.Path != "" {
			out = append(out, e)
		}
	}
	return out
}

// lookupVersion is the file's version for st, if it holds one.
func lookupVersion(file string, st stamp) (string, bool) {
	for _, e := range readVersions(file) {
		if e.stamp() == st {
			return e.Version, true
		}
	}
	return "", false
}

// storeVersion records version for st (version "" removes st's entry),
// replacing the file atomically (0600). A failure only means the next
// process asks again.
func storeVersion(file string, st stamp, version string) {
	list := readVersions(file)
	out := make([]versionEntry, 0, len(list)+1)
	for _, e := range list {
		if e.Path != st.path {
			out = append(out, e) // one entry per path: its latest stamp
		}
	}
	if version != "" {
		out = append(out, versionEntry{Path: st.path, Size: st.size, MTime: st.mtime, Ino: st.ino, Version: version})
	}
	if len(out) > versionsMaxEntries {
		out = out[len(out)-versionsMaxEntries:]
	}
	b, err := json.Marshal(out)
	if err != nil {
		return
	}
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".pi-versions-*")
	if err != nil {
		return
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		return
	}
	_ = os.Rename(tmp.Name(), file)
}
