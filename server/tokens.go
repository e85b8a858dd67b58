package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/internal/pathtext"
	"github.com/cortexgraph/cortex/namespace"
)

// Role is what a token may do in its namespace. Each role includes the
// ones below it: read < write < admin.
type Role string

// Roles.
const (
	// RoleRead may query (SPARQL), get and list (teams, findings, facts,
	// conflicts, strategies), export graphs and follow events.
	RoleRead Role = "read"
	// RoleWrite may also write teams and findings (create, status, merge,
	// add, resolve) and import graphs (Graph Store PUT, POST).
	RoleWrite Role = "write"
	// RoleAdmin may also manage tokens, list namespaces and read the
	// store's stats (its namespace's only: a token never learns of another
	// namespace) and delete (teams, graphs, namespaces).
	RoleAdmin Role = "admin"
)

// Roles returns the roles, lowest first.
func Roles() []Role { return []Role{RoleRead, RoleWrite, RoleAdmin} }

// rank orders the roles; 0 for an unknown one.
func (r Role) rank() int {
	for i, x := range Roles() {
		if x == r {
			return i + 1
		}
	}
	return 0
}

// Allows reports whether r includes need.
func (r Role) Allows(need Role) bool { return r.rank() > 0 && r.rank() >= need.rank() }

// ParseRole returns the role named s; an unknown name matches ErrInvalidRole.
func ParseRole(s string) (Role, error) {
	if r := Role(s); r.rank() > 0 {
		return r, nil
	}
	return "", fmt.Errorf("%w %q (roles: read, write, admin)", ErrInvalidRole, s)
}

// Token is what is known of a bearer token: never the token itself, which
// is shown once, by TokenFile.Create. Its JSON is what cortexctl tokens
// list --json prints.
type Token struct {
	ID        string     `json:"id"`
	Namespace string     `json:"namespace"`
	Role      Role       `json:"role"`
	Created   time.Time  `json:"created"`
	Expires   *time.Time `json:"expires,omitempty"` // nil: never
	Revoked   *time.Time `json:"revoked,omitempty"` // nil: not revoked
}

// tokenRecord is a token as the file keeps it: with the SHA-256 of the
// token, hex-encoded.
type tokenRecord struct {
	Token
	Hash string `json:"hash"`
}

// Tokens look like "ctk_<id>_<secret>": the id (12 hex digits) finds the
// record, the secret (32 random bytes, base64url) is what is checked.
const (
	tokenPrefix    = "ctk_"
	tokenIDLen     = 12
	tokenSecretLen = 43 // base64.RawURLEncoding of 32 bytes
)

// TokenFile keeps bearer tokens in a JSON file (mode 0600): their id,
// namespace, role, times and the SHA-256 of each token, never a token.
// On Unix, a file that other users may write (group or other write
// permission, or owned by another user than the process's and root: they
// could add a token of their own) is refused, as sshd refuses such an
// authorized_keys: every method fails with an error matching
// ErrUnsafeTokenFile, and a server refuses every request that needs a
// token, until it is chmodded (or chowned).
//
// It is safe for concurrent use, and by several processes at once: a
// write takes an exclusive lock on PATH.lock (on Unix; elsewhere writes
// from several processes may race), reads the file, and replaces it with
// a rename, so a reader sees the old file or the new one, never a part.
// Every Authenticate checks whether the file changed (one stat) and
// rereads it if it did: a token created or revoked by another process
// (cortexctl tokens while a server runs) counts at the next request.
//
// Revoked tokens stay in the file (listed as revoked): removing the last
// one would leave no token, and a server that demands tokens only once
// one exists would let requests in again.
type TokenFile struct {
	path string

	mu    sync.Mutex
	stamp os.FileInfo // of the file cached; nil: none read, or no file
	recs  []tokenRecord
}

// OpenTokens returns the token file at path. The file need not exist: it
// is created by the first Create.
func OpenTokens(path string) *TokenFile { return &TokenFile{path: path} }

// Path returns the file's path.
func (f *TokenFile) Path() string { return f.path }

