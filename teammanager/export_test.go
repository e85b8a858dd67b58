package teammanager

// SetMergeHook sets a function that every merge calls after it has read the
// store and computed its writes, before it writes them (nil: none). Tests
// set it before starting merges and reset it after they end.
func SetMergeHook(fn func()) { mergeHook = fn }

// SetFindingScanMin sets the least number of candidate findings for which
// Conflicts reads the member graphs whole, and returns the previous value.
func SetFindingScanMin(n int) int {
	old := findingScanMin
	findingScanMin = n
	return old
}
