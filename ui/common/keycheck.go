package common

import (
	"reflect"
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// Bindings returns the key bindings a screen's key table holds: its
// key.Binding fields, and those of nested structs, in field order. Tables
// are data, so a test can hold a screen's help against its table.
func Bindings(table any) []key.Binding {
	var out []key.Binding
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return
		}
		if b, ok := v.Interface().(key.Binding); ok {
			if len(b.Keys()) > 0 {
				out = append(out, b)
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() || v.Field(i).CanInterface() {
				walk(v.Field(i))
			}
		}
	}
	walk(reflect.ValueOf(table))
	return out
}

// KeyCoverage compares a screen's help (what it shows) with its key table
// (what it handles): notShown names bindings of the table that the help
// leaves out, notInTable bindings the help shows that the table does not
// hold. Bindings are compared by their keys. A binding without help text
// is the partner of one that has it (↓ beside "↑/↓ move") and need not be
// shown on its own.
func KeyCoverage(table any, shown [][]key.Binding) (notShown, notInTable []string) {
	name := func(b key.Binding) string { return strings.Join(b.Keys(), "/") }
	inHelp := map[string]bool{}
	for _, col := range shown {
		for _, b := range col {
			inHelp[name(b)] = true
		}
	}
	inTable := map[string]bool{}
	for _, b := range Bindings(table) {
		inTable[name(b)] = true
		if !inHelp[name(b)] && b.Help().Key != "" {
			notShown = append(notShown, name(b))
		}
	}
	for _, col := range shown {
		for _, b := range col {
			if !inTable[name(b)] {
				notInTable = append(notInTable, name(b))
			}
		}
	}
	return notShown, notInTable
}

// Hints draws a hint line from bindings ("tab complete · esc cancel"), so
// what a screen says under itself is its key table, not a copy of it.
func Hints(bs ...key.Binding) string {
	return strings.Join(HintList(bs...), " · ")
}