// load returns the records, reread if the file changed since the last
// read. The caller holds f.mu.
func (f *TokenFile) load() ([]tokenRecord, error) {
	fi, err := os.Stat(f.path)
	if errors.Is(err, os.ErrNotExist) {
		f.stamp, f.recs = nil, nil
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tokens %s: %w", pathtext.Quote(f.path), pathtext.Error(err))
	}
	if err := checkTokenFileMode(f.path, fi); err != nil {
		return nil, fmt.Errorf("tokens %s: %w", pathtext.Quote(f.path), pathtext.Error(err))
	}
	if f.stamp != nil && os.SameFile(f.stamp, fi) && f.stamp.ModTime().Equal(fi.ModTime()) && f.stamp.Size() == fi.Size() {
		return f.recs, nil
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		return nil, fmt.Errorf("tokens %s: %w", pathtext.Quote(f.path), pathtext.Error(err))
	}
	var recs []tokenRecord
	if len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, &recs); err != nil {
			return nil, fmt.Errorf("%w: tokens %s: %v", api.ErrSyntax, pathtext.Quote(f.path), err)
		}
	}
	f.stamp, f.recs = fi, recs
	return recs, nil
}

// update runs change on the records under the file lock and writes what
// it returns, atomically.
func (f *TokenFile) update(change func([]tokenRecord) ([]tokenRecord, error)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return fmt.Errorf("tokens: %w", err)
	}
	unlock, err := lockFile(f.path + ".lock")
	if err != nil {
		return fmt.Errorf("tokens %s: lock: %w", pathtext.Quote(f.path), pathtext.Error(err))
	}
	defer unlock()
	recs, err := f.load()
	if err != nil {
		return err
	}
	recs, err = change(append([]tokenRecord(nil), recs...))
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return fmt.Errorf("tokens: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), ".tokens-*.json")
	if err != nil {
		return fmt.Errorf("tokens: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing to remove
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), f.path)
	}
	if err != nil {
		return fmt.Errorf("tokens %s: write: %w", pathtext.Quote(f.path), pathtext.Error(err))
	}
	f.stamp = nil // reread at the next load
	return nil
}

// Create makes a token for namespace ns with role r, valid for at least
// ttl (0: no expiry; its expiry is rounded up to a whole second), and
// returns it (the only time it is shown) with its record.
// An invalid namespace name, role or ttl writes nothing.
func (f *TokenFile) Create(ctx context.Context, ns string, r Role, ttl time.Duration) (string, Token, error) {
	if err := namespace.ValidateName(ns); err != nil {
		return "", Token{}, fmt.Errorf("tokens create: %w", err)
	}
	if _, err := ParseRole(string(r)); err != nil {
		return "", Token{}, fmt.Errorf("tokens create: %w", err)
	}
	if ttl < 0 {
		return "", Token{}, fmt.Errorf("%w: tokens create: expiry %s is negative", api.ErrInvalid, ttl)
	}
	if err := ctx.Err(); err != nil {
		return "", Token{}, err
	}
	var id [tokenIDLen / 2]byte
	var secret [32]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", Token{}, fmt.Errorf("tokens create: %w", err)
	}
	if _, err := rand.Read(secret[:]); err != nil {
		return "", Token{}, fmt.Errorf("tokens create: %w", err)
	}
	now := time.Now().UTC()
	t := Token{ID: hex.EncodeToString(id[:]), Namespace: ns, Role: r, Created: now.Truncate(time.Second)}
	if ttl > 0 {
		// Kept in whole seconds, as Created, but rounded up: a token
		// is valid for at least ttl, never less.
		exp := now.Add(ttl)
		if s := exp.Truncate(time.Second); s.Before(exp) {
			exp = s.Add(time.Second)
		}
		t.Expires = &exp
	}
	tok := tokenPrefix + t.ID + "_" + base64.RawURLEncoding.EncodeToString(secret[:])
	err := f.update(func(recs []tokenRecord) ([]tokenRecord, error) {
		return append(recs, tokenRecord{Token: t, Hash: hashToken(tok)}), nil
	})
	if err != nil {
		return "", Token{}, fmt.Errorf("tokens create: %w", err)
	}
	return tok, t, nil
}

