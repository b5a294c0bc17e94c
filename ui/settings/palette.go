package settings

// What the command palette (ui/palette) needs of the Settings tab: the
// settings' names, and putting the cursor on one.

// settingNames are the settings' labels: their rows show them, and the
// command palette searches them.
var settingNames = [itemCount]string{
	itemGlobal:     "Global instructions",
	itemSubdir:     "Subdirectory context",
	itemModel:      "Default model",
	itemThinking:   "Default thinking",
	itemPermission: "Permission mode",
	itemTTL:        "Runtime idle TTL",
	itemEngine:     "Engine",
	itemPiCap:      "Live pi runtimes",
}

// Names are the settings' names in the tab's order; Focus takes an index
// into them.
func Names() []string { return settingNames[:] }

// Focus puts the cursor on setting i of Names, scrolled into view. Before
// the tab's first load it holds the setting in a placeholder row, which
// View does not draw: a load keeps the cursor on the setting it was on,
// so it lands on the real row.
func (m *Model) Focus(i int) {
	if i < 0 || i >= int(itemCount) {
		return
	}
	it := item(i)
	on := func(l line) bool { return l.item == it && l.rule < 0 }
	if m.lines.Select(on) || m.loaded {
		return
	}
	// The placeholder draws nothing, but the list measures it.
	m.lines.SetItems([]line{{item: it, rule: -1, draw: func(int, bool) string { return "" }}})
	m.lines.First()
}
