package lineread

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

func TestNext(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\nexact10ab\r\nlast"
	r := bufio.NewReaderSize(strings.NewReader(in), 16)
	type got struct {
		line    string
		tooLong bool
		eof     bool
	}
	var all []got
	for {
		line, long, err := Next(r, 10)
		all = append(all, got{string(line), long, err == io.EOF})
		if err != nil {
			break
		}
	}
	want := []got{{"short", false, false}, {"", true, false}, {"exact10ab\r", false, false}, {"last", false, true}}
	if len(all) != len(want) {
		t.Fatalf("lines = %+v", all)
	}
	for i := range want {
		if all[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, all[i], want[i])
		}
	}
}
