package sessions

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/provider"
)

// Deleting a session tells the host core, with the session's full id
// (the user may have named a prefix) and once its file is gone, so what
// the host keeps of it elsewhere (its checkpoints) goes with it. A
// failure there is said, the file being gone all the same; a session
// that cannot be deleted (it has a worktree of its own) is not reported.
func TestDeleteTellsTheHost(t *testing.T) {
	t.Parallel()
	e := setup(t, t.TempDir())
	ctx := context.Background()
	var ids []string
	fileOf := map[string]string{}
	for _, w := range []string{"one", "two"} {
		s, _ := e.m.Create(ctx, "p1", "")
		mustAppend(t, s, TypeUser, msg(provider.RoleUser, text(w)))
		s.Close()
		ids, fileOf[s.ID()] = append(ids, s.ID()), s.File()
	}
	var told []string
	fileGone := map[string]bool{}
	fail := errors.New("its checkpoints were not removed: disk full")
	e.m.cfg.Deleted = func(id string) error {
		told = append(told, id)
		_, err := os.Stat(fileOf[id])
		fileGone[id] = os.IsNotExist(err)
		if len(told) == 2 {
			return fail
		}
		return nil
	}
	if _, err := e.m.List(ctx, "p1"); err != nil { // a prefix names a listed session
		t.Fatal(err)
	}
	if err := e.m.Delete(ctx, ids[0][:len(ids[0])-2]); err != nil {
		t.Fatal(err)
	}
	err := e.m.Delete(ctx, ids[1])
	if !errors.Is(err, fail) || !strings.Contains(err.Error(), "session "+ids[1]+" was deleted, but its checkpoints were not removed") {
		t.Errorf("a failed removal = %v", err)
	}
	if len(told) != 2 || told[0] != ids[0] || told[1] != ids[1] {
		t.Errorf("told %q, want the full ids %q", told, ids)
	}
	for _, id := range ids {
		if !fileGone[id] {
			t.Errorf("the host was told of session %s before its file went", id)
		}
	}
}
