package server

import (
	"bytes"
	"encoding/json"
	"testing"
)

// readRequest's one-pass reading of a well-formed request gives what
// reading it field by field gives; every other request is read field by
// field, for its error.
func TestReadRequest_OnePassAsChecked(t *testing.T) {
	for _, raw := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"teams.list"}`,
		`{"jsonrpc":"2.0","id":"a b","method":"findings.add","params":{"team":"t1","agent":"a1","subject":"<http://ex/s>"}}`,
		` { "method" : "x" , "jsonrpc" : "2.0" , "params" : [ 1 , 2 ] , "id" : null } `,
		`{"jsonrpc":"2.0","method":"notify","params":null}`,
		`{"JSONRPC":"2.0","Method":"teams.get","ID":-1.5e3}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","extra":true}`,
		`{"jsonrpc":"2.0","id":1,"method":"\u0074eams.list"}`,
		// Not well-formed: the checked reading's errors.
		`{"jsonrpc":"1.0","id":1,"method":"x"}`,
		`{"jsonrpc":2,"id":1,"method":"x"}`,
		`{"id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"method":""}`,
		`{"jsonrpc":"2.0","id":1,"method":null}`,
		`{"jsonrpc":"2.0","id":1,"method":7}`,
		`{"jsonrpc":"2.0","id":{},"method":"x"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"x"}`,
		`{"jsonrpc":"2.0","id":true,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":"p"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":3}`,
		`[1,2]`, `"request"`, `42`, `null`,
	} {
		req, method, err := readRequest(json.RawMessage(raw))
		want, wantMethod, wantErr := readRequestChecked(json.RawMessage(raw))
		if method != wantMethod || !bytes.Equal(req.Params, want.Params) || !bytes.Equal(req.ID, want.ID) ||
			(req.ID == nil) != (want.ID == nil) || (req.Params == nil) != (want.Params == nil) || (err == nil) != (wantErr == nil) ||
			err != nil && err.Error() != wantErr.Error() {
			t.Errorf("%s:\n one pass: method %q params %s id %s err %v\n checked:  method %q params %s id %s err %v",
				raw, method, req.Params, req.ID, err, wantMethod, want.Params, want.ID, wantErr)
		}
	}
}
