package engine

import (
	"slices"
	"testing"
)

// The registry keeps the engines in the order the root registered them
// (auto's preference), a name once (the first), and finds an engine by
// name or by what it can do.
func TestRegistry(t *testing.T) {
	pi := Descriptor{Name: "pi", Caps: Capabilities{Process: true, Logins: true}}
	builtin := Descriptor{Name: "builtin", Title: "built-in"}
	r := NewRegistry(pi, builtin, Descriptor{Name: "pi", Title: "again"})
	if got := r.Names(); !slices.Equal(got, []string{"pi", "builtin"}) {
		t.Errorf("Names = %v, want pi then builtin, once each", got)
	}
	if d, ok := r.Get("builtin"); !ok || d.Title != "built-in" {
		t.Errorf("Get(builtin) = %+v, %v", d, ok)
	}
	if d, ok := r.Get("pi"); !ok || d.Title == "again" {
		t.Errorf("a second pi replaced the first: %+v", d)
	}
	if _, ok := r.Get("node"); ok {
		t.Error("Get found an engine nobody registered")
	}
	if d, ok := r.First(func(c Capabilities) bool { return c.Logins }); !ok || d.Name != "pi" {
		t.Errorf("First(Logins) = %+v, %v", d, ok)
	}
	if _, ok := r.First(func(c Capabilities) bool { return c.Commands }); ok {
		t.Error("First found a capability no engine has")
	}
	all := r.All()
	all[0].Name = "changed"
	if r.Names()[0] != "pi" {
		t.Error("All hands out the registry's own slice")
	}
}
