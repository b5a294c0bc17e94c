package provider

import (
	"testing"

	"github.com/pi-tui/pi-tui/core/pisettings"
)

// Every key variable the catalogue reads is one that bash never gets: the
// two lists live apart (core/pisettings keeps the bash list) and must not
// drift.
func TestCatalogueKeysAreKeptFromBash(t *testing.T) {
	ps, err := builtIns()
	if err != nil {
		t.Fatal(err)
	}
	secret := map[string]bool{}
	for _, n := range pisettings.SecretEnvNames(t.TempDir()) {
		secret[n] = true
	}
	for _, p := range ps {
		for _, n := range append(append([]string(nil), p.env...), p.oauthEnv...) {
			if !secret[n] {
				t.Errorf("%s's key variable %s would reach bash", p.name, n)
			}
		}
	}
}
