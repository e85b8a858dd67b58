package server

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// negotiate picks the media type to answer with from offers (the server's
// formats, in its order of preference) by the request's Accept header
// (RFC 9110, 12.5.1): the offer with the highest q-value, where a type's
// q-value is that of the most specific range matching it (type/subtype,
// then type/*, then */*); ties go to the server's order. No Accept header
// is "*/*". A range that does not parse, or whose q is not a number from
// 0 to 1, matches nothing. It fails with ErrNotAcceptable, naming the
// ranges it could not read, when every offer has q=0.
func negotiate(accept string, offers []string) (string, error) {
	if strings.TrimSpace(accept) == "" {
		return offers[0], nil
	}
	type rng struct {
		typ, sub string
		q        float64
	}
	var (
		ranges     []rng
		unreadable []string // ranges that match nothing, named in the error
	)
	for _, part := range strings.Split(accept, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		mt, params, err := mime.ParseMediaType(part)
		typ, sub, ok := strings.Cut(mt, "/")
		if err != nil || !ok {
			unreadable = append(unreadable, strconv.Quote(part))
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
				q = f
			} else {
				unreadable = append(unreadable, strconv.Quote(part)+" (q is a number from 0 to 1)")
				continue
			}
		}
		ranges = append(ranges, rng{typ, sub, q})
	}
	best, bestQ := "", 0.0
	for _, offer := range offers {
		typ, sub, _ := strings.Cut(offer, "/")
		q, spec := 0.0, -1
		for _, r := range ranges {
			s := -1
			switch {
			case r.typ == typ && r.sub == sub:
				s = 2
			case r.typ == typ && r.sub == "*":
				s = 1
			case r.typ == "*" && r.sub == "*":
				s = 0
			}
			if s > spec {
				q, spec = r.q, s
			}
		}
		if q > bestQ {
			best, bestQ = offer, q
		}
	}
	if best == "" {
		ignored := ""
		if len(unreadable) > 0 {
			ignored = "; unreadable, so ignored: " + strings.Join(unreadable, ", ")
		}
		return "", fmt.Errorf("%w: no format of %q is available here (available: %s%s)", ErrNotAcceptable, accept, strings.Join(offers, ", "), ignored)
	}
	return best, nil
}

// acceptOf returns the Accept header of r: its lines joined by commas, as
// one list (RFC 9110, 5.3: a list field may be sent on several lines, and
// means what their values joined by commas do). Header.Get would read the
// first line only, and take the preference of that line for the client's.
func acceptOf(r *http.Request) string {
	return strings.Join(r.Header.Values("Accept"), ", ")
}

// bodyContentType returns the Content-Type header of r ("" if none), or
// an error matching ErrUnsupportedMediaType if r has several that differ:
// the field has one value (RFC 9110, 8.3), so which one the body is in
// would be a guess, and a proxy in front may have guessed the other.
func bodyContentType(r *http.Request) (string, error) {
	vs := r.Header.Values("Content-Type")
	if len(vs) == 0 {
		return "", nil
	}
	for _, v := range vs[1:] {
		if strings.TrimSpace(v) != strings.TrimSpace(vs[0]) {
			return "", fmt.Errorf("%w: several Content-Type headers (%s): send one", ErrUnsupportedMediaType, strings.Join(vs, "; and "))
		}
	}
	return vs[0], nil
}

// bodyMediaType returns the media type of ct, the Content-Type of a
// request body: lower-case, without its parameters. Every format the
// server reads (SPARQL queries, forms, Turtle, N-Triples, N-Quads) is
// UTF-8, so a body declared in another charset is refused rather than
// read as UTF-8 (US-ASCII, a subset of UTF-8, is read); so is a
// Content-Type that does not parse. Both errors match
// ErrUnsupportedMediaType (415).
func bodyMediaType(ct string) (string, error) {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", fmt.Errorf("%w: Content-Type %q is malformed: %v", ErrUnsupportedMediaType, ct, err)
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "us-ascii") {
		return "", fmt.Errorf("%w: Content-Type %q: charset %q: send the body in UTF-8 (charset=utf-8, or none)", ErrUnsupportedMediaType, ct, cs)
	}
	return mt, nil
}
