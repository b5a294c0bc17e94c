//go:build race

package main

// raceBuild: the race detector instruments allocations, so byte budgets
// measured without it do not hold.
const raceBuild = true
