// Package toolpolicy holds the rules a tool call is judged by, the same
// whichever engine runs it: the built-in engine (core/agent) and the pi
// bridge's host (core/bridge) both decide here which tools exist and what
// they take, which calls need the user's approval (and which files run on
// use), what plan mode lets run, which calls take a checkpoint, what
// instructions a file tool's result delivers, and how a remember call
// writes the project memory. It sits below both engines, so neither
// imports the other for them (docs/adr/0093-tool-policy-package.md).
package toolpolicy
