package engine

import (
	"io/fs"
	"path/filepath"
)

// DiskSize returns the bytes the store uses on disk: the space allocated to
// the files of its directory (Badger preallocates sparse value-log and
// memtable files, so their length overstates it where the system reports
// allocated blocks). It is current, unlike Badger's own size estimate, which
// is refreshed once a minute and reads 0 after Open. For an in-memory store
// it is Badger's estimate. A file that vanishes while it is measured is
// skipped.
func (s *Store) DiskSize() int64 {
	if s.opts.inMemory {
		lsm, vlog := s.db.Size()
		return lsm + vlog
	}
	var total int64
	_ = filepath.WalkDir(s.dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			total += allocated(info)
		}
		return nil
	})
	return total
}
