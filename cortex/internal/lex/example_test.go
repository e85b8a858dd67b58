package lex_test

import (
	"fmt"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
)

// A byte that is not valid UTF-8 is never a name character; an encoded
// U+FFFD is one.
func ExampleDecodeRune() {
	for _, s := range []string{"\uFFFD", "\xff"} {
		r, _ := utf8.DecodeRuneInString(s)
		l, _ := lex.DecodeRuneInString(s)
		fmt.Printf("%q: utf8 %U %v, lex %v\n", s, r, lex.IsPNCharsBase(r), lex.IsPNCharsBase(l))
	}
	// Output:
	// "�": utf8 U+FFFD true, lex true
	// "\xff": utf8 U+FFFD true, lex false
}

func ExampleUCHAR() {
	r, n, err := lex.UCHAR(`\u00E9t\u00E9`)
	fmt.Printf("%c %d %v\n", r, n, err)
	_, _, err = lex.UCHAR(`\uD800`)
	fmt.Println(err)
	// Output:
	// é 6 <nil>
	// escape sequence is not a Unicode scalar value
}
