package server

import (
	"bytes"
	"encoding/json"
	"errors"
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
		`{"jsonrpc":"2.0","id":1,"method":"x","Jsonrpc":"1.0","paramS":3,"iD":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"Method":"y","ID":2}}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":[{"Method":"y"}],"note":"\"Method\": 1"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","extra":true,"extra":false}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","extra":true}`,
		`{"jsonrpc":"2.0","id":1,"method":"\u0074eams.list"}`,
		// Not well-formed: the checked reading's errors.
		`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","\u006dethod":"b"}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","params":{},"params":[]}`,
		`{"jsonrpc":"2.0","jsonrpc":"2.0","method":"a"}`,
		`{"jsonrpc":"2.0","id":{},"method":"a","method":"b"}`,
		`{"JSONRPC":"2.0","Method":"teams.get","ID":-1.5e3}`,
		`{"jsonrpc":"2.0","method":"x","ID":1}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","Method":"y"}`,
		`{"jsonrpc":"2.0","id":1,"\u006dethod":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","paramſ":{}}`,
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

// A response that succeeded is written byte for byte as the Encoder wrote
// it.
func TestWriteRPC_SuccessAsEncoder(t *testing.T) {
	results := []any{nil, "x", 42, map[string]any{"id": "t1-f0001", "html": "<a & b>", "sep": "\u2028\u2029", "ctl": "\x01\n"},
		[]string{}, struct {
			IDs []string `json:"ids"`
		}{[]string{"a", "b"}}}
	ids := []string{`1`, `-2.5e3`, `null`, `"a b"`, `"<&>\u2028é\"\\"`, `"\u0041"`, "\"\u2028\u2029<\""}
	for _, v := range results {
		res, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			resp := rpcResponse{JSONRPC: "2.0", Result: res, ID: json.RawMessage(id)}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(resp); err != nil {
				t.Fatal(err)
			}
			if got := appendSuccess(nil, resp); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("appendSuccess = %s, the Encoder wrote %s", got, want.Bytes())
			}
		}
	}
}

// A body that is not JSON is a parse error with encoding/json's syntax
// error placed in the body and worded in JSON's terms (jsonexact.SyntaxText).
func TestReadRequest_ParseError(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{``, "line 1, column 1 (offset 0): no JSON value, want one"},
		{` `, "line 1, column 2 (offset 1): no JSON value, want one"},
		{`{`, "line 1, column 2 (offset 1): the JSON ends too early"},
		{`{"jsonrpc": "2.0", "method": "teams.list", "id": 1`, "line 1, column 51 (offset 50): the JSON ends too early"},
		{`{"a":1}x`, "line 1, column 8 (offset 7): invalid character 'x', want nothing after the value"},
		{`nul`, "line 1, column 4 (offset 3): the JSON ends too early, want null"},
		{`{"a":1.`, "line 1, column 8 (offset 7): the JSON ends too early in a number: want a digit after the decimal point"},
		{`{"a":"\x"}`, "line 1, column 8 (offset 7): invalid character 'x' in a string: not an escape after \\"},
		{"{\"a\":\"\xff\"", "line 1, column 9 (offset 8): the JSON ends too early"},
		{"[1,\n ]", "line 2, column 2 (offset 5): invalid character ']', want a value"},
	} {
		_, _, err := readRequest(json.RawMessage(tc.body))
		var se *json.SyntaxError
		if want := "syntax error: parse error: " + tc.want; !errors.Is(err, errParse) || err.Error() != want || !errors.As(err, &se) {
			t.Errorf("readRequest(%q) = %v, want %v, a *json.SyntaxError in the chain", tc.body, err, want)
		}
	}
}

// exactMemberNames looks at the member names of the top-level object
// only, and sees strings (escaped quotes included) as strings.
func TestExactMemberNames(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"x"}`:                              true,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"Method":1,"ID":2}}`: true,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":[{"Params":[]}]}`:     true,
		`{"method":"x","note":"\"Method\": 1, \"ID\" : 2"}`:                  true,
		`{"method":"ID","id":"Method"}`:                                      true,
		`{"methods":1,"ids":2,"Extra":3}`:                                    true,
		`[{"Method":1}]`:                                                     true,
		`{"Method":"x"}`:                                                     false,
		`{"method":"x", "ID" :1}`:                                            false,
		`{"params":{},"PARAMS":{}}`:                                          false,
		`{"jsonrpc":"2.0","jsonRPC":"2.0"}`:                                  false,
		`{"\u0069d":1}`:                                                      false,
		`{"method":"x","id\\":1}`:                                            false,
		`{"method":"x","method":"y"}`:                                        false,
		`{"id":1,"method":"x","id":1}`:                                       false,
		`{"params":{"id":1,"id":2},"id":3}`:                                  true,
		`{"extra":1,"extra":2}`:                                              true,
	} {
		if got := exactMemberNames([]byte(raw)); got != want {
			t.Errorf("exactMemberNames(%s) = %v, want %v", raw, got, want)
		}
	}
}
