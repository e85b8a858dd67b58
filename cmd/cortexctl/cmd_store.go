package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

func storeCommands(e *env) []*cli.Command {
	return []*cli.Command{
		{
			Name:      "import",
			Usage:     "load RDF files (N-Triples, N-Quads, Turtle) into the namespace",
			ArgsUsage: "FILE... (- for standard input, with --format)",
			Description: `Each file is one import: its blank nodes never merge with other imports'.
The format comes from the file extension (.nt .nq .ttl) unless --format is given.
Triples go to the default graph, N-Quads keep their graphs; --graph IRI puts
everything into one named graph, --graph default into the default graph.
Relative IRIs resolve against the file's file:// URL unless --base is given.
Every argument is checked (files exist, formats are known, IRIs are
absolute) before anything is written; a file that fails stops the command,
the files before it staying imported (the error names them and those after
it, not imported). Imports are written in segments of up to ~2M quads
(large ones streamed, all or nothing even if the process is killed) or
chunks of 8,192 quads: a syntax error in the first chunk leaves nothing
behind; a later one reports how many quads were committed.

Each import prints its import id on stderr when it starts and is recorded in
the store until it completes. If it is interrupted (killed, Ctrl-C, a full
disk), running the same command again resumes it: the file, unchanged, is
imported again with the same id, so the graph converges (blank nodes are not
duplicated). Of several files, only the interrupted one resumes: re-run
the command with it and the files after it (those before it completed, and
would be imported again, their blank nodes twice). A file changed since (e.g. a syntax error half-way, fixed) is
imported anew; to converge with what the interrupted import wrote, re-run it
with --import-id and the id printed. The same file with another --graph
(or --graph default, or none), or another --base, than the interrupted
import's is refused (exit 7) before anything is written: give the first one again to resume,
or --import-id NEW to import the file anew: the interrupted import stays
unfinished (the command without --import-id still resumes it) and the new
one is not recorded (re-run it with --import-id NEW). Standard input and
pipes cannot be recognised again: re-run them with --import-id.

Through a server (--server, or a server that holds --data), each file is
streamed to it (POST /ns/NS/import), with the same rules.

Examples:
   cortexctl import data.ttl
   cortexctl import a.nt b.nt --graph http://example.org/g1
   curl -s https://example.org/x.nq | cortexctl import -f nq -`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "graph", Aliases: []string{"g"}, Usage: "graph IRI to import everything into, or 'default': the default graph (N-Quads lose their graphs)"},
				&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "input format: " + rdfFormatNames() + " (default: from the file extension)"},
				&cli.StringFlag{Name: "base", Usage: "absolute base IRI for relative IRIs (default: the file's file:// URL; standard input has none, so a relative IRI in it is a syntax error)"},
				&cli.StringFlag{Name: "import-id", Usage: "blank-node scope of the import (to resume a failed one)"},
				summaryJSONFlag(),
			},
			Action: func(c *cli.Context) error { return importCmd(c, e) },
		},
		{
			Name:  "export",
			Usage: "write the namespace (or one graph) as N-Quads, N-Triples or Turtle",
			Description: `Without --graph every graph of the namespace is written. --graph IRI selects
one named graph (one that holds no quad does not exist: exit 3, nothing
written), --graph default the default graph. N-Triples and Turtle
carry no graph names: several graphs' triples are written without the
graphs (a triple once per graph that holds it). The format is --format, else -o's extension (.nq .nt .ttl; another
extension is an error), else (no extension, /dev/stdout) N-Quads. -o FILE is written to a temporary
file renamed into place (a failed export leaves FILE as it was; FILE keeps
its permissions); a device or named pipe is written in place; a file in
the store directory (--data) is refused (exit 7). The temporary
file, .FILE.RANDOM.cortexctl-tmp, of an export killed with kill -9 is
removed by the next export to FILE. With -o, a
summary is printed (--json: as JSON). Through a server, the server writes the export
(GET /ns/NS/export) in full before it sends it.

Examples:
   cortexctl export > backup.nq
   cortexctl export --graph default -o default.ttl
   cortexctl export -f nt -o dump.txt --json`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "graph", Aliases: []string{"g"}, Usage: "graph IRI, or 'default' (default: every graph)"},
				&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: rdfFormatNames() + " (default: from -o's extension, else nquads)"},
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file (default: standard output)"},
				summaryJSONFlag(),
			},
			Action: func(c *cli.Context) error { return exportCmd(c, e) },
		},
		{
			Name:  "graphs",
			Usage: "list the graphs of the namespace with their quad counts",
			Description: `JSON: [{graph, quads}], graph null for the default graph.

Example:
   cortexctl --namespace acme graphs --json`,
			Flags:  outputFlags(),
			Action: func(c *cli.Context) error { return graphsCmd(c, e) },
		},
		{
			Name:  "stats",
			Usage: "show store and namespace statistics",
			Description: `JSON: {store, diskBytes, namespaces, namespace, quads, graphs, unfinishedImports: [{id, source, started}]}.

Example:
   cortexctl stats --json`,
			Flags:  outputFlags(),
			Action: func(c *cli.Context) error { return statsCmd(c, e) },
		},
	}
}

