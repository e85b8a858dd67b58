//go:build race

package rdfio_test

// raceOn says that the race detector is on: it makes a loop over each byte
// of a large input some ten times slower.
const raceOn = true
