package bridge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/pi-tui/pi-tui/assets"
)

// Install writes the bridge extension under dataDir, content-addressed:
// <dataDir>/bridge/<sha256 prefix>/pi-tui-bridge.ts, file 0600, folders
// 0700, and returns the file's path for pi's -e. A file already there is
// checked and written again when its content differs (an edit, a torn
// write); a folder that is a link, or not a 0700 folder of this user, is
// refused, since pi would run whatever code it finds there.
func Install(dataDir string) (string, error) {
	sum := sha256.Sum256(assets.BridgeSource)
	base := filepath.Join(dataDir, "bridge")
	dir := filepath.Join(base, hex.EncodeToString(sum[:])[:16])
	for _, d := range []string{base, dir} {
		if err := privateDir(d); err != nil {
			return "", fmt.Errorf("the pi bridge cannot be installed: %w", err)
		}
	}
	file := filepath.Join(dir, assets.BridgeName)
	if fi, err := os.Lstat(file); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm() == 0o600 {
		if b, err := os.ReadFile(file); err == nil && bytes.Equal(b, assets.BridgeSource) {
			return file, nil
		}
	}
	tmp, err := os.CreateTemp(dir, ".bridge-*")
	if err != nil {
		return "", fmt.Errorf("the pi bridge cannot be installed: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(assets.BridgeSource); err != nil {
		tmp.Close()
		return "", fmt.Errorf("the pi bridge cannot be installed: %w", err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", fmt.Errorf("the pi bridge cannot be installed: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("the pi bridge cannot be installed: %w", err)
	}
	// A rename replaces whatever is at the name, a link included, without
	// following it.
	if err := os.Rename(tmp.Name(), file); err != nil {
		return "", fmt.Errorf("the pi bridge cannot be installed: %w", err)
	}
	return file, nil
}

// privateDir makes d (0700) or checks that it is a real folder of this
// user that nobody else can write.
func privateDir(d string) error {
	if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	fi, err := os.Lstat(d)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("%s is not a folder (a link or a file is there)", d)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to another user", d)
	}
	if fi.Mode().Perm() != 0o700 {
		return fmt.Errorf("%s has mode %v, not 0700", d, fi.Mode().Perm())
	}
	return nil
}