// rdfFormatNames lists the RDF format names that import and export take and
// their short names (the file extensions), e.g. "nquads (nq)|ntriples
// (nt)|turtle (ttl)": the formats rdfio reads (RDF/XML, which it only
// writes, is for query results).
func rdfFormatNames() string {
	var out []string
	for _, n := range rdfio.ReadableNames() {
		f, _ := rdfio.Lookup(n)
		var short []string
		for _, e := range f.Extensions {
			short = append(short, strings.TrimPrefix(e, "."))
		}
		if len(short) > 0 {
			n += " (" + strings.Join(short, ", ") + ")"
		}
		out = append(out, n)
	}
	return strings.Join(out, "|")
}

// rdfFormat resolves a --format value of import or export: a format name
// (turtle) or its file extension as a short name (ttl), of a format rdfio
// reads (see rdfFormatNames). Another is an error wrapping
// rdfio.ErrUnknownFormat that names the formats import and export take
// (not RDF/XML, which only query results are written in).
func rdfFormat(name string) (string, error) {
	f, err := rdfio.Lookup(name)
	if err != nil && !strings.ContainsAny(name, "./") {
		if xf, xerr := rdfio.ByExtension("x." + name); xerr == nil {
			f, err = xf, nil
		}
	}
	if err != nil || !f.Readable() {
		return "", fmt.Errorf("%w %q (known: %s)", rdfio.ErrUnknownFormat, name, strings.ReplaceAll(rdfFormatNames(), "|", ", "))
	}
	return f.Name, nil
}

// rdfFormatOf returns the format of file path by its extension, of a format
// rdfio reads (see rdfFormatNames); else an error as rdfFormat's.
func rdfFormatOf(path string) (string, error) {
	f, err := rdfio.ByExtension(path)
	if err != nil || !f.Readable() {
		var exts []string
		for _, n := range rdfio.ReadableNames() {
			f, _ := rdfio.Lookup(n)
			exts = append(exts, f.Extensions...)
		}
		return "", fmt.Errorf("%w for file %q (known extensions: %s)", rdfio.ErrUnknownFormat, path, strings.Join(exts, ", "))
	}
	return f.Name, nil
}

// checkBase validates a --base value: empty, or an absolute IRI.
func checkBase(s string) error {
	if s == "" {
		return nil
	}
	if err := cortex.CheckIRI(s); err != nil {
		return fmt.Errorf("%w: --base: %v", errInvalid, err)
	}
	if !api.HasScheme(s) {
		return fmt.Errorf("%w: --base %q is not an absolute IRI (e.g. http://example.org/)", errInvalid, s)
	}
	return nil
}

// parseGraph reads a --graph value: an absolute IRI, or "default" (nil).
func parseGraph(s string) (quad.Value, cortex.Scope, error) {
	if s == "" {
		return nil, cortex.AllGraphs, nil
	}
	if s == "default" {
		return nil, cortex.DefaultGraph, nil
	}
	if len(s) > 1 && s[0] == '<' && s[len(s)-1] == '>' {
		s = s[1 : len(s)-1]
	}
	if err := cortex.CheckIRI(s); err != nil {
		return nil, 0, fmt.Errorf("%w: --graph: %v", errInvalid, err)
	}
	if !api.HasScheme(s) {
		return nil, 0, fmt.Errorf("%w: --graph %q is not an absolute IRI", errInvalid, s)
	}
	return quad.IRI(s), cortex.OneGraph, nil
}

