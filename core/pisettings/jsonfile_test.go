package pisettings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUpdateFileKeepsOtherKeysAndOrder(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	orig := "{\n  \"theme\": \"dark\",\n  \"defaultProvider\": \"openai\",\n  \"packages\": [ {\"source\": \"npm:x\"} ]\n}\n"
	os.WriteFile(p, []byte(orig), 0o600)
	err := UpdateFile(p, func(o *Object) error {
		if err := o.SetValue("defaultProvider", "anthropic"); err != nil {
			return err
		}
		return o.SetValue("defaultModel", "claude-x")
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	want := "{\n  \"theme\": \"dark\",\n  \"defaultProvider\": \"anthropic\",\n  \"packages\": [ {\"source\": \"npm:x\"} ],\n  \"defaultModel\": \"claude-x\"\n}\n"
	if string(data) != want {
		t.Errorf("got:\n%s\nwant:\n%s", data, want)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", fi.Mode())
	}
	if d, err := ReadDefaults(dir); err != nil || d.Provider != "anthropic" {
		t.Errorf("read back: %+v %v", d, err)
	}
}

func TestUpdateFileRefusesInvalidFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "agent-guidance.json")
	os.WriteFile(p, []byte(`{"providers": [}`), 0o644)
	err := UpdateFile(p, func(o *Object) error { return o.SetValue("subdirectoryContext", false) })
	if err == nil || !strings.Contains(err.Error(), "left as it is") {
		t.Fatalf("err = %v", err)
	}
	if data, _ := os.ReadFile(p); string(data) != `{"providers": [}` {
		t.Errorf("invalid file was rewritten: %s", data)
	}
	os.WriteFile(p, []byte(`[1]`), 0o644)
	if err := UpdateFile(p, func(o *Object) error { return nil }); err == nil {
		t.Error("a JSON array was accepted as settings")
	}
}

func TestUpdateFileCreatesAndFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "agent", "settings.json")
	if err := UpdateFile(p, func(o *Object) error { return o.SetValue("defaultModel", "m") }); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "{\n  \"defaultModel\": \"m\"\n}\n" {
		t.Errorf("created %q", data)
	}
	real := filepath.Join(dir, "dotfiles.json")
	os.WriteFile(real, []byte(`{"a":1}`), 0o644)
	link := filepath.Join(dir, "link.json")
	os.Symlink(real, link)
	if err := UpdateFile(link, func(o *Object) error { return o.SetValue("b", 2) }); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("link replaced by a file")
	}
	if data, _ := os.ReadFile(real); !strings.Contains(string(data), `"b": 2`) || !strings.Contains(string(data), `"a": 1`) {
		t.Errorf("target = %s", data)
	}
}
