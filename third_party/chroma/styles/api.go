package styles

import (
	"embed"
	"io/fs"
	"sort"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed *.xml
var embedded embed.FS

// Registry of Styles registered with Register. The embedded styles are
// not in it: Get and Names parse them on first use, not at package
// initialisation, which cost every process several milliseconds
// (pi-tui patch). A style registered under an embedded style's name
// wins, as it did when Registry held the embedded styles.
var Registry = map[string]*chroma.Style{}

// builtin parses the embedded styles once; the map is read-only after.
var builtin = sync.OnceValue(func() map[string]*chroma.Style {
	registry := map[string]*chroma.Style{}
	files, err := fs.ReadDir(embedded, ".")
	if err != nil {
		panic(err)
	}
	for _, file := range files {
		if file.IsDir() {
			continue
		}
		style := mustLoad(file.Name())
		registry[style.Name] = style
	}
	return registry
})

func mustLoad(name string) *chroma.Style {
	r, err := embedded.Open(name)
	if err != nil {
		panic(err)
	}
	defer r.Close()
	style, err := chroma.NewXMLStyle(r)
	if err != nil {
		panic(err)
	}
	return style
}

// Fallback style. Reassign to change the default fallback style.
var Fallback = mustLoad("swapoff.xml")

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	Registry[style.Name] = style
	return style
}

// Names of all available styles.
func Names() []string {
	out := []string{}
	for name := range builtin() {
		if _, ok := Registry[name]; !ok {
			out = append(out, name)
		}
	}
	for name := range Registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Get named style, or Fallback.
func Get(name string) *chroma.Style {
	if style, ok := Registry[name]; ok {
		return style
	}
	if style, ok := builtin()[name]; ok {
		return style
	}
	return Fallback
}