// importSource is one FILE argument of import, checked and opened before
// anything is written.
type importSource struct {
	name   string // as given; "-" for standard input
	format string
	r      io.Reader
	size   int64
	resume *cortex.ImportSource // nil for standard input
}

type importJSON struct {
	File    string  `json:"file"`
	Quads   int64   `json:"quads"`
	Seconds float64 `json:"seconds"`
}

func importCmd(c *cli.Context, e *env) error {
	if c.NArg() == 0 {
		return usagef("import: no file given (use - for standard input)")
	}
	if slices.Contains(c.Args().Slice(), "") {
		return usagef("import: want FILE (not empty)")
	}
	out, err := outputFormat(c)
	if err != nil {
		return err
	}
	g, scope, err := parseGraph(c.String("graph"))
	if err != nil {
		return err
	}
	toDefault := scope == cortex.DefaultGraph
	if err := checkBase(c.String("base")); err != nil {
		return err
	}
	if c.NArg() > 1 && c.String("import-id") != "" {
		return usagef("import: --import-id applies to a single file")
	}
	if id := c.String("import-id"); id != "" {
		if err := cortex.CheckImportID(id); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	format := ""
	if f := c.String("format"); f != "" {
		if format, err = rdfFormat(f); err != nil {
			return usagef("import: --format: %v", err)
		}
	}
	// Check every argument before the store is opened: a missing second
	// file must not leave the first one imported.
	var srcs []importSource
	defer func() {
		for _, src := range srcs {
			if f, ok := src.r.(*os.File); ok && f != e.stdin {
				f.Close()
			}
		}
	}()
	stdin := false
	for _, path := range c.Args().Slice() {
		src := importSource{name: path, format: format, r: e.stdin}
		if path == "-" {
			if stdin {
				return usagef("import: - (standard input) given twice")
			}
			stdin = true
			if format == "" {
				return usagef("import: reading standard input needs --format")
			}
		} else {
			if src.format == "" {
				if src.format, err = rdfFormatOf(path); err != nil {
					return fmt.Errorf("import %s: %w (use --format)", pathText(path), err)
				}
			}
			f, err := os.Open(path)
			if err != nil {
				return fmt.Errorf("import: %w", quotePath(err))
			}
			src.r = f
			st, err := f.Stat()
			if err != nil {
				srcs = append(srcs, src)
				return fmt.Errorf("import: %w", quotePath(err))
			}
			if st.IsDir() {
				srcs = append(srcs, src)
				return fmt.Errorf("%w: import: %s is a directory", errInvalid, pathText(path))
			}
			if st.Mode().IsRegular() {
				// Only a regular file can be recognised again (and read
				// twice: a pipe's first bytes would be lost to FileSource).
				src.size = st.Size()
				rs, err := cortex.FileSource(path)
				if err != nil {
					srcs = append(srcs, src)
					return fmt.Errorf("import: %w", quotePath(err))
				}
				src.resume = &rs
			}
		}
		srcs = append(srcs, src)
	}
	missing, fresh := storeDirBefore(e.dataDir)
	importRDF, undo, err := e.importer(c.Context, g)
	if err != nil {
		return err
	}
	var done []importJSON
	for _, src := range srcs {
		bar := e.newProgress("importing "+filepath.Base(src.name), src.size, true)
		// The bar follows the bytes read: large imports write in segments of
		// up to ~2M quads, so commits alone would move it in big jumps.
		cr := &countingReader{r: src.r, onRead: bar.set}
		start := time.Now()
		res, err := importRDF(cr, cortex.RDFImportOptions{
			Format: src.format, File: pathForErrors(src.name), Base: c.String("base"), Graph: g, DefaultGraph: toDefault,
			NoFileBase: src.name == "-", // standard input has no base but --base
			ImportID:   c.String("import-id"),
			Resume:     src.resume,
			OnStart:    func(st cortex.ImportStart) { e.importStarted(src, st) },
			Progress:   func(int64) { bar.set(cr.n.Load()) },
		})
		bar.finish()
		if err != nil {
			if len(done) == 0 {
				undo() // a namespace created for it, if still empty, is deleted
				var ie *cortex.ImportError
				if fresh && e.store != nil && errors.As(err, &ie) && ie.Committed == 0 {
					// The store this command created holds nothing.
					e.removeCreatedStore(missing)
				}
			}
			if out == formatJSON && len(done) > 0 {
				_ = writeJSON(e.stdout, done) // what was imported before the failure
			}
			return importFailed(src.name, err, done, srcs[len(done)+1:])
		}
		d := time.Since(start)
		done = append(done, importJSON{File: src.name, Quads: res.Committed, Seconds: d.Seconds()})
		if out == formatTable {
			fmt.Fprintf(e.stdout, "imported %s from %s in %s (%s/s)\n", plural(res.Committed, "quad"), cell(src.name),
				d.Round(time.Millisecond), groupDigits(int64(float64(res.Committed)/d.Seconds())))
		}
	}
	if out == formatJSON {
		return writeJSON(e.stdout, done)
	}
	return nil
}

// importFailed explains the failed import of file name: that an
// interrupted one was interrupted, and, when other files were given, which
// ones were imported before it and which ones were not (each file is an
// import of its own: the error's "nothing was imported" is about name).
func importFailed(name string, err error, done []importJSON, after []importSource) error {
	if errors.Is(err, context.Canceled) {
		err = fmt.Errorf("import %s: interrupted: %w", pathText(pathForErrors(name)), err)
	}
	var notes []string
	if len(done) > 0 {
		var files []string
		for _, d := range done {
			files = append(files, fmt.Sprintf("%s (%s)", oneLine(d.File), plural(d.Quads, "quad")))
		}
		notes = append(notes, "the files before it were imported: "+strings.Join(files, ", "))
	}
	if len(after) > 0 {
		var files []string
		for _, a := range after {
			files = append(files, oneLine(a.name))
		}
		notes = append(notes, "the files after it were not: "+strings.Join(files, ", "))
	}
	if len(notes) == 0 {
		return err
	}
	return fmt.Errorf("%w; %s", err, strings.Join(notes, "; "))
}

// importer returns the function that imports one source into the
// namespace: through the server the command goes through (the base, if
// not given, is the file's file:// URL here, as a local import's), or
// into the namespace itself, created if needed. undo, called when the
// first import failed, deletes a namespace created for it if nothing was
// written to it (see namespaceForWrite; through a server, the server
// does that).
func (e *env) importer(ctx context.Context, g quad.Value) (imp func(io.Reader, cortex.RDFImportOptions) (cortex.ImportResult, error), undo func(), err error) {
	rc, err := e.remote()
	if err != nil {
		return nil, nil, err
	}
	if rc == nil {
		ns, undo, err := e.namespaceForWrite(ctx)
		if err != nil {
			return nil, nil, err
		}
		return func(r io.Reader, o cortex.RDFImportOptions) (cortex.ImportResult, error) {
			return ns.ImportRDF(ctx, r, o)
		}, undo, nil
	}
	graph := ""
	if iri, ok := g.(quad.IRI); ok {
		graph = string(iri)
	}
	return func(r io.Reader, o cortex.RDFImportOptions) (cortex.ImportResult, error) {
		base := o.Base
		if base == "" && !o.NoFileBase {
			var err error
			if base, err = rdfio.FileBase(o.File); err != nil {
				return cortex.ImportResult{}, fmt.Errorf("import %s: %w", pathText(o.File), err)
			}
		}
		return rc.Import(ctx, r, client.ImportOptions{
			Format: o.Format, File: o.File, Base: base, Graph: graph, DefaultGraph: o.DefaultGraph, ImportID: o.ImportID, Resume: o.Resume, OnStart: o.OnStart,
		})
	}, func() {}, nil
}

// importStarted says on stderr which import id an import uses, and whether
// it resumes an interrupted one.
func (e *env) importStarted(src importSource, st cortex.ImportStart) {
	name := oneLine(src.name)
	switch {
	case src.resume == nil:
		fmt.Fprintf(e.stderr, "cortexctl: importing %s as import %s (a stream cannot be recognised again: if it is interrupted, re-run it with --import-id %s)\n",
			oneLine(pathForErrors(src.name)), st.ID, st.ID)
	case st.Resumed:
		fmt.Fprintf(e.stderr, "cortexctl: resuming import %s of %s, interrupted after it started at %s\n",
			st.ID, name, st.Started.UTC().Format(time.RFC3339))
	case st.Kept != nil:
		// --import-id NEW while an import of the same file is
		// unfinished: that one stays recorded, this one is not.
		k := st.Kept
		fmt.Fprintf(e.stderr, "cortexctl: import %s of %s (started %s) stays unfinished: running the command without --import-id resumes it (with its --graph and --base)\n",
			k.ID, name, k.Started.UTC().Format(time.RFC3339))
		fmt.Fprintf(e.stderr, "cortexctl: importing %s as import %s (if it is interrupted, re-run it with --import-id %s)\n", name, st.ID, st.ID)
	default:
		if r := st.Replaced; r != nil && r.ID == st.ID {
			// --import-id gave the interrupted import's id: what it
			// wrote and this import converge.
			fmt.Fprintf(e.stderr, "cortexctl: %s changed since its import %s (started %s) was interrupted: importing it under the id of its interrupted import %s, so that its blank nodes converge with what that import wrote\n",
				name, r.ID, r.Started.UTC().Format(time.RFC3339), r.ID)
		} else if r != nil {
			fmt.Fprintf(e.stderr, "cortexctl: %s changed since its import %s (started %s) was interrupted: importing it anew; what that import wrote stays (to import the file under that import's id instead, so that its blank nodes converge: cortexctl import %s --import-id %s)\n",
				name, r.ID, r.Started.UTC().Format(time.RFC3339), name, r.ID)
		}
		fmt.Fprintf(e.stderr, "cortexctl: importing %s as import %s (if it is interrupted, running the same command again resumes it)\n", name, st.ID)
	}
}

// pathForErrors returns the name used in file:line:column messages.
func pathForErrors(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// exportTempSuffix ends the names of the temporary files export -o
// writes: ".FILE.RANDOM.cortexctl-tmp" beside FILE (see exportTempName).
const exportTempSuffix = ".cortexctl-tmp"

// exportTempPrefix returns the start of the names of the temporary files
// of an export to target: "." and target's name, cut to 200 bytes (at a
// character's start) so that the whole name stays within the 255 bytes a
// file name may have, and ".".
func exportTempPrefix(target string) string {
	base := filepath.Base(target)
	for len(base) > 200 {
		_, n := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-n]
	}
	return "." + base + "."
}

// isExportTemp reports whether name (in the directory of target) is the
// name of a temporary file of an export to target: its prefix, 1 to 13
// lower-case letters and digits (a random number in base 36), and
// exportTempSuffix.
func isExportTemp(name, target string) bool {
	mid, ok := strings.CutPrefix(name, exportTempPrefix(target))
	if !ok {
		return false
	}
	if mid, ok = strings.CutSuffix(mid, exportTempSuffix); !ok || len(mid) == 0 || len(mid) > 13 {
		return false
	}
	return strings.Trim(mid, "0123456789abcdefghijklmnopqrstuvwxyz") == ""
}

// sweepExportTemps removes the temporary files that exports to target
// killed before they could remove them (kill -9, a power cut) left in its
// directory, and only those: names isExportTemp matches, regular files of
// this user that no running export holds locked (removeStaleExportTemp;
// where files cannot be locked, none is removed).
func sweepExportTemps(target string) {
	dir := filepath.Dir(target)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if isExportTemp(e.Name(), target) {
			removeStaleExportTemp(filepath.Join(dir, e.Name()))
		}
	}
}

