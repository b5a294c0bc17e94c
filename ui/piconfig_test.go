package ui

import (
	"testing"
)

// A broken settings.json or trust.json is named with its line and column
// in the status bar, and in full in Settings.
func TestBrokenPiFilesAreNamedWithTheirPosition(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write(".pi/agent/settings.json", "{\n  \"defaultModel\": \"x\",\n  }\n")
	f.write(".pi/agent/trust.json", "{\n  \"/x\": yes\n}\n")
	f.add("proj", "proj", false)
	s := f.run(150, 30)
	s.waitFor("~/.pi/agent/settings.json:3:3 is not valid JSON", "~/.pi/agent/trust.json:2:9 is not valid JSON")
	s.keys("3")
	s.waitFor("settings.json is not valid JSON at line 3, column 3", "trust.json is not valid JSON at line 2, column 9")
	s.final()
}
