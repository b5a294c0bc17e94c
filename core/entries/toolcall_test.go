package entries

import (
	"encoding/json"
	"strings"
	"testing"
)

// A call's arguments read as pi shows them: in the schema's order (the
// others after, as given), strings quoted, a long value and a long line
// cut, control characters shown.
func TestArgsLineBySchema(t *testing.T) {
	raw := json.RawMessage(`{"times": 2, "extra": {"b":1, "a":[1, 2]}, "label": "v1\u001b[31m"}`)
	got := ArgsLine(ToolArgs(raw, []string{"label", "times"}), 100)
	if want := `label="v1\u001b[31m" times=2 extra={"b":1,"a":[1,2]}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	long := json.RawMessage(`{"text":"` + strings.Repeat("x", 200) + `"}`)
	if got := ArgsLine(ToolArgs(long, nil), 100); len([]rune(got)) != 5+60 || !strings.HasSuffix(got, "…") {
		t.Errorf("a long value: %q", got)
	}
	if got := ArgsLine(ToolArgs(json.RawMessage(`[1,2]`), nil), 100); got != "args=[1,2]" {
		t.Errorf("not an object: %q", got)
	}
	if got := ArgText(json.RawMessage(`"two\nlines"`)); got != "two\nlines" {
		t.Errorf("a string whole: %q", got)
	}
}
