package ui

import (
	"strings"
	"testing"
)

// A call that got no answer at all (the model's server refuses the
// connection) is an error that says what failed, live and reopened; it is
// never labelled a partial answer.
func TestRefusedConnectionIsAnErrorNotAPartialAnswer(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(itoa(size.w)+"x"+itoa(size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, echoModel, true)
			host := strings.TrimPrefix(r.fake.URL, "http://")
			r.fake.Close() // nothing listens there any more
			r.chat()
			r.say("hello")
			r.waitFor("refused")
			r.sessions("enter open")
			r.keys("enter")
			r.waitFor("hello")
			view := r.final()
			flat := strings.Join(strings.Fields(view), " ")
			if !strings.Contains(flat, "connection to "+host+" refused") {
				t.Errorf("the error does not say what failed (connection to %s refused):\n%s", host, view)
			}
			if strings.Contains(view, "partial") || strings.Contains(view, "cut off") {
				t.Errorf("a refused connection is labelled a partial answer:\n%s", view)
			}
		})
	}
}
