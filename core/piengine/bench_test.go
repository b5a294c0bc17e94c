package piengine

import (
	"context"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
)

// One get_state round trip through the fake pi's stdio.
func BenchmarkGetStateRoundTrip(b *testing.B) {
	e, err := Launch(context.Background(), Config{Pi: Pi{Path: fakeBin, Version: "1.6.0"}, Root: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for b.Loop() {
		if _, err := e.Call(ctx, "get_state", nil); err != nil {
			b.Fatal(err)
		}
	}
}

type nopPub struct{ n int }

func (p *nopPub) Publish(events.Event) { p.n++ }

// One text delta as pi writes it: decoded and published.
func BenchmarkDecodeTextDelta(b *testing.B) {
	line := []byte(`{"type":"message_update","usage":{"input":10,"output":3,"cacheRead":0,"cacheWrite":0,"reasoning":0,"totalTokens":13,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}},"assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Hello "}}` + "\n")
	pub := &nopPub{}
	c := &core{pub: pub, partial: map[string]string{}}
	cl := &client{handle: c.handle, maxLine: DefaultMaxLine, signal: make(chan struct{}, 1)}
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		cl.decode(line)
		c.handle(cl.queue[0])
		cl.queue = cl.queue[:0]
	}
	if pub.n == 0 {
		b.Fatal("nothing published")
	}
}
