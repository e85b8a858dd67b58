package lex

import "errors"

// Errors returned by UCHAR. The returned errors wrap these sentinels; their
// messages are the ones readers show.
var (
	// ErrIncompleteEscape: the input ends inside the escape.
	ErrIncompleteEscape = errors.New("incomplete escape sequence")
	// ErrBadEscape: '\' is followed by a character that starts no escape.
	ErrBadEscape = errors.New("bad escape sequence")
	// ErrBadHexDigit: a UCHAR has a character other than HEX among its digits.
	ErrBadHexDigit = errors.New("bad hex digit")
	// ErrNotScalar: a UCHAR names a surrogate or a value above U+10FFFF.
	ErrNotScalar = errors.New("escape sequence is not a Unicode scalar value")
)
