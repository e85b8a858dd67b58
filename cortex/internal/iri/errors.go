package iri

import "errors"

// Errors returned by Resolve.
var (
	// ErrNoBase: a relative reference was resolved against an empty base.
	ErrNoBase = errors.New("relative iri reference with no base")
	// ErrRelativeBase: the base has no scheme, so it cannot resolve anything.
	ErrRelativeBase = errors.New("base is not an absolute iri")
)
