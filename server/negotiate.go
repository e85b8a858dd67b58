package server

import (
	"fmt"
	"mime"
	"strconv"
	"strings"
)

// negotiate picks the media type to answer with from offers (the server's
// formats, in its order of preference) by the request's Accept header
// (RFC 9110, 12.5.1): the offer with the highest q-value, where a type's
// q-value is that of the most specific range matching it (type/subtype,
// then type/*, then */*); ties go to the server's order. No Accept header
// is "*/*". It fails with ErrNotAcceptable when every offer has q=0.
func negotiate(accept string, offers []string) (string, error) {
	if strings.TrimSpace(accept) == "" {
		return offers[0], nil
	}
	type rng struct {
		typ, sub string
		q        float64
	}
	var ranges []rng
	for _, part := range strings.Split(accept, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		mt, params, err := mime.ParseMediaType(part)
		if err != nil {
			continue // an unreadable range matches nothing
		}
		typ, sub, ok := strings.Cut(mt, "/")
		if !ok {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
				q = f
			} else {
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
		return "", fmt.Errorf("%w: no format of %q is available here (available: %s)", ErrNotAcceptable, accept, strings.Join(offers, ", "))
	}
	return best, nil
}
