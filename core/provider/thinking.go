package provider

import (
	"fmt"
	"strconv"
	"strings"
)

// Thinking levels, in pi's order. DefaultThinking applies when neither the
// session nor settings.json's defaultThinkingLevel says otherwise.
const (
	ThinkingOff     = "off"
	ThinkingMinimal = "minimal"
	ThinkingLow     = "low"
	ThinkingMedium  = "medium"
	ThinkingHigh    = "high"
	ThinkingXHigh   = "xhigh"
	DefaultThinking = ThinkingMedium
)

// thinkingLevels lists every level, lowest first.
var thinkingLevels = [...]string{ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh, ThinkingXHigh}

// ThinkingLevelNames lists every level, lowest first (a fresh slice).
func ThinkingLevelNames() []string { return append([]string(nil), thinkingLevels[:]...) }

func levelIndex(l string) int {
	for i, x := range thinkingLevels {
		if x == l {
			return i
		}
	}
	return -1
}

// ParseThinkingLevel checks a level name (any case). pi 0.85's "max" is
// read as xhigh, the highest level pi-tui knows.
func ParseThinkingLevel(s string) (string, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	if l == "max" {
		return ThinkingXHigh, nil
	}
	if levelIndex(l) < 0 {
		return "", fmt.Errorf("unknown thinking level %q: use off, minimal, low, medium, high or xhigh", s)
	}
	return l, nil
}

// SplitThinking splits "PROVIDER/ID:LEVEL" into the model and the level,
// as pi's --model does: the part after the last colon is a level only when
// it names one, so "ollama/qwen3:8b" keeps its colon. ":LEVEL" alone is
// the default model at that level.
func SplitThinking(spec string) (model, level string) {
	spec = strings.TrimSpace(spec)
	i := strings.LastIndexByte(spec, ':')
	if i < 0 {
		return spec, ""
	}
	l, err := ParseThinkingLevel(spec[i+1:])
	if err != nil {
		return spec, ""
	}
	return spec[:i], l
}

// WithThinking writes a model spec with a level ("" keeps the spec as it
// is); an empty model stands for the default model.
func WithThinking(model, level string) string {
	if level == "" {
		return model
	}
	return model + ":" + level
}

// ThinkingLevels lists the levels a model supports, lowest first: only off
// for a model that does not reason; off to high for one that does, plus
// xhigh when its thinkingLevelMap names it, less every level the map sets
// to null.
func (m ModelInfo) ThinkingLevels() []string {
	if !m.Reasoning {
		return []string{ThinkingOff}
	}
	var out []string
	for _, l := range thinkingLevels {
		v, named := m.ThinkingLevelMap[l]
		switch {
		case named && v == nil:
			continue // the model does not support it
		case l == ThinkingXHigh && !named:
			continue // only models that say so go that high
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return []string{ThinkingOff}
	}
	return out
}

// ClampThinking picks the supported level nearest to want, as pi does:
// the first supported level at or above it, else the highest below it.
func ClampThinking(levels []string, want string) string {
	i := levelIndex(want)
	if i < 0 {
		i = levelIndex(DefaultThinking)
	}
	has := map[string]bool{}
	for _, l := range levels {
		has[l] = true
	}
	for j := i; j < len(thinkingLevels); j++ {
		if has[thinkingLevels[j]] {
			return thinkingLevels[j]
		}
	}
	for j := i - 1; j >= 0; j-- {
		if has[thinkingLevels[j]] {
			return thinkingLevels[j]
		}
	}
	return ThinkingOff
}

// NextThinking is the level after cur in levels, wrapping around (what
// shift+tab does).
func NextThinking(levels []string, cur string) string {
	if len(levels) == 0 {
		return ThinkingOff
	}
	cur = ClampThinking(levels, cur)
	for i, l := range levels {
		if l == cur {
			return levels[(i+1)%len(levels)]
		}
	}
	return levels[0]
}

// mapped returns the model's own value for a level: ok is false when its
// thinkingLevelMap does not name the level (or names it null).
func (m ModelInfo) mapped(level string) (string, bool) {
	v, ok := m.ThinkingLevelMap[level]
	if !ok || v == nil {
		return "", false
	}
	return *v, true
}

// anthropicBudget is the thinking budget of one of pi's levels for models
// that take budget_tokens (0 for a level without one).
func anthropicBudget(level string) int {
	switch level {
	case ThinkingMinimal:
		return 1024
	case ThinkingLow:
		return 2048
	case ThinkingMedium:
		return 8192
	case ThinkingHigh:
		return 16384
	case ThinkingXHigh:
		return 32768
	}
	return 0
}

// minThinkingBudget is the smallest budget Anthropic accepts.
const minThinkingBudget = 1024

// anthropicAdaptive reports whether a Claude model takes adaptive thinking
// with an effort (Opus and Sonnet 4.6 and everything after) rather than a
// budget, for models whose entry does not say.
func anthropicAdaptive(id string) bool {
	id = strings.ToLower(id)
	for _, s := range []string{"opus-4-6", "opus-4.6", "sonnet-4-6", "sonnet-4.6", "opus-4-7", "opus-4.7", "opus-4-8", "opus-4.8",
		"opus-5", "sonnet-5", "haiku-5", "fable", "mythos"} {
		if strings.Contains(id, s) {
			return true
		}
	}
	return false
}

// anthropicEffort is the effort for a level on adaptive models.
func anthropicEffort(m ModelInfo, level string) string {
	if v, ok := m.mapped(level); ok {
		return v
	}
	switch level {
	case ThinkingMinimal, ThinkingLow:
		return "low"
	case ThinkingMedium:
		return "medium"
	case ThinkingXHigh:
		return "xhigh"
	}
	return "high"
}

// budgetFor is the budget_tokens for a level on budget models: the
// model's map may give a number.
func budgetFor(m ModelInfo, level string) int {
	if v, ok := m.mapped(level); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n
		}
	}
	return anthropicBudget(level)
}

// geminiThinking is the thinkingConfig for a level: a budget (thinkingBudget)
// or a named level (thinkingLevel). ok is false when nothing is sent.
func geminiThinking(m ModelInfo, level string) (budget int, named string, ok bool) {
	if v, has := m.mapped(level); has {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n, "", true
		}
		return 0, strings.ToUpper(strings.TrimSpace(v)), true
	}
	if level == ThinkingOff {
		return 0, "", false // the model's own default
	}
	id := strings.ToLower(m.ID)
	switch {
	case strings.Contains(id, "gemini-3"):
		if level == ThinkingXHigh {
			level = ThinkingHigh
		}
		return 0, strings.ToUpper(level), true
	case strings.Contains(id, "2.5-pro"):
		return map[string]int{ThinkingMinimal: 128, ThinkingLow: 2048, ThinkingMedium: 8192, ThinkingHigh: 32768, ThinkingXHigh: 32768}[level], "", true
	case strings.Contains(id, "2.5-flash"):
		return map[string]int{ThinkingMinimal: 512, ThinkingLow: 2048, ThinkingMedium: 8192, ThinkingHigh: 24576, ThinkingXHigh: 24576}[level], "", true
	}
	return -1, "", true // dynamic: the model decides
}