// createExportTemp creates the temporary file of an export to target,
// named by exportTempPrefix, a random suffix and exportTempSuffix, with
// the permissions any new file gets (0666 less the umask), not
// os.CreateTemp's 0600: it becomes the export's file. It is locked
// (lockExportTemp) until lock is closed, so that sweepExportTemps leaves
// it alone.
func createExportTemp(target string) (f, lock *os.File, err error) {
	prefix := filepath.Join(filepath.Dir(target), exportTempPrefix(target))
	for i := 0; ; i++ {
		name := prefix + strconv.FormatUint(rand.Uint64(), 36) + exportTempSuffix
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		lock, ok := lockExportTemp(f, name)
		if !ok && i < 100 {
			f.Close() // swept before it was locked: another name
			continue
		}
		return f, lock, nil
	}
}

// exportFile is the file export -o writes. For a regular file (new, or
// existing: through a symbolic link, the file it points to, even one that
// does not exist yet), it is a
// temporary file beside it, given the existing file's permissions and
// renamed over it by commit: a failed export leaves the file as it was.
// Anything else that exists (a device such as /dev/stdout, a named pipe)
// is written in place, as the shell's > does: renaming over it would
// replace it with a regular file.
//
// The temporary file is named ".FILE.RANDOM.cortexctl-tmp". An export
// killed with SIGKILL (or a power cut) cannot remove it; the next export
// to FILE does (sweepExportTemps), leaving those of exports still running
// (each holds a lock on its own, released when its process ends) and any
// file of another name.
type exportFile struct {
	*os.File
	lock   *os.File // holds the temporary file's lock; nil if none
	out    string   // the path given to -o
	target string   // the file renamed over; "" when writing in place
	done   bool
}

