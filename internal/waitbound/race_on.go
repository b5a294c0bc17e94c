//go:build race

package waitbound

const raceEnabled = true
