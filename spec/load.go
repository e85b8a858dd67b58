package spec

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/internal/pathtext"
)

// Kind is the kind of a definition.
type Kind string

// Definition kinds.
const (
	KindAgent Kind = "agent"
	KindTeam  Kind = "team"
)

// Options configure parsing and validation.
type Options struct {
	// Strict makes unknown keys errors instead of warnings.
	Strict bool
	// KnownAgents are qualified names of agents defined elsewhere (already
	// stored), which teams and delegation lists may name besides the
	// agents being loaded.
	KnownAgents []string
}

// Def is one parsed definition: an agent or a team, and the file it came
// from.
type Def struct {
	File  string
	Kind  Kind
	Agent *Agent // KindAgent
	Team  *Team  // KindTeam

	d *decoder // lines of the file, for cross-file problems
}

// Name returns the definition's name: an agent's qualified name, a team's
// name.
func (d Def) Name() string {
	if d.Kind == KindAgent {
		return d.Agent.QualifiedName()
	}
	return d.Team.Name
}

// Set is a collection of definitions loaded together, in load order.
type Set struct {
	Defs []Def
}

// Agents returns the set's agents, in load order.
func (s *Set) Agents() []*Agent {
	var out []*Agent
	for _, d := range s.Defs {
		if d.Kind == KindAgent {
			out = append(out, d.Agent)
		}
	}
	return out
}

// Teams returns the set's teams, in load order.
func (s *Set) Teams() []*Team {
	var out []*Team
	for _, d := range s.Defs {
		if d.Kind == KindTeam {
			out = append(out, d.Team)
		}
	}
	return out
}

// format is a file's syntax, from its extension.
type format int

const (
	formatMarkdown format = iota + 1
	formatJSON
	formatJSON5
	formatYAML
)

func formatOf(file string) (format, error) {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".md", ".markdown":
		return formatMarkdown, nil
	case ".json":
		return formatJSON, nil
	case ".json5":
		return formatJSON5, nil
	case ".yaml", ".yml":
		return formatYAML, nil
	}
	return 0, fmt.Errorf("%w %q (want .md, .json, .json5, .yaml or .yml)", ErrUnknownFormat, filepath.Ext(file))
}

// byteOrderMark is the UTF-8 byte order mark, skipped at the start of a
// file.
const byteOrderMark = "\ufeff"

// parseNode parses data in its file's format. For Markdown it returns the
// front matter and the body.
func parseNode(file string, data []byte) (n *node, body *string, err error) {
	f, err := formatOf(file)
	if err != nil {
		return nil, nil, err
	}
	if !utf8.Valid(data) {
		bad := 0
		for len(data[bad:]) > 0 {
			r, size := utf8.DecodeRune(data[bad:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			bad += size
		}
		return nil, nil, &syntaxError{line: newLineIndex(data).line(int64(bad)), msg: "not valid utf-8"}
	}
	// A byte order mark (editors on Windows write one) is not content.
	data = bytes.TrimPrefix(data, []byte(byteOrderMark))
	switch f {
	case formatJSON:
		n, err = parseJSON(data)
	case formatJSON5:
		n, err = parseJSON5(data)
	case formatYAML:
		n, err = parseYAML(data, 0)
	case formatMarkdown:
		var fm []byte
		var off int
		var b string
		fm, off, b, err = splitFrontMatter(crToLF(data))
		if err == nil {
			body = &b
			n, err = parseYAML(fm, off)
		}
	}
	return n, body, err
}

// crToLF returns data with every CR that does not start a CRLF made an LF
// (a copy, if there is one): a file whose lines end in CR alone is read as
// one with LF (YAML and JSON read such lines themselves; the front matter's
// fences and the body are found here, by LF).
func crToLF(data []byte) []byte {
	i := bytes.IndexByte(data, '\r')
	if i < 0 {
		return data
	}
	out := bytes.Clone(data)
	for ; i < len(out); i++ {
		if out[i] == '\r' && (i+1 == len(out) || out[i+1] != '\n') {
			out[i] = '\n'
		}
	}
	return out
}

// splitFrontMatter splits a Markdown agent into its YAML front matter
// (between a first line "---" and the next line "---", each with
// trailing white space or not),
// the line number before the front matter's first line, and the body.
func splitFrontMatter(data []byte) (fm []byte, offset int, body string, err error) {
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n\f\v"))
	offset = bytes.Count(data[:start], []byte("\n")) + 1 // the "---" line
	rest := data[start:]
	first, after, _ := bytes.Cut(rest, []byte("\n"))
	if string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, 0, "", &syntaxError{line: offset, msg: "markdown agent must start with a \"---\" front matter line"}
	}
	pos := 0
	for pos <= len(after) {
		line, _, _ := bytes.Cut(after[pos:], []byte("\n"))
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			fm = after[:pos]
			next := pos + len(line) + 1
			if next > len(after) {
				next = len(after)
			}
			return fm, offset, string(after[next:]), nil
		}
		if pos+len(line) >= len(after) {
			break
		}
		pos += len(line) + 1
	}
	return nil, 0, "", &syntaxError{line: offset, msg: "front matter has no closing \"---\" line"}
}

