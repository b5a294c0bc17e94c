//go:build !unix

package instructions

import "testing"

func runAsNobody(t *testing.T, name string) { t.Skip("permission test needs a non-root user") }
