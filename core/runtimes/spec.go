package runtimes

import (
	"hash/maphash"
	"strconv"
	"strings"

	"github.com/pi-tui/pi-tui/core/registry"
)

// Spec is a runtime's launch metadata: what it was launched with. Two runtimes with equal
// specs behave the same, so an idle one can be reused.
type Spec struct {
	SessionID string
	// Root is where the session works: the project root, or the session's
	// own worktree (ADR 0029). ProjectRoot is the project's root, which
	// keys its memory and trust either way.
	Root        string
	ProjectRoot string
	// PrimaryName is the primary root's name and Folders the project's
	// other folders, in order, with their trust (ADR 0085): the file
	// tools reach them too (folders.go).
	PrimaryName string
	Folders     []registry.Folder
	Model       string // PROVIDER/ID
	Thinking    string // the thinking level the model's calls use
	KeyTag      string // a digest of where the model's key comes from (never the key)
	Tools       []string
	Permission  string
	Trusted     bool
	Sections    Sections
	// Settings are the values of pi's settings.json the runtime runs with
	// (compaction, retry, shell), written out so a change is a new spec.
	Settings string
	// Engine runs the runtime ("pi" or "builtin") and EngineVersion is
	// its version (pi's; "" for the built-in engine, which is this
	// binary): a switch or an upgraded pi is a new spec.
	Engine        string
	EngineVersion string
}

// Fingerprint hashes everything in the spec. Fingerprints are compared
// only within one Manager (runtimes do not outlive the process), so a fast
// seeded hash is enough; no cryptographic strength is needed.
func (s Spec) Fingerprint(seed maphash.Seed) string {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, part := range []string{s.SessionID, s.Root, s.ProjectRoot, s.PrimaryName, foldersText(s.Folders), s.Model, s.Thinking, s.KeyTag, strings.Join(s.Tools, ","), s.Permission,
		boolText(s.Trusted), s.Sections.Base, s.Sections.Instructions, s.Sections.Memory, s.Sections.Skills, s.Sections.Folders, s.Sections.Environment,
		s.Settings, s.Engine, s.EngineVersion} {
		h.WriteString(part)
		h.WriteByte(0)
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

func boolText(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// Retirement reasons.
const (
	ReasonNew                 = "new"
	ReasonInstructionsChanged = "instructions-changed"
	ReasonMemoryChanged       = "memory-changed"
	ReasonModelChanged        = "model-changed"
	ReasonThinkingChanged     = "thinking-changed"
	ReasonKeyChanged          = "key-changed"
	ReasonPermissionChanged   = "permission-changed"
	ReasonTrustChanged        = "trust-changed"
	ReasonToolsChanged        = "tools-changed"
	ReasonRootChanged         = "root-changed"
	ReasonSkillsChanged       = "skills-changed"
	ReasonSettingsChanged     = "settings-changed"
	ReasonEnvironmentChanged  = "environment-changed"
	ReasonIdleTimeout         = "idle-timeout"
	ReasonSessionChanged      = "session-changed"
	ReasonShutdown            = "shutdown"
	// The engine setting moved, or pi was upgraded.
	ReasonEngineChanged = "engine-changed"
	// The runtime's pi exited (crashed or was killed).
	ReasonCrashed = "crashed"
	// An idle pi runtime made room for a new one (the maxPiRuntimes cap).
	ReasonCap = "cap"
	// The session's leaf moved where the engine cannot follow (pi's RPC
	// has no tree navigation): the next prompt launches on the new leaf.
	ReasonBranched = "branched"
)

// why names the first difference between two specs.
func why(old, cur Spec) string {
	switch {
	case old.Engine != cur.Engine || old.EngineVersion != cur.EngineVersion:
		return ReasonEngineChanged
	case old.Root != cur.Root:
		return ReasonRootChanged
	case old.Model != cur.Model:
		return ReasonModelChanged
	case old.Thinking != cur.Thinking:
		return ReasonThinkingChanged
	case old.KeyTag != cur.KeyTag:
		return ReasonKeyChanged
	case old.Sections.Instructions != cur.Sections.Instructions:
		return ReasonInstructionsChanged
	case old.Sections.Memory != cur.Sections.Memory:
		return ReasonMemoryChanged
	case old.Permission != cur.Permission:
		return ReasonPermissionChanged
	case old.Trusted != cur.Trusted:
		return ReasonTrustChanged
	case old.PrimaryName != cur.PrimaryName || foldersText(old.Folders) != foldersText(cur.Folders):
		return ReasonFoldersChanged
	case strings.Join(old.Tools, ",") != strings.Join(cur.Tools, ","):
		return ReasonToolsChanged
	case old.Sections.Skills != cur.Sections.Skills:
		return ReasonSkillsChanged
	case old.Settings != cur.Settings:
		return ReasonSettingsChanged
	}
	return ReasonEnvironmentChanged
}