// Parse parses one definition file, finding its kind from the file's
// extension (.md: an agent) and keys (a team has agents, workflow,
// version, orchestrator or collaboration), and checks the rules that need
// only this file. Cross-file rules (agents defined, delegation targets) are
// Load's. Def is usable when the report has no errors.
func Parse(file string, data []byte, opts Options) (Def, Report) {
	return parse(file, data, "", opts)
}

// ParseAgent parses an agent file (.md with YAML front matter, .json,
// .json5, .yaml); see Parse.
func ParseAgent(file string, data []byte, opts Options) (*Agent, Report) {
	def, rep := parseAs(file, data, KindAgent, "", opts)
	return def.Agent, rep
}

// ParseTeam parses a team file (.json, .json5, .yaml); see Parse.
func ParseTeam(file string, data []byte, opts Options) (*Team, Report) {
	def, rep := parseAs(file, data, KindTeam, "", opts)
	return def.Team, rep
}

func parse(file string, data []byte, ns string, opts Options) (Def, Report) {
	return parseAs(file, data, "", ns, opts)
}

func fileProblem(file string, line int, format string, args ...interface{}) Report {
	return Report{Problems: []Problem{{File: file, Line: line, Severity: SeverityError, Message: fmt.Sprintf(format, args...)}}}
}

// isDeployment reports whether f is a multi-agent-spec deployment file
// (deployment.schema.json: an object with "team" and "targets"), which a
// specs directory may hold beside its agents and teams.
func isDeployment(f File) bool {
	if ft, err := formatOf(f.Path); err != nil || ft == formatMarkdown {
		return false
	}
	n, _, err := parseNode(f.Path, []byte(f.Data))
	if err != nil || n.kind != kObject {
		return false
	}
	return slices.Contains(n.keys, "team") && slices.Contains(n.keys, "targets")
}

// teamKeys are keys only a team has.
var teamKeys = []string{"agents", "workflow", "version", "orchestrator", "collaboration", "self_claim", "plan_approval"}

func kindOf(n *node) Kind {
	if n.kind == kObject {
		for _, k := range n.keys {
			for _, tk := range teamKeys {
				if k == tk {
					return KindTeam
				}
			}
		}
	}
	return KindAgent
}

// parseAs parses file as kind ("" to guess), with namespace ns for an agent
// that does not name its own.
func parseAs(file string, data []byte, kind Kind, ns string, opts Options) (Def, Report) {
	n, body, err := parseNode(file, data)
	if err != nil {
		if se, ok := err.(*syntaxError); ok {
			return Def{File: file}, fileProblem(file, se.line, "syntax error: %s", se.msg)
		}
		return Def{File: file}, fileProblem(file, 0, "%v", err)
	}
	if kind == "" {
		kind = KindAgent
		if body == nil {
			kind = kindOf(n)
		}
	}
	d := newDecoder(file, opts.Strict)
	def := Def{File: file, Kind: kind, d: d}
	switch kind {
	case KindAgent:
		a := d.agent(n, "")
		if body != nil {
			if b := strings.TrimSpace(*body); b != "" {
				if a.Instructions != "" {
					d.report(SeverityWarning, d.lineAt("/instructions"), "/instructions", "instructions in the front matter are replaced by the markdown body")
				}
				a.Instructions = b
			}
		}
		if a.Namespace == "" && ns != "" {
			a.Namespace = ns
			if !validNamespace(ns) {
				d.report(SeverityError, 0, "", "namespace %q (of the file's directory) must be names separated by single '/', without control characters", ns)
			}
		}
		d.checkAgent(a)
		def.Agent = a
	case KindTeam:
		if body != nil {
			return Def{File: file}, fileProblem(file, 0, "a team file must be .json, .json5, .yaml or .yml, not markdown")
		}
		t := d.team(n, "")
		d.checkTeam(t)
		def.Team = t
	}
	return def, Report{Problems: d.probs.problems()}
}

