// Package config reads the Cortex configuration file (JSON5).
//
//	{
//	  teams: { maxTeamSize: 8, defaultStrategy: "additive", workflowTimeout: 600,
//	           eventMaxAge: 604800, eventMax: 100000 },
//	  namespaces: { acme: { base: "https://acme.example/kg" } },
//	  prefixes: { ex: "http://example.org/" },
//	}
//
// Every key is optional; missing keys take the defaults of Default. Unknown
// keys, values of the wrong type and invalid values are errors that name the
// key and its line and wrap ErrInvalid: a namespace name must satisfy
// namespace.ValidateName and its base be an absolute IRI (namespace.WithBase);
// a prefix must be a prefix name other than the built-in rdf, rdfs, xsd,
// owl, prov and cx, mapped to an absolute IRI. Whether teams.defaultStrategy
// names a registered strategy is not checked here (config does not import
// merge): the host checks it against its registry (cortexctl does, with
// merge.Lookup). Of several bad values, the first in key order is
// reported. A syntax error, a key given twice in one object and nesting
// deeper than 200 levels are errors naming the line. A UTF-8 byte order
// mark at the start of the file is skipped.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/titanous/json5"

	"github.com/cortexgraph/cortex/internal/pathtext"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/spec"
)

// ErrInvalid is wrapped by every error about the content of a config file.
var ErrInvalid = errors.New("invalid config")

// Config is the whole configuration.
type Config struct {
	Teams      Teams
	Namespaces map[string]Namespace // by namespace name
	Prefixes   map[string]string    // SPARQL prefixes available in every query
}

// Teams configures the team manager.
type Teams struct {
	MaxTeamSize     int    // members per team, 1..1000; default 8
	DefaultStrategy string // merge strategy when a team names none; default "additive"
	WorkflowTimeout int    // seconds a team may run before it fails; 0 = no timeout; default 600
	EventMaxAge     int    // seconds an event is kept (teammanager events); 0 = whatever its age; default 604800 (7 days)
	EventMax        int    // events kept per namespace, at least 1; default 100000
}

// Namespace configures one namespace.
type Namespace struct {
	Base string // IRI base replacing the default urn:cortex:{name}; an absolute IRI (namespace.WithBase)
}

// NamespaceBase returns the IRI base of namespace name: the one the config
// gives it, else the default (namespace.DefaultBasePrefix + name).
func (c Config) NamespaceBase(name string) string {
	if n, ok := c.Namespaces[name]; ok && n.Base != "" {
		return n.Base
	}
	return namespace.DefaultBasePrefix + name
}

// builtinPrefixes are the SPARQL prefixes cortexctl predeclares in every
// query and term argument; a config file cannot redefine them.
var builtinPrefixes = map[string]bool{"rdf": true, "rdfs": true, "xsd": true, "owl": true, "prov": true, "cx": true}

// Default returns the configuration used when no file is given.
func Default() Config {
	return Config{Teams: Teams{MaxTeamSize: 8, DefaultStrategy: "additive", WorkflowTimeout: 600,
		EventMaxAge: 7 * 24 * 3600, EventMax: 100_000}}
}

// MaxFileSize is the size of the largest config file Load reads: 16 MiB.
const MaxFileSize = 16 << 20

// Load reads and validates the file at path, of at most MaxFileSize
// bytes (a larger one, or one that never ends, is an error matching
// ErrInvalid, read no further). Its errors name path as pathtext.Quote
// does (quoted unless plain text).
func Load(path string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", pathtext.Error(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", pathtext.Error(err))
	}
	if len(data) > MaxFileSize {
		return Config{}, fmt.Errorf("config %s: %w: larger than %d bytes", pathtext.Quote(path), ErrInvalid, MaxFileSize)
	}
	c, err := Parse(data)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", pathtext.Quote(path), err)
	}
	return c, nil
}

