// Package sorted holds the data of the engine's sorted writes, without the
// store: the batch of Badger entries a chunk or a journaled delta writes
// (PutBuf), a segment of such batches (Segment), its sort into disjoint key
// groups, each sorted by key with the latest batch's entry winning
// (SortedSegment, a radix sort on the first 24 bytes of a key), the spill of
// a segment's in-memory entries to temporary run files in a directory and
// the merge of a group from its runs and memory, and the encoding of the
// records Badger's stream writer reads (AppendStreamKV).
//
// The engine (cortex/internal/engine) decides when to spill and stream,
// holds the store's gate while it streams, and owns the undo file that
// makes a stream all or nothing; this package knows nothing of Badger's
// database, the store or its namespaces. A Segment, its runs and a
// SortedSegment are for one goroutine at a time, except that a spill runs
// on a goroutine of its own (SpillAsync, WaitSpill) and SortGroup may sort
// different groups concurrently (ParallelGroups).
package sorted