// List returns the tokens of namespace ns ("" for every namespace),
// revoked and expired ones included, oldest first.
func (f *TokenFile) List(ctx context.Context, ns string) ([]Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	recs, err := f.load()
	f.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("tokens list: %w", err)
	}
	out := []Token{}
	for _, r := range recs {
		if ns == "" || r.Namespace == ns {
			out = append(out, r.Token)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// Revoke revokes token id of namespace ns ("" for any namespace) and
// returns it. A token that does not exist (or is of another namespace)
// matches ErrUnknownToken; one already revoked is left as it is. An id no
// token can have (not 12 lower-case hexadecimal digits) matches
// namespace.ErrInvalidID and ErrUnknownToken (its message only says it is
// an invalid id, and why), and the file is not touched.
func (f *TokenFile) Revoke(ctx context.Context, ns, id string) (Token, error) {
	if err := ctx.Err(); err != nil {
		return Token{}, err
	}
	if !validTokenID(id) {
		return Token{}, fmt.Errorf("tokens revoke: %w", tokenIDError(id))
	}
	if _, err := os.Stat(f.path); errors.Is(err, fs.ErrNotExist) {
		// No token was ever created: nothing to revoke, and nothing (a
		// directory, a lock file) is created to say so.
		return Token{}, fmt.Errorf("tokens revoke: %w %q", ErrUnknownToken, id)
	}
	var out Token
	err := f.update(func(recs []tokenRecord) ([]tokenRecord, error) {
		for i, r := range recs {
			if r.ID == id && (ns == "" || r.Namespace == ns) {
				if r.Revoked == nil {
					now := time.Now().UTC().Truncate(time.Second)
					recs[i].Revoked = &now
				}
				out = recs[i].Token
				return recs, nil
			}
		}
		return nil, fmt.Errorf("%w %q", ErrUnknownToken, id)
	})
	if err != nil {
		return Token{}, fmt.Errorf("tokens revoke: %w", err)
	}
	return out, nil
}

// Any reports whether the file holds any token (revoked and expired ones
// count).
func (f *TokenFile) Any() (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	recs, err := f.load()
	return len(recs) > 0, err
}

// Authenticate returns the token tok is, valid at now. A token that is
// not of the form ctk_ID_SECRET, unknown, revoked or expired is an error
// matching ErrUnauthorized. The secret is compared in constant time.
func (f *TokenFile) Authenticate(tok string, now time.Time) (Token, error) {
	id, secret, ok := strings.Cut(strings.TrimPrefix(tok, tokenPrefix), "_")
	if !strings.HasPrefix(tok, tokenPrefix) || !ok || len(id) != tokenIDLen || len(secret) != tokenSecretLen {
		return Token{}, fmt.Errorf("%w: malformed token (want ctk_ID_SECRET)", ErrUnauthorized)
	}
	f.mu.Lock()
	recs, err := f.load()
	f.mu.Unlock()
	if err != nil {
		return Token{}, err
	}
	want := hashToken(tok)
	for _, r := range recs {
		if r.ID != id {
			continue
		}
		if subtle.ConstantTimeCompare([]byte(r.Hash), []byte(want)) != 1 {
			break
		}
		if err := r.usable(now); err != nil {
			return Token{}, err
		}
		return r.Token, nil
	}
	return Token{}, fmt.Errorf("%w: unknown token", ErrUnauthorized)
}

// Check returns nil if the token of id is still valid at now, rereading
// the file if it changed: an error matching ErrUnauthorized if it was
// revoked, has expired or is no longer in the file. The server checks the
// token of an open event stream so (its stream ends when it fails).
func (f *TokenFile) Check(id string, now time.Time) error {
	f.mu.Lock()
	recs, err := f.load()
	f.mu.Unlock()
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.ID == id {
			return r.usable(now)
		}
	}
	return fmt.Errorf("%w: token %s is no longer in %s", ErrUnauthorized, id, pathtext.Quote(f.path))
}

// usable returns nil if r is neither revoked nor expired at now.
func (r tokenRecord) usable(now time.Time) error {
	switch {
	case r.Revoked != nil:
		return fmt.Errorf("%w: token %s was revoked", ErrUnauthorized, r.ID)
	case r.Expires != nil && !now.Before(*r.Expires):
		return fmt.Errorf("%w: token %s expired at %s", ErrUnauthorized, r.ID, r.Expires.Format(time.RFC3339))
	}
	return nil
}

// tokenIDError is the error of an id no token can have. It matches
// namespace.ErrInvalidID and ErrUnknownToken, as a *namespace.IDError
// does, but its message says only what is wrong: a *namespace.IDError's
// would read "invalid id (not found: unknown token; ...)", an invalid id
// and a missing token at once.
type tokenIDError string

func (e tokenIDError) Error() string {
	return fmt.Sprintf("token %q: %v: want 12 lower-case hexadecimal digits", string(e), namespace.ErrInvalidID)
}

// Unwrap returns namespace.ErrInvalidID and ErrUnknownToken.
func (e tokenIDError) Unwrap() []error { return []error{namespace.ErrInvalidID, ErrUnknownToken} }

// validTokenID reports whether id is how Create writes token ids: 12
// lower-case hexadecimal digits.
func validTokenID(id string) bool {
	return len(id) == tokenIDLen && strings.Trim(id, "0123456789abcdef") == ""
}

func hashToken(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:])
}