// Load reads definition files and directories and validates them
// together. A directory is walked recursively (hidden entries skipped):
// its .md files are agents whose namespace, unless their front matter
// gives one, is their subdirectory relative to the directory (or to the
// nearest "agents" directory below it, as in specs/agents/security/x.md →
// "security"); its .json, .json5, .yaml and .yml files are agents or teams
// by their keys. A .md file without front matter and a deployment file
// (an object with "team" and "targets") inside a directory are skipped with
// a warning; given by name they are errors.
//
// Besides each file's rules, Load checks that no two definitions share a
// name, that every agent a team lists is defined (among the loaded agents or
// opts.KnownAgents), and that delegation lists name defined agents.
//
// The error is for files that cannot be read (it matches fs.ErrNotExist for
// a missing path); problems with their content are in the report, and the
// set holds every definition that parsed, valid or not.
func Load(paths []string, opts Options) (*Set, Report, error) {
	files, err := ReadFiles(paths)
	if err != nil {
		return nil, Report{}, err
	}
	set, rep := LoadFiles(files, opts)
	return set, rep, nil
}

// File is the content of one definition file, as ReadFiles reads it and
// LoadFiles parses it (a client sends files so to a server).
type File struct {
	// Path names the file in problems; its extension gives the format.
	Path string `json:"path"`
	// Namespace is the namespace of an agent file found in a directory
	// (its subdirectory below the nearest "agents" directory).
	Namespace string `json:"namespace,omitempty"`
	// InDir says that the file was found in a directory, not named: a
	// Markdown file without front matter is then skipped with a warning.
	InDir bool   `json:"inDir,omitempty"`
	Data  string `json:"data"`
}

// ReadFiles reads paths as Load does, without parsing them: a file given
// by name, and the definition files of a directory (recursively; hidden
// entries and files of other extensions skipped; a directory named
// through a symbolic link is read, links in it are not followed to
// directories), in Load's order. The
// error is for paths that cannot be read (it matches fs.ErrNotExist for a
// missing path), or a *ValidationError for a file that is not a regular
// file or is larger than MaxFileSize. A file given twice (or given and
// found in a directory given too) is read once.
func ReadFiles(paths []string) ([]File, error) {
	var files []File
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, loadError(p, err)
		}
		if !st.IsDir() {
			data, err := readFile(p, st)
			if err != nil {
				return nil, err
			}
			files = append(files, File{Path: p, Data: string(data)})
			continue
		}
		if err := readDir(p, &files); err != nil {
			return nil, err
		}
	}
	return readOnce(files), nil
}

// readOnce drops from files those that are an earlier one's file (a file
// named twice, or named and found in a directory named too), keeping the
// first: each would define its agent or team again.
func readOnce(files []File) []File {
	var seen []os.FileInfo
	out := files[:0]
	for _, f := range files {
		st, err := os.Stat(f.Path)
		if err == nil && slices.ContainsFunc(seen, func(o os.FileInfo) bool { return os.SameFile(o, st) }) {
			continue
		}
		if err == nil {
			seen = append(seen, st)
		}
		out = append(out, f)
	}
	return out
}