// createExportFile opens the file export -o out writes (see exportFile).
func createExportFile(out string) (*exportFile, error) {
	fi, err := os.Stat(out) // through symbolic links
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("%w: export: -o %s is a directory", errInvalid, pathText(out))
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(out, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("export: %w", quotePath(err))
		}
		return &exportFile{File: f, out: out}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("export: create %s: %w", pathText(out), pathErr(err))
	}
	exists, target := err == nil, out
	if exists {
		// Replace the file a symbolic link points to, not the link.
		if target, err = filepath.EvalSymlinks(out); err != nil {
			return nil, fmt.Errorf("export: %w", quotePath(err))
		}
	} else if target, err = danglingLinkTarget(out); err != nil {
		// A dangling link: create the file it points to, as > does.
		return nil, fmt.Errorf("export: create %s: %w", pathText(out), quotePath(err))
	}
	sweepExportTemps(target)
	f, lock, cerr := createExportTemp(target)
	if cerr != nil {
		// Name the file asked for, not the temporary one.
		return nil, fmt.Errorf("export: create %s: %w", pathText(out), pathErr(cerr))
	}
	if exists {
		// An existing file keeps its permissions (a private one stays
		// private).
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			f.Close()
			os.Remove(f.Name())
			if lock != nil {
				lock.Close()
			}
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	return &exportFile{File: f, lock: lock, out: out, target: target}, nil
}

