package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cortexgraph/cortex/internal/pathtext"
	"github.com/cortexgraph/cortex/internal/proc"
)

// DiscoveryFile is the name of the discovery file a serving process
// writes in the store directory.
const DiscoveryFile = "cortex-server.json"

// ErrNoServer means no running server was found for a store directory: no
// discovery file, or a stale one (its process is gone, or its pid now
// names another process).
var ErrNoServer = errors.New("no server running")

// Discovery is the content of the discovery file: how other processes
// reach the server that holds a store directory.
type Discovery struct {
	PID     int    `json:"pid"`
	Socket  string `json:"socket,omitempty"`  // Unix socket path; "" if none
	Address string `json:"address,omitempty"` // TCP host:port; "" if none
	// CertSHA256 is the SHA-256 (hex) of the certificate the server
	// presents on Address when it serves TLS there ("" for plain HTTP):
	// a client on this machine reaches Address over https and trusts that
	// certificate only, whatever names it was issued for.
	CertSHA256 string    `json:"certSha256,omitempty"`
	Started    time.Time `json:"started"`
	// Start identifies the start of process PID, set by WriteDiscovery
	// where the machine tells it (Linux: the boot id and the process's
	// start time, /proc/PID/stat field 22; "" elsewhere). A process that
	// has PID later (the pid reused after the server was killed, as in a
	// restarted container) has another: the file is then stale.
	Start string `json:"start,omitempty"`
	// Dir is the store directory the server holds (absolute), set by
	// WriteDiscovery: a copy of the directory, discovery file included,
	// is not served by it.
	Dir string `json:"dir,omitempty"`
	// Stopping is when the server began to shut down (zero while it
	// serves): it accepts no new connection from then on, lets the
	// requests in flight finish and releases the store by StopBy at the
	// latest (its process exits then). A command that finds the store
	// locked meanwhile waits for it (cortexctl does) instead of failing;
	// the server removes the file once the store is released.
	Stopping time.Time `json:"stopping,omitzero"`
	StopBy   time.Time `json:"stopBy,omitzero"`
}

// WriteDiscovery writes d as the discovery file of store directory dir
// (mode 0600), replacing any: written to a temporary file and renamed, a
// reader never sees half of it. The caller holds the store, so a file
// already there is stale. It sets d.Dir, and d.Start if "", from d.PID.
func WriteDiscovery(dir string, d Discovery) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("discovery file: %w", err)
	}
	d.Dir = abs
	if d.Start == "" {
		d.Start = proc.StartID(d.PID)
	}
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("discovery file: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+DiscoveryFile+".*")
	if err != nil {
		return fmt.Errorf("discovery file: %w", err)
	}
	defer os.Remove(f.Name()) // after the rename: nothing
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("discovery file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("discovery file: %w", err)
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, DiscoveryFile)); err != nil {
		return fmt.Errorf("discovery file: %w", err)
	}
	return nil
}

// RemoveDiscovery removes the discovery file of dir if it names process
// pid (another server's is left alone); a missing file is not an error.
func RemoveDiscovery(dir string, pid int) error {
	d, err := readDiscovery(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil || d.PID != pid {
		return err
	}
	if err := os.Remove(filepath.Join(dir, DiscoveryFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("discovery file: %w", err)
	}
	return nil
}

// ReadDiscovery returns the discovery file of store directory dir. A
// missing file, one whose process is gone (stale: left by a server that
// was killed), one whose pid names a process that started at another time
// than the one that wrote it (stale: the pid was reused; told only where
// Discovery.Start is known, on Linux; elsewhere a caller should also check
// that the server answers, as cortexctl does), or one written for another
// directory (dir is a copy of the served one) is ErrNoServer.
func ReadDiscovery(dir string) (Discovery, error) {
	d, err := readDiscovery(dir)
	if errors.Is(err, os.ErrNotExist) {
		return Discovery{}, fmt.Errorf("%w in %s", ErrNoServer, pathtext.Quote(dir))
	}
	if err != nil {
		return Discovery{}, err
	}
	if !proc.Alive(d.PID) {
		return Discovery{}, fmt.Errorf("%w in %s (the discovery file of process %d is stale)", ErrNoServer, pathtext.Quote(dir), d.PID)
	}
	if d.Start != "" && proc.StartID(d.PID) != d.Start {
		return Discovery{}, fmt.Errorf("%w in %s (the discovery file of process %d is stale: that pid is now another process's)", ErrNoServer, pathtext.Quote(dir), d.PID)
	}
	if d.Dir != "" && !sameDir(d.Dir, dir) {
		return Discovery{}, fmt.Errorf("%w in %s (its discovery file is that of %s, which process %d serves: a copy)", ErrNoServer, pathtext.Quote(dir), pathtext.Quote(d.Dir), d.PID)
	}
	return d, nil
}

// sameDir reports whether paths a and b name the same directory (through
// symbolic links too).
func sameDir(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

func readDiscovery(dir string) (Discovery, error) {
	data, err := os.ReadFile(filepath.Join(dir, DiscoveryFile))
	if err != nil {
		return Discovery{}, err
	}
	var d Discovery
	if err := json.Unmarshal(data, &d); err != nil {
		return Discovery{}, fmt.Errorf("discovery file %s: %w", filepath.Join(dir, DiscoveryFile), err)
	}
	return d, nil
}
