//go:build !race

package rdfio_test

// raceOn says that the race detector is on.
const raceOn = false
