package chroma

import "sync"

// LazyLexer is a Lexer that build makes on first use (pi-tui patch: the
// lexers package defined some lexers in Go from embedded XML, parsed at
// package initialisation, which every pi-tui process paid for at start).
func LazyLexer(build func() Lexer) Lexer {
	return &lazyLexer{get: sync.OnceValue(build)}
}

type lazyLexer struct{ get func() Lexer }

func (l *lazyLexer) Config() *Config { return l.get().Config() }

func (l *lazyLexer) Tokenise(options *TokeniseOptions, text string) (Iterator, error) {
	return l.get().Tokenise(options, text)
}

func (l *lazyLexer) SetRegistry(registry *LexerRegistry) Lexer {
	l.get().SetRegistry(registry)
	return l
}

func (l *lazyLexer) SetAnalyser(analyser func(text string) float32) Lexer {
	l.get().SetAnalyser(analyser)
	return l
}

func (l *lazyLexer) AnalyseText(text string) float32 { return l.get().AnalyseText(text) }