// LoadFiles parses files and checks them as Load does; the report's
// problems are sorted. A file's content of more than MaxFileSize bytes is
// an error of that file, as Load's reading it is.
func LoadFiles(files []File, opts Options) (*Set, Report) {
	set := &Set{}
	var rep Report
	for _, f := range files {
		if len(f.Data) > MaxFileSize {
			// As readFile refuses it: files sent to a server are read so.
			rep.Problems = append(rep.Problems, Problem{File: f.Path, Severity: SeverityError, Message: fmt.Sprintf("file of %d bytes is larger than %d", len(f.Data), MaxFileSize)})
			continue
		}
		if f.InDir && !strings.HasPrefix(strings.TrimLeft(strings.TrimPrefix(f.Data, byteOrderMark), " \t\r\n\f\v"), "---") {
			if ft, err := formatOf(f.Path); err == nil && ft == formatMarkdown {
				rep.Problems = append(rep.Problems, Problem{File: f.Path, Severity: SeverityWarning, Message: "skipped: no front matter, not an agent definition"})
				continue
			}
		}
		if f.InDir && isDeployment(f) {
			rep.Problems = append(rep.Problems, Problem{File: f.Path, Severity: SeverityWarning, Message: "skipped: a deployment file (team and targets), not an agent or team definition"})
			continue
		}
		def, r := parse(f.Path, []byte(f.Data), f.Namespace, opts)
		rep.Problems = append(rep.Problems, r.Problems...)
		if def.Kind != "" {
			set.Defs = append(set.Defs, def)
		}
	}
	rep.Problems = append(rep.Problems, set.check(opts).Problems...)
	sortProblems(rep.Problems)
	return set, rep
}

// loadError is the error of path that cannot be read: the path, and one an
// *fs.PathError names, quoted unless plain text (pathtext.Quote). The
// path is named once: "load x.json: no such file or directory", not
// "load x.json: stat x.json: no such file or directory".
func loadError(path string, err error) error {
	if pe, ok := err.(*fs.PathError); ok && pe.Path == path {
		return fmt.Errorf("load %s: %w", pathtext.Quote(path), samePathError{pe})
	}
	return fmt.Errorf("load %s: %w", pathtext.Quote(path), pathtext.Error(err))
}

// samePathError is an *fs.PathError of the path its message follows: its
// reason alone.
type samePathError struct{ *fs.PathError }

func (e samePathError) Error() string { return e.Err.Error() }
func (e samePathError) Unwrap() error { return e.PathError }

// MaxFileSize is the size of the largest definition file read: 16 MiB.
const MaxFileSize = 16 << 20

// readFile reads definition file path, whose os.Stat is st: a regular
// file of at most MaxFileSize bytes. Anything else (a device, a FIFO,
// which would block or never end, or a larger file) is a *ValidationError
// naming the file, before it is read.
func readFile(path string, st fs.FileInfo) ([]byte, error) {
	bad := func(msg string) error {
		return &ValidationError{Problems: []Problem{{File: path, Severity: SeverityError, Message: msg}}}
	}
	if !st.Mode().IsRegular() {
		return nil, bad("not a regular file")
	}
	if st.Size() > MaxFileSize {
		return nil, bad(fmt.Sprintf("file of %d bytes is larger than %d", st.Size(), MaxFileSize))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, loadError(path, err)
	}
	defer f.Close()
	// The file may have grown since st.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, loadError(path, err)
	}
	if len(data) > MaxFileSize {
		return nil, bad(fmt.Sprintf("file is larger than %d bytes", MaxFileSize))
	}
	return data, nil
}

// readDir reads the definition files under directory root into files.
// Links in it are not followed to directories (a link to the directory
// itself would loop); root itself is, if it is one (a link named as the
// definitions directory): its files are named under root.
func readDir(root string, files *[]File) error {
	walk := root
	if st, err := os.Lstat(root); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		// filepath.WalkDir follows no link, the root's either.
		walk = root + string(filepath.Separator)
	}
	return filepath.WalkDir(walk, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return loadError(path, err)
		}
		if path != walk && strings.HasPrefix(e.Name(), ".") {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			return nil
		}
		if _, err := formatOf(path); err != nil {
			return nil // not a definition file
		}
		st, err := os.Stat(path)
		if err != nil {
			return loadError(path, err)
		}
		data, err := readFile(path, st)
		if err != nil {
			return err
		}
		*files = append(*files, File{Path: path, Namespace: dirNamespace(root, path), InDir: true, Data: string(data)})
		return nil
	})
}

// dirNamespace is the namespace of an agent file found at path under root:
// its directory relative to root, or to the last "agents" directory on the
// way.
func dirNamespace(root, path string) string {
	rel, err := filepath.Rel(root, filepath.Dir(path))
	if err != nil || rel == "." {
		return ""
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == "agents" {
			parts = parts[i+1:]
			break
		}
	}
	return strings.Join(parts, "/")
}