// outsideStore returns an invalid-value error if the file export -o out
// writes (through symbolic links) is in the store directory data or under
// it: replacing a file of the store (MANIFEST) with the export would
// destroy the store.
func outsideStore(out, data string) error {
	if data == "" {
		return nil
	}
	store, err := filepath.EvalSymlinks(data)
	if err != nil {
		return nil // no store there
	}
	target, err := filepath.EvalSymlinks(out)
	if err != nil {
		if target, err = danglingLinkTarget(out); err != nil {
			return nil // createExportFile reports it
		}
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(target))
	if err != nil {
		return nil // no such directory: createExportFile reports it
	}
	if store, err = filepath.Abs(store); err != nil {
		return nil
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil
	}
	rel, err := filepath.Rel(store, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	return fmt.Errorf("%w: export: -o %s is in the store directory %s: writing it would damage the store", errInvalid, pathText(out), pathText(data))
}

// danglingLinkTarget returns the path that out, which does not exist
// through symbolic links, names: the file a dangling symbolic link (or a
// chain of them) points to, else out itself.
func danglingLinkTarget(out string) (string, error) {
	p := out
	for range 40 {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", pathErr(err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = dest
	}
	return "", errors.New("too many levels of symbolic links")
}

// pathErr returns the cause of a *fs.PathError (whose path may be a
// temporary file's), else err.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// commit closes the file and renames it into place; its lock is released
// after that (until then, no sweep removes it).
func (f *exportFile) commit() error {
	f.done = true
	if f.lock != nil {
		defer f.lock.Close()
	}
	if err := f.Close(); err != nil {
		if f.target != "" {
			os.Remove(f.Name())
		}
		return fmt.Errorf("export: write %s: %w", pathText(f.out), quotePath(err))
	}
	if f.target == "" {
		return nil
	}
	if err := os.Rename(f.Name(), f.target); err != nil {
		os.Remove(f.Name())
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err
		}
		return fmt.Errorf("export: replace %s: %w", pathText(f.out), err)
	}
	return nil
}

// abort closes the file and removes it if it is a temporary one, unless
// commit was called.
func (f *exportFile) abort() {
	if f.done {
		return
	}
	f.Close()
	if f.target != "" {
		os.Remove(f.Name())
	}
	if f.lock != nil {
		f.lock.Close()
	}
}

