package sorted

import (
	"bytes"
	"testing"

	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/ristretto/v2/z"
	"google.golang.org/protobuf/proto"
)

// appendStreamKV writes what badger.KVToBuffer would.
func TestAppendStreamKV(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		key, val []byte
		version  uint64
		stream   uint32
		del      bool
	}{
		{[]byte("n:a/log/\x00\x01"), []byte("v"), 1, 1, false},
		{[]byte("k"), nil, 1 << 40, 300, false},
		{bytes.Repeat([]byte("k"), 200), bytes.Repeat([]byte{0xff}, 70_000), 12345, 256, false},
		{[]byte("n:a/log/\x00\x02"), nil, 7, 3, true},
	} {
		buf := z.NewBuffer(1<<20, "test")
		AppendStreamKV(buf, c.key, c.val, c.version, c.stream, c.del)
		AppendStreamDone(buf, c.stream)
		var kvs []*pb.KV
		err := buf.SliceIterate(func(s []byte) error {
			var kv pb.KV
			if err := proto.Unmarshal(s, &kv); err != nil {
				return err
			}
			kvs = append(kvs, &kv)
			return nil
		})
		_ = buf.Release()
		if err != nil {
			t.Fatal(err)
		}
		if len(kvs) != 2 {
			t.Fatalf("%d messages", len(kvs))
		}
		kv := kvs[0]
		wantMeta := []byte(nil)
		if c.del {
			wantMeta = []byte{1} // badger's bitDelete
		}
		if !bytes.Equal(kv.Key, c.key) || !bytes.Equal(kv.Value, c.val) || kv.Version != c.version || kv.StreamId != c.stream || kv.StreamDone ||
			!bytes.Equal(kv.Meta, wantMeta) {
			t.Fatalf("decoded %+v", kv)
		}
		if d := kvs[1]; !d.StreamDone || d.StreamId != c.stream || len(d.Key) != 0 {
			t.Fatalf("done message %+v", d)
		}
	}
}