func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.leftOut() != b.leftOut() {
			return b.leftOut()
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Path < b.Path
	})
}

// agentIndex resolves agent references against defined agents.
type agentIndex struct {
	exact map[string]bool
	bare  map[string][]string
}

func newAgentIndex(names []string) agentIndex {
	x := agentIndex{exact: map[string]bool{}, bare: map[string][]string{}}
	for _, q := range names {
		if x.exact[q] {
			continue
		}
		x.exact[q] = true
		_, n := SplitQualified(q)
		x.bare[n] = append(x.bare[n], q)
	}
	return x
}

// resolve returns the qualified name ref denotes: ref itself if defined,
// else, for an unqualified ref, the one agent of that name in any
// namespace. ambiguous lists the candidates when there are several.
func (x agentIndex) resolve(ref string) (q string, ambiguous []string) {
	if x.exact[ref] {
		return ref, nil
	}
	if strings.Contains(ref, "/") {
		return "", nil
	}
	switch c := x.bare[ref]; len(c) {
	case 0:
		return "", nil
	case 1:
		return c[0], nil
	default:
		return "", c
	}
}

// Resolve returns the qualified name of the agent a team's reference
// denotes among agents (qualified names): the reference itself when it is
// one of them, else, for an unqualified reference, the single agent of
// that name in any namespace; "" if none or several.
func Resolve(agents []string, ref string) string {
	return NewResolver(agents).Resolve(ref)
}

// A Resolver resolves references against one list of agents, as Resolve
// does, indexing the list once: Resolve indexes it on every call, which
// costs as much as the list.
type Resolver struct{ x agentIndex }

// NewResolver returns a Resolver of agents (qualified names).
func NewResolver(agents []string) *Resolver { return &Resolver{x: newAgentIndex(agents)} }

// Resolve is Resolve(agents, ref) of the resolver's agents.
func (r *Resolver) Resolve(ref string) string {
	q, _ := r.x.resolve(ref)
	return q
}

// check applies the rules between definitions.
func (s *Set) check(opts Options) Report {
	var probs problemList
	add := func(def Def, path, format string, args ...interface{}) {
		line := 0
		if def.d != nil {
			line = def.d.lineAt(path)
		}
		probs.add(def.File, line, path, SeverityError, format, args...)
	}
	names := append([]string(nil), opts.KnownAgents...)
	first := map[string]Def{}
	for _, def := range s.Defs {
		key := string(def.Kind) + " " + def.Name()
		if def.Name() == "" {
			continue
		}
		if prev, dup := first[key]; dup {
			add(def, "/name", "%s %s is also defined in %s", def.Kind, quote(def.Name()), clip(prev.File))
			continue
		}
		first[key] = def
		if def.Kind == KindAgent {
			names = append(names, def.Name())
		}
	}
	x := newAgentIndex(names)
	// check reports ref if it resolves to no agent or to several; what
	// names it, ending in the reference ("team \"t\" uses agent \"x\"").
	check := func(def Def, path, what, ref string) {
		q, amb := x.resolve(ref)
		switch {
		case len(amb) > 0:
			add(def, path, "%s, which is ambiguous: %s (qualify it)", what, elide(amb, ", "))
		case q == "":
			add(def, path, "%s, which is defined nowhere", what)
		}
	}
	for _, def := range s.Defs {
		switch def.Kind {
		case KindTeam:
			for i, a := range def.Team.Agents {
				if strings.TrimSpace(a) != "" {
					check(def, index("/agents", i), fmt.Sprintf("team %s uses agent %s", quote(def.Team.Name), quote(a)), a)
				}
			}
		case KindAgent:
			dl := def.Agent.Delegation
			if dl == nil {
				continue
			}
			for i, a := range dl.CanDelegateTo {
				check(def, index("/delegation/can_delegate_to", i), fmt.Sprintf("agent %s delegates to %s", quote(def.Name()), quote(a)), a)
			}
			for i, a := range dl.CanReceiveFrom {
				if a != LeadAgent {
					check(def, index("/delegation/can_receive_from", i), fmt.Sprintf("agent %s receives from %s", quote(def.Name()), quote(a)), a)
				}
			}
		}
	}
	return Report{Problems: probs.problems()}
}