func exportCmd(c *cli.Context, e *env) error {
	if c.NArg() > 0 {
		return usagef("export: unexpected argument %q (the output file is -o FILE)", c.Args().First())
	}
	outFmt, err := outputFormat(c)
	if err != nil {
		return err
	}
	g, scope, err := parseGraph(c.String("graph"))
	if err != nil {
		return err
	}
	out := c.String("output")
	toFile := out != "" && out != "-"
	if outFmt == formatJSON && !toFile {
		return usagef("export: --json prints the summary of an export to a file: give -o FILE")
	}
	if toFile {
		// Before anything is read: a directory is no file to write.
		if fi, err := os.Stat(out); err == nil && fi.IsDir() {
			return fmt.Errorf("%w: export: -o %s is a directory", errInvalid, pathText(out))
		}
		if err := outsideStore(out, e.dataDir); err != nil {
			return err
		}
	}
	var format string
	switch {
	case c.String("format") != "":
		if format, err = rdfFormat(c.String("format")); err != nil {
			return usagef("export: --format: %v", err)
		}
	case toFile && filepath.Ext(out) != "":
		if format, err = rdfFormatOf(out); err != nil {
			return fmt.Errorf("export -o %s: %w (give --format)", pathText(out), err)
		}
	default:
		// No extension (a file such as "out", /dev/stdout): N-Quads.
		format = rdfio.NQuads
	}
	export, total, err := e.exporter(c.Context, c.String("graph"), g, scope, format)
	if err != nil {
		return err
	}
	w := e.stdout
	var f *exportFile
	if toFile {
		if f, err = createExportFile(out); err != nil {
			return err
		}
		defer f.abort()
		w = f.File
	}
	bar := e.newProgress("exporting", total, false)
	n, err := export(w, bar.set)
	bar.finish()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			// As a stopped query says: what was written is no export.
			what := "the output is incomplete"
			if f != nil && f.target != "" {
				what = out + " was left as it was"
			}
			return fmt.Errorf("export interrupted: %s: %w", what, err)
		}
		return err
	}
	if f == nil {
		return nil
	}
	if err := f.commit(); err != nil {
		return err
	}
	sum := struct {
		File   string `json:"file"`
		Format string `json:"format"`
		Quads  int64  `json:"quads"`
	}{out, format, n}
	return printResult(c, e.stdout, sum, func() error {
		_, err := fmt.Fprintf(e.stdout, "exported %s to %s (%s)\n", plural(n, "quad"), cell(out), format)
		return err
	})
}

// exporter returns the function that exports the selected quads (graph,
// as --graph gives it, read into g and scope) in format, and their
// number if known (for the progress bar): through the server the command
// goes through, or from the namespace itself. A named graph g that holds
// no quad is an error wrapping api.ErrNotFound (through a server, when
// the function runs), before anything is written.
func (e *env) exporter(ctx context.Context, graph string, g quad.Value, scope cortex.Scope, format string) (func(io.Writer, func(int64)) (int64, error), int64, error) {
	rc, err := e.remote()
	if err != nil {
		return nil, 0, err
	}
	if rc != nil {
		if iri, ok := g.(quad.IRI); ok {
			graph = string(iri) // without <>
		}
		return func(w io.Writer, _ func(int64)) (int64, error) {
			return rc.Export(ctx, w, client.ExportOptions{Format: format, Graph: graph})
		}, 0, nil
	}
	ns, err := e.namespace(ctx, accessRead)
	if err != nil {
		return nil, 0, err
	}
	if err := api.CheckGraph(ctx, ns, ns.Name(), g); err != nil {
		return nil, 0, err
	}
	total, _ := ns.Size(ctx)
	return func(w io.Writer, progress func(int64)) (int64, error) {
		return ns.Export(ctx, w, format, cortex.ExportOptions{Graph: g, Scope: scope, Progress: progress})
	}, total, nil
}

func graphsCmd(c *cli.Context, e *env) error {
	if c.NArg() > 0 {
		return usagef("graphs: unexpected argument %q (the namespace is --namespace NS)", c.Args().First())
	}
	if _, err := outputFormat(c); err != nil {
		return err
	}
	rows, err := e.graphs(c)
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, rows, func() error {
		t := newTable(e.stdout, true, "QUADS", "GRAPH")
		for _, g := range rows {
			t.row(groupDigits(g.Quads), g.Name())
		}
		return t.flush()
	})
}

