package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/internal/fsutil"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// maxMemoryInput bounds what `memory set` reads: far above anything that
// could fit the 32 KiB limit, far below anything that could hurt.
const maxMemoryInput = 4 << 20

func (a *app) memory(args []string) error {
	if len(args) == 0 {
		return usagef("memory: name a subcommand: show, set")
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "show":
		return a.memoryShow(args)
	case "set":
		return a.memorySet(args)
	case "agent-writes":
		return a.memoryAgentWrites(args)
	case "-h", "--help", "help":
		return a.helpFor("pi-tui memory")
	}
	return usagef("memory: unknown subcommand %q", sub)
}

func (a *app) memoryShow(args []string) error {
	fs := a.flags("memory show")
	asJSON := fs.Bool("json", false, "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("memory show")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("memory show needs exactly one PROJECT")
	}
	_, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	svc, err := a.memoryService()
	if err != nil {
		return err
	}
	m, err := svc.Load(a.ctx, p.Root)
	if err != nil {
		return err
	}
	if *asJSON {
		data, err := memory.EncodeIndent(memory.Value{Entries: m.Entries, UpdatedAt: m.UpdatedAt})
		if err != nil {
			return err
		}
		return writeJSONText(a.stdout, append(data, '\n'))
	}
	if m.Content == "" {
		say(a.stderr, "pi-tui: %s has no memory; add some with: pi-tui memory set %s --file F\n", p.Name, p.ID)
		return nil
	}
	// Exactly what an agent is given; on a terminal, its control
	// characters are shown as text rather than acted on.
	content := m.Content
	if isTerminal(a.stdout) {
		content = safetext.Visible(content)
	}
	return writeText(a.stdout, content+"\n")
}

func (a *app) memorySet(args []string) error {
	fs := a.flags("memory set")
	file := fs.String("file", "", "")
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return a.helpFor("memory set")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("memory set needs exactly one PROJECT")
	}
	if *file == "" {
		return usagef("memory set needs --file F (- for standard input)")
	}
	// The project first: naming one that does not exist is the mistake
	// to hear about, before anything about the input (which, for "-",
	// would be read in vain).
	_, p, err := a.find(pos[0])
	if err != nil {
		return err
	}
	data, err := a.readInput(*file)
	if err != nil {
		return err
	}
	entries, err := memory.ParseInput(data)
	if err != nil {
		return fmt.Errorf("%s: %w", *file, err)
	}
	svc, err := a.memoryService()
	if err != nil {
		return err
	}
	if !utf8.Valid(data) {
		say(a.stderr, "pi-tui: warning: %s is not valid UTF-8; invalid bytes were replaced with U+FFFD\n", *file)
	}
	// `set` replaces the memory whatever it held, so a save that lost a
	// race to another writer simply loads again and retries.
	var m memory.Memory
	for attempt := 1; ; attempt++ {
		base, err := svc.Load(a.ctx, p.Root)
		var unreadable *memory.UnreadableError
		if errors.As(err, &unreadable) {
			say(a.stderr, "pi-tui: warning: %v\n", err)
		} else if err != nil {
			return err
		}
		m, err = svc.Save(a.ctx, base, entries)
		if errors.Is(err, memory.ErrConflict) && attempt < 10 {
			continue
		}
		if errors.Is(err, memory.ErrConflict) {
			return errors.New("other processes kept changing this memory while it was being saved; nothing was saved: run the command again")
		}
		if err != nil {
			return err
		}
		break
	}
	say(a.stdout, "saved memory for %s: %s, %s of %s bytes\n", p.Name, plural(len(m.Entries), "entry", "entries"),
		groupDigits(m.Bytes()), groupDigits(memory.LimitBytes))
	return nil
}

// readInput reads a user's input file, or standard input for "-", refusing
// directories, devices and anything over maxMemoryInput.
func (a *app) readInput(name string) ([]byte, error) {
	var r io.Reader = a.stdin
	if name != "-" {
		fi, err := os.Stat(name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, fsutil.PlainError(err))
		}
		if fi.IsDir() {
			return nil, fmt.Errorf("read %s: it is a directory, not a file", name)
		}
		if m := fi.Mode(); m&(os.ModeDevice|os.ModeSocket|os.ModeCharDevice) != 0 {
			return nil, fmt.Errorf("read %s: it is a device or socket, not a file", name)
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, fsutil.PlainError(err))
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxMemoryInput+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, fsutil.PlainError(err))
	}
	if len(data) > maxMemoryInput {
		return nil, fmt.Errorf("read %s: the file is over %d MiB; memory holds at most %s bytes", name, maxMemoryInput>>20, groupDigits(memory.LimitBytes))
	}
	return data, nil
}

func groupDigits(n int) string { return memory.GroupDigits(n) }