// Parse reads and validates a configuration from JSON5 text.
func Parse(data []byte) (Config, error) {
	c := Default()
	// A byte order mark (Windows editors write one; JSON5 counts U+FEFF as
	// white space) is not content, as in definitions (spec).
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	// A key given twice (the parser keeps the last) and nesting past
	// spec's bound (the parser recurses without one: a deep file crashed
	// the process) are refused first, as in definitions.
	if len(bytes.TrimSpace(data)) == 0 {
		// (The parser's "unexpected end of JSON input" named no line.)
		return c, fmt.Errorf("%w: line 1: the file is empty: want a JSON5 object, {} for the defaults", ErrInvalid)
	}
	lines, err := spec.JSON5KeyLines(data)
	if err != nil {
		return c, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	var root interface{}
	if err := json5.Unmarshal(data, &root); err != nil {
		return c, fmt.Errorf("%w: %v", ErrInvalid, spec.JSON5Error(data, err))
	}
	// at is the JSON pointer of the key being read: an error about it
	// names its line.
	var at string
	c, err = c.parse(root, &at)
	if n := lines[at]; err != nil && n > 0 {
		// (Every error wraps ErrInvalid alone, the others' text quoted.)
		err = fmt.Errorf("%w: line %d: %s", ErrInvalid, n, strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
	}
	return c, err
}

// pointerKey returns key escaped for a JSON pointer (RFC 6901).
func pointerKey(key string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(key) }

// parse reads root, a config file's value, into c, setting *at to the
// JSON pointer of each key it reads.
func (c Config) parse(root interface{}, at *string) (Config, error) {
	top, err := object(root, "")
	if err != nil {
		return c, err
	}
	// Keys are taken in sorted order, so that of several bad values the
	// same one is reported every time.
	for _, k := range sortedKeys(top) {
		v := top[k]
		*at = "/" + pointerKey(k)
		switch k {
		case "teams":
			if err := c.parseTeams(v, at); err != nil {
				return c, err
			}
		case "namespaces":
			m, err := object(v, "namespaces")
			if err != nil {
				return c, err
			}
			c.Namespaces = map[string]Namespace{}
			for _, name := range sortedKeys(m) {
				nv := m[name]
				path := keyPath("namespaces", name)
				*at = "/namespaces/" + pointerKey(name)
				if err := namespace.ValidateName(name); err != nil {
					return c, fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
				}
				fields, err := object(nv, path)
				if err != nil {
					return c, err
				}
				var ns Namespace
				for _, fk := range sortedKeys(fields) {
					fv := fields[fk]
					*at = "/namespaces/" + pointerKey(name) + "/" + pointerKey(fk)
					switch fk {
					case "base":
						if ns.Base, err = str(fv, path+".base"); err != nil {
							return c, err
						}
						if _, err := namespace.New(name, namespace.WithBase(ns.Base)); err != nil {
							if inner := errors.Unwrap(err); inner != nil {
								err = inner // without New's "namespace NAME: "
							}
							return c, fmt.Errorf("%w: %s.base: %v", ErrInvalid, path, err)
						}
					default:
						return c, unknown(path, fk, "base")
					}
				}
				c.Namespaces[name] = ns
			}
		case "prefixes":
			m, err := object(v, "prefixes")
			if err != nil {
				return c, err
			}
			c.Prefixes = map[string]string{}
			for _, p := range sortedKeys(m) {
				iv := m[p]
				path := keyPath("prefixes", p)
				*at = "/prefixes/" + pointerKey(p)
				if c.Prefixes[p], err = str(iv, path); err != nil {
					return c, err
				}
				if err := checkPrefix(p, c.Prefixes[p]); err != nil {
					return c, fmt.Errorf("%w: %s: %v", ErrInvalid, path, err)
				}
			}
		default:
			return c, unknown("", k, "teams", "namespaces", "prefixes")
		}
	}
	return c, nil
}

func (c *Config) parseTeams(v interface{}, at *string) error {
	m, err := object(v, "teams")
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(m) {
		fv := m[k]
		path := "teams." + k
		*at = "/teams/" + pointerKey(k)
		switch k {
		case "maxTeamSize":
			n, err := whole(fv, path)
			if err != nil {
				return err
			}
			if n < 1 || n > 1000 {
				return fmt.Errorf("%w: %s: %d is out of range 1..1000", ErrInvalid, path, n)
			}
			c.Teams.MaxTeamSize = n
		case "defaultStrategy":
			s, err := str(fv, path)
			if err != nil {
				return err
			}
			if s == "" {
				return fmt.Errorf("%w: %s: must not be empty", ErrInvalid, path)
			}
			c.Teams.DefaultStrategy = s
		case "workflowTimeout":
			n, err := whole(fv, path)
			if err != nil {
				return err
			}
			if n < 0 {
				return fmt.Errorf("%w: %s: %d must be ≥ 0 seconds (0 = no timeout)", ErrInvalid, path, n)
			}
			c.Teams.WorkflowTimeout = n
		case "eventMaxAge":
			n, err := whole(fv, path)
			if err != nil {
				return err
			}
			if n < 0 {
				return fmt.Errorf("%w: %s: %d must be ≥ 0 seconds (0 = whatever their age)", ErrInvalid, path, n)
			}
			c.Teams.EventMaxAge = n
		case "eventMax":
			n, err := whole(fv, path)
			if err != nil {
				return err
			}
			if n < 1 {
				return fmt.Errorf("%w: %s: %d must be at least 1", ErrInvalid, path, n)
			}
			c.Teams.EventMax = n
		default:
			return unknown("teams", k, "maxTeamSize", "defaultStrategy", "workflowTimeout", "eventMaxAge", "eventMax")
		}
	}
	return nil
}

// checkPrefix validates a prefixes entry: a SPARQL prefix name that is not
// built in, mapped to an absolute IRI (namespace.CheckIRI: percent-encodings
// included).
func checkPrefix(name, iri string) error {
	if builtinPrefixes[name] {
		return fmt.Errorf("%q is a built-in prefix and cannot be redefined", name)
	}
	if !isPrefixName(name) {
		return fmt.Errorf("%q is not a prefix name (a letter, then letters, digits, '-' or '_')", name)
	}
	return namespace.CheckIRI(iri)
}

func isPrefixName(s string) bool {
	for i, r := range s {
		ok := 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && ('0' <= r && r <= '9' || r == '-' || r == '_')
		if !ok {
			return false
		}
	}
	return s != ""
}

// keyPath returns parent.key, the key quoted when it holds a character
// that would not print as itself (a control character), so that an error
// naming it stays one line and writes no control character to a terminal.
func keyPath(parent, key string) string {
	if q := strconv.Quote(key); q[1:len(q)-1] != key {
		key = q
	}
	return parent + "." + key
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys(m map[string]interface{}) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func object(v interface{}, path string) (map[string]interface{}, error) {
	m, ok := v.(map[string]interface{})
	if !ok {
		where := path
		if where == "" {
			where = "top level"
		}
		return nil, fmt.Errorf("%w: %s: expected an object, got %s", ErrInvalid, where, kind(v))
	}
	return m, nil
}

func str(v interface{}, path string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%w: %s: expected a string, got %s", ErrInvalid, path, kind(v))
	}
	return s, nil
}

func whole(v interface{}, path string) (int, error) {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, fmt.Errorf("%w: %s: expected a whole number, got %s", ErrInvalid, path, kind(v))
	}
	return int(f), nil
}

func kind(v interface{}) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", t)
	case float64:
		return fmt.Sprintf("the number %v", t)
	case bool:
		return fmt.Sprintf("%v", t)
	case []interface{}:
		return "an array"
	case map[string]interface{}:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func unknown(path, key string, known ...string) error {
	sort.Strings(known)
	where := key
	if path != "" {
		where = path + "." + key
	}
	return fmt.Errorf("%w: unknown key %q (known: %s)", ErrInvalid, where, strings.Join(known, ", "))
}