// graphs returns the graphs of the namespace, or of the server's.
func (e *env) graphs(c *cli.Context) ([]api.Graph, error) {
	if rc, err := e.remote(); err != nil || rc != nil {
		if err != nil {
			return nil, err
		}
		return rc.Graphs(c.Context)
	}
	ns, err := e.namespace(c.Context, accessRead)
	if err != nil {
		return nil, err
	}
	gs, err := ns.Graphs(c.Context)
	if err != nil {
		return nil, err
	}
	return api.GraphsOf(gs), nil
}

func statsCmd(c *cli.Context, e *env) error {
	if c.NArg() > 0 {
		return usagef("stats: unexpected argument %q (the namespace is --namespace NS)", c.Args().First())
	}
	if _, err := outputFormat(c); err != nil {
		return err
	}
	st, err := e.stats(c)
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, st, func() error {
		t := newTable(e.stdout, false)
		t.row("store:", st.Store)
		t.row("disk:", plural(st.DiskBytes, "byte"))
		t.row("namespaces:", fmt.Sprintf("%d: %s", len(st.Namespaces), strings.Join(st.Namespaces, ", ")))
		t.row("namespace:", st.Namespace)
		t.row("quads:", groupDigits(st.Quads))
		t.row("graphs:", groupDigits(int64(st.Graphs)))
		if err := t.flush(); err != nil {
			return err
		}
		// Not in the table, whose cells are cut: the path matters.
		for _, u := range st.UnfinishedImports {
			fmt.Fprintf(e.stdout, "unfinished import %s of %s, started %s (the same import command resumes it)\n",
				u.ID, oneLine(u.Source), u.Started.Format(time.RFC3339))
		}
		return nil
	})
}

// stats returns the statistics of the store and the namespace, or of the
// server's.
func (e *env) stats(c *cli.Context) (api.Stats, error) {
	if rc, err := e.remote(); err != nil || rc != nil {
		if err != nil {
			return api.Stats{}, err
		}
		return rc.Stats(c.Context)
	}
	ns, err := e.namespace(c.Context, accessRead)
	if err != nil {
		return api.Stats{}, err
	}
	return api.ReadStats(c.Context, e.store, e.dataDir, ns)
}

// storeDirBefore tells, before a command that may create the store in
// dir opens it, whether it would be creating it: dir is absent (missing
// lists dir and its parents that are absent too, innermost first) or an
// empty directory (missing is empty).
func storeDirBefore(dir string) (missing []string, fresh bool) {
	if dir == "" {
		return nil, false
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		for d := filepath.Clean(dir); ; {
			missing = append(missing, d)
			p := filepath.Dir(d)
			if p == d {
				break
			}
			if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
				break
			}
			d = p
		}
		return missing, true
	}
	ents, err := os.ReadDir(dir)
	return nil, err == nil && len(ents) == 0
}

// storeFile matches the names of the files a store is made of: Badger's
// and the lock file.
var storeFile = regexp.MustCompile(`^(?:MANIFEST|KEYREGISTRY|DISCARD|LOCK|cortex\.lock|[0-9]+\.(?:vlog|sst|mem))$`)

// removeCreatedStore closes the store, which this command created (in an
// absent or empty directory) and which holds nothing (a first import
// failed), and removes it: its files, then the directories in missing
// (storeDirBefore), so that --data is as it was. A file that is not a
// store's, or a directory, in it leaves everything as it is.
func (e *env) removeCreatedStore(missing []string) {
	if err := e.close(); err != nil {
		return // the error is the command's, at its end
	}
	ents, err := os.ReadDir(e.dataDir)
	if err != nil {
		return
	}
	for _, ent := range ents {
		if !ent.Type().IsRegular() || !storeFile.MatchString(ent.Name()) {
			return
		}
	}
	for _, ent := range ents {
		if err := os.Remove(filepath.Join(e.dataDir, ent.Name())); err != nil {
			fmt.Fprintf(e.stderr, "cortexctl: could not remove the empty store created in %s: %v\n", pathText(e.dataDir), err)
			return
		}
	}
	for _, d := range missing {
		if os.Remove(d) != nil {
			return
		}
	}
}
