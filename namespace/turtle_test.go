package namespace_test

import (
	"fmt"
	"strings"
	"unicode"
)

// This file holds a small Turtle reader for the subset of Turtle that
// fixtures/vocab.ttl uses (@prefix, comments, IRIREFs, prefixed names, 'a',
// short string literals, ';' and ','). It keeps the vocabulary test
// independent of the Go code that writes the file; it is not a general
// Turtle parser.

type ttlTriple struct{ s, p, o string } // IRIs expanded; literals as "lexical"

func parseTurtleSubset(src string) ([]ttlTriple, error) {
	toks, err := ttlTokens(src)
	if err != nil {
		return nil, err
	}
	prefixes := map[string]string{}
	var out []ttlTriple
	i := 0
	next := func() (string, error) {
		if i >= len(toks) {
			return "", fmt.Errorf("unexpected end of input")
		}
		i++
		return toks[i-1], nil
	}
	term := func(tok string) (string, error) {
		switch {
		case strings.HasPrefix(tok, "<"):
			return tok[1 : len(tok)-1], nil
		case strings.HasPrefix(tok, `"`):
			return tok, nil
		case tok == "a":
			return "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", nil
		}
		pfx, local, ok := strings.Cut(tok, ":")
		if !ok {
			return "", fmt.Errorf("bad term %q", tok)
		}
		ns, ok := prefixes[pfx]
		if !ok {
			return "", fmt.Errorf("undeclared prefix %q", pfx)
		}
		return ns + local, nil
	}
	for i < len(toks) {
		tok, _ := next()
		if tok == "@prefix" {
			name, err := next()
			if err != nil {
				return nil, err
			}
			iri, err := next()
			if err != nil {
				return nil, err
			}
			dot, err := next()
			if err != nil || dot != "." || !strings.HasSuffix(name, ":") || !strings.HasPrefix(iri, "<") {
				return nil, fmt.Errorf("bad @prefix near %q %q", name, iri)
			}
			prefixes[strings.TrimSuffix(name, ":")] = iri[1 : len(iri)-1]
			continue
		}
		s, err := term(tok)
		if err != nil {
			return nil, err
		}
		for { // predicate-object lists
			ptok, err := next()
			if err != nil {
				return nil, err
			}
			p, err := term(ptok)
			if err != nil {
				return nil, err
			}
			for { // object lists
				otok, err := next()
				if err != nil {
					return nil, err
				}
				o, err := term(otok)
				if err != nil {
					return nil, err
				}
				out = append(out, ttlTriple{s, p, o})
				sep, err := next()
				if err != nil {
					return nil, err
				}
				if sep == "," {
					continue
				}
				if sep == ";" {
					break
				}
				if sep == "." {
					goto statementDone
				}
				return nil, fmt.Errorf("unexpected %q after object", sep)
			}
		}
	statementDone:
	}
	return out, nil
}

func ttlTokens(src string) ([]string, error) {
	var toks []string
	rs := []rune(src)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '#':
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
		case r == '<':
			j := i + 1
			for j < len(rs) && rs[j] != '>' {
				if rs[j] <= ' ' || strings.ContainsRune("<\"{}|^`\\", rs[j]) {
					return nil, fmt.Errorf("bad character %q in IRI", rs[j])
				}
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unterminated IRI")
			}
			toks = append(toks, string(rs[i:j+1]))
			i = j + 1
		case r == '"':
			var b strings.Builder
			b.WriteRune('"')
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\n' {
					return nil, fmt.Errorf("newline in string")
				}
				if rs[j] == '\\' {
					j++
					if j == len(rs) {
						return nil, fmt.Errorf("unterminated escape")
					}
					switch rs[j] {
					case 'n':
						b.WriteRune('\n')
					case 't':
						b.WriteRune('\t')
					case 'r':
						b.WriteRune('\r')
					case '"', '\\':
						b.WriteRune(rs[j])
					default:
						return nil, fmt.Errorf("unsupported escape \\%c", rs[j])
					}
					continue
				}
				b.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unterminated string")
			}
			b.WriteRune('"')
			toks = append(toks, b.String())
			i = j + 1
		case r == ';' || r == ',':
			toks = append(toks, string(r))
			i++
		case r == '.':
			toks = append(toks, ".")
			i++
		default:
			j := i
			for j < len(rs) && !unicode.IsSpace(rs[j]) && !strings.ContainsRune(";,\"<#", rs[j]) {
				if rs[j] == '.' && (j+1 == len(rs) || unicode.IsSpace(rs[j+1])) {
					break // statement terminator, not part of the name
				}
				j++
			}
			toks = append(toks, string(rs[i:j]))
			i = j
		}
	}
	return toks, nil
}
