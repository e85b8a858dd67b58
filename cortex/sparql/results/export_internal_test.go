package results

// DisplayWidthForTest exposes displayWidth to the black-box tests.
var DisplayWidthForTest = displayWidth
