//go:build !unix

package provider

import "os/exec"

// killGroup leaves the default: the context kills the shell itself.
func killGroup(*exec.Cmd) {}
