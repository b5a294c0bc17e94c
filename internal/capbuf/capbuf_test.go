package capbuf

import "testing"

func TestKeepsTheFirstBytesAndSaysMoreCame(t *testing.T) {
	b := New(5)
	for _, s := range []string{"abc", "defg", "hij"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v: a write must never fail or fall short", s, n, err)
		}
	}
	if got := string(b.Bytes()); got != "abcde" || !b.Over() {
		t.Fatalf("kept %q, over %v; want \"abcde\", true", got, b.Over())
	}
	small := New(10)
	small.Write([]byte("abc"))
	if small.Over() || string(small.Bytes()) != "abc" {
		t.Fatalf("a write within the bound: kept %q, over %v", small.Bytes(), small.Over())
	}
}
