package piengine

import (
	"os"
	"path/filepath"
	"testing"
)

// pi runs without jiti's file cache where another user could plant the
// compiled bridge in it: a cache folder others may write to, or a link.
// A missing one is made the user's own (0700), and the cache is kept.
func TestJitiCacheOnlyInAFolderOfOurOwn(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(tmp string)
		off   bool
	}{
		{"missing", func(string) {}, false},
		{"ours", func(tmp string) { os.Mkdir(filepath.Join(tmp, "jiti"), 0o700) }, false},
		{"world-writable", func(tmp string) {
			os.Mkdir(filepath.Join(tmp, "jiti"), 0o777)
			os.Chmod(filepath.Join(tmp, "jiti"), 0o777)
		}, true},
		{"a link", func(tmp string) {
			other := filepath.Join(tmp, "elsewhere")
			os.Mkdir(other, 0o700)
			os.Symlink(other, filepath.Join(tmp, "jiti"))
		}, true},
		{"a file", func(tmp string) { os.WriteFile(filepath.Join(tmp, "jiti"), nil, 0o600) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			c.setup(tmp)
			got := jitiCacheEnv([]string{"HOME=/nowhere", "TMPDIR=" + tmp})
			if off := got == "JITI_FS_CACHE=false"; off != c.off {
				t.Fatalf("env %q, want the cache off: %v", got, c.off)
			}
			if c.name == "missing" {
				if fi, err := os.Lstat(filepath.Join(tmp, "jiti")); err != nil || fi.Mode().Perm() != 0o700 {
					t.Fatalf("the missing folder was not made ours: %v %v", fi, err)
				}
			}
		})
	}
}
