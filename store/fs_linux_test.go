//go:build linux

package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mountTmpfs mounts a small tmpfs on a temp dir. It needs root (as CI and
// the developer machines have); elsewhere the test is skipped with the
// reason.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs to simulate the condition (%v); needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

func TestFullDiskRefusesSaveAndKeepsOldValue(t *testing.T) {
	dir := mountTmpfs(t, "160k")
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(dir, FileName), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.CompareAndSwapKV(ctx, "ns", "k", nil, "old"); err != nil {
		t.Fatal(err)
	}
	// Fill what is left of the disk.
	filler, _ := os.Create(filepath.Join(dir, "filler"))
	chunk := make([]byte, 4096)
	for {
		if _, err := filler.Write(chunk); err != nil {
			break
		}
	}
	filler.Close()
	old := "old"
	big := strings.Repeat("x", 256<<10)
	err = st.CompareAndSwapKV(ctx, "ns", "k", &old, big)
	if err == nil {
		t.Fatal("a 256 KiB write onto a full disk succeeded")
	}
	t.Logf("write on a full disk: %v", err)
	if !strings.Contains(err.Error(), "full") && !strings.Contains(err.Error(), "failed") {
		t.Errorf("error does not say what failed: %v", err)
	}
	kv, _, err := st.GetKV(ctx, "ns", "k")
	if err != nil || kv.Value != "old" {
		t.Errorf("after the failed write: %q, %v; want old", kv.Value, err)
	}
	os.Remove(filepath.Join(dir, "filler"))
	if res, err := st.IntegrityCheck(ctx); res != "ok" {
		t.Errorf("integrity_check = %q, %v", res, err)
	}
}

func TestReadOnlyDataDir(t *testing.T) {
	dir := mountTmpfs(t, "1m")
	ctx := context.Background()
	path := filepath.Join(dir, FileName)
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CompareAndSwapKV(ctx, "ns", "k", nil, "old"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only: %v", err)
	}
	st, err = Open(ctx, path, Options{})
	if err != nil {
		// Refusing to open at all is acceptable if it says why.
		t.Logf("open on a read-only dir: %v", err)
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("error does not name the database: %v", err)
		}
		return
	}
	defer st.Close()
	old := "old"
	err = st.CompareAndSwapKV(ctx, "ns", "k", &old, "new")
	t.Logf("write on a read-only dir: %v", err)
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("want a read-only sentence, got %v", err)
	}
	kv, _, err := st.GetKV(ctx, "ns", "k")
	if err != nil || kv.Value != "old" {
		t.Errorf("value = %q, %v; want old", kv.Value, err)
	}
}

// fill takes every free byte of the file system holding dir.
func fill(t *testing.T, dir string) {
	t.Helper()
	filler, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer filler.Close()
	for chunk := make([]byte, 4096); ; {
		if _, err := filler.Write(chunk); err != nil {
			break
		}
	}
	for b := make([]byte, 1); ; { // the last partial block too
		if _, err := filler.Write(b); err != nil {
			break
		}
	}
}

// Opening the database on a disk filled to the last block says the disk
// is full, not "I/O error": SQLite fails to grow its WAL index there.
func TestCompletelyFullDiskSaysDiskIsFull(t *testing.T) {
	dir := mountTmpfs(t, "256k")
	ctx := context.Background()
	path := filepath.Join(dir, FileName)
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.InsertProject(ctx, ProjectRow{ID: "p1", Name: "p", Root: "/p", CreatedAt: 1}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	fill(t, dir)
	st, err = Open(ctx, path, Options{})
	if err == nil {
		defer st.Close()
		_, err = st.CreateSession(ctx, "s1", "p1", "")
	}
	if err == nil || !strings.Contains(err.Error(), "disk is full") {
		t.Errorf("error on a full disk = %v; want it to say the disk is full", err)
	}
}
