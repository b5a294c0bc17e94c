package lexers

import (
	"github.com/alecthomas/chroma/v2"
)

// HTML lexer, parsed on first use (pi-tui patch).
var HTML = chroma.LazyLexer(func() chroma.Lexer { return chroma.MustNewXMLLexer(embedded, "embedded/html.xml") })
