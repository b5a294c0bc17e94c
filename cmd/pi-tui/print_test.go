package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// say shows every string, error and Stringer it is given and keeps the
// verb's width; %q quotes the value itself; pi-tui's own format is
// written as it is.
func TestSayShowsEveryValue(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	err := say(&b, "%s|%-6s|%v|%q|%d\tend\n", "a\u202eb", "x\u200b", errString("e\x1b[8m\nf"), "q\u2066", 7)
	want := "a\\u202eb|x\\u200b|e\\x1b[8m⏎f|\"q\\u2066\"|7\tend\n"
	if err != nil || b.String() != want {
		t.Errorf("say wrote %q, want %q", b.String(), want)
	}
	if b.Reset(); say(&b, "%-12s|", "ab") != nil || b.String() != "ab          |" {
		t.Errorf("the width is lost: %q", b.String())
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// JSON keeps its values (a reader decodes the same strings) with every
// hidden or acting character escaped, those beyond U+FFFF as a surrogate
// pair.
func TestJSONEscapesWhatATerminalWouldActOn(t *testing.T) {
	t.Parallel()
	v := map[string]string{"name": "a\u202eb\u200b\ufeff\u00ad\u009b\x7f\u2028\U000e0041 日本 🚀 <b>"}
	var b strings.Builder
	if err := writeJSON(&b, v, false); err != nil {
		t.Fatal(err)
	}
	assertShownAsText(t, "writeJSON", b.String())
	if !strings.Contains(b.String(), `\udb40\udc41`) || !strings.Contains(b.String(), "日本 🚀 <b>") {
		t.Errorf("writeJSON = %s", b.String())
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil || back["name"] != v["name"] {
		t.Errorf("decoded %q, %v; want %q", back["name"], err, v["name"])
	}
}

// Every line the command line prints is written through print.go (say,
// writeText, writeJSON): no other file of the command prints with fmt or
// writes to its standard output or error itself, so a command added later
// shows names as the others do.
func TestOnlyPrintGoPrints(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "print.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			recv := exprText(sel.X)
			switch {
			case recv == "fmt" && (strings.HasPrefix(sel.Sel.Name, "Fprint") || strings.HasPrefix(sel.Sel.Name, "Print")),
				recv == "io" && sel.Sel.Name == "WriteString",
				(sel.Sel.Name == "Write" || sel.Sel.Name == "WriteString") &&
					(strings.HasSuffix(recv, "stdout") || strings.HasSuffix(recv, "stderr") || strings.HasPrefix(recv, "os.Std")):
				t.Errorf("%s: %s.%s prints around print.go: use say, writeText or writeJSON", fset.Position(call.Pos()), recv, sel.Sel.Name)
			}
			return true
		})
	}
}

func exprText(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprText(x.X) + "." + x.Sel.Name
	}
	return ""
}
