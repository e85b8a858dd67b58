package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/internal/jsonexact"
	"github.com/cortexgraph/cortex/teammanager"
)

// rpcRequest is a JSON-RPC 2.0 request object as read: fields are raw so
// that each can be checked and reported.
type rpcRequest struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	ID      json.RawMessage `json:"id"`
}

// rpcResponse is a JSON-RPC 2.0 response object.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result,omitempty"` // always set on success ("null" at least)
	Error   *rpcError       `json:"error,omitempty"`
	ID      json.RawMessage `json:"id"`
}

var jsonNull = json.RawMessage("null")

// serveRPC answers POST /ns/{ns}/rpc: a request object, or a batch (an
// array of them) answered by an array of the responses of its
// non-notification requests; a request without id is a notification and
// gets no response (a batch of notifications only: 204, no body).
func (s *Server) serveRPC(w http.ResponseWriter, r *http.Request, ns string) {
	if wantsStream(r) {
		s.serveRPCStream(w, r, ns)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.maxBodyBytes))
	if err != nil {
		err = bodyError(err)
		writeRPC(w, httpStatus(err), rpcResponse{JSONRPC: "2.0", Error: rpcErrorOf(fmt.Errorf("read request: %w", err)), ID: jsonNull})
		return
	}
	// A response is sent a chunk at a time, each within the write
	// timeout, as a query's (respond).
	w = s.timed(w)
	// JSON is UTF-8 (RFC 8259, 8.1); encoding/json would read each byte
	// that is not as U+FFFD, and a call would write what it was not sent.
	if !utf8.Valid(body) {
		writeRPC(w, http.StatusOK, parseErrorResponse(errors.New("the request is not valid UTF-8")))
		return
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		start := time.Now()
		out, err := s.runBatch(r.Context(), ns, body)
		setServerTiming(w, time.Since(start))
		switch {
		case err != nil:
			status := http.StatusOK
			if errors.Is(err, ErrTooLarge) { // a batch too long: as a body too large
				status = http.StatusRequestEntityTooLarge
			}
			writeRPC(w, status, rpcResponse{JSONRPC: "2.0", Error: rpcErrorOf(err), ID: jsonNull})
		case len(out) == 0:
			w.WriteHeader(http.StatusNoContent)
		default:
			writeRPC(w, http.StatusOK, out)
		}
		return
	}
	req, method, err := readRequest(body)
	if errors.Is(err, errParse) {
		writeRPC(w, http.StatusOK, rpcResponse{JSONRPC: "2.0", Error: rpcErrorOf(err), ID: jsonNull})
		return
	}
	start := time.Now()
	resp, ok := s.callRequest(r.Context(), ns, req, method, err)
	setServerTiming(w, time.Since(start))
	if !ok {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	status := http.StatusOK
	if resp.Error != nil {
		switch resp.Error.Data.Kind { // a single request refused: as the other routes
		case api.KindDenied:
			status = http.StatusForbidden
		case api.KindBusy:
			status = http.StatusServiceUnavailable
			w.Header().Set("Retry-After", busyRetryAfter)
		}
	}
	writeRPC(w, status, resp)
}

// runBatch runs the calls of body, a batch (a JSON array), and returns the
// responses of those that are not notifications; a body that is no batch
// of requests (not JSON, an empty array, too many calls) is answered by
// one error response of the error it returns instead (readBatch).
func (s *Server) runBatch(ctx context.Context, ns string, body []byte) ([]rpcResponse, error) {
	batch, err := readBatch(body, s.opts.maxBatch)
	if err != nil {
		return nil, err
	}
	out := []rpcResponse{}
	ctx = s.batchContext(ctx)
	for _, raw := range batch {
		if resp, ok := s.call(ctx, ns, raw); ok {
			out = append(out, resp)
		}
	}
	return out, nil
}

// readBatch returns the requests of body, a batch (a JSON array), or the
// error of a body that is no batch of requests, answered by one error
// response with id null: not JSON (errParse), an empty array
// (errInvalidRequest), or more than max calls (ErrTooLarge, found before
// the calls are read: a batch too long holds no more than its body in
// memory).
func readBatch(body []byte, max int) ([]json.RawMessage, error) {
	if !json.Valid(body) {
		var v any
		return nil, fmt.Errorf("%w: %w", errParse, jsonexact.SyntaxText(body, json.Unmarshal(body, &v))) // its syntax error, found before anything is read, placed in body
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, fmt.Errorf("%w: want a batch (an array), got %v (%v)", errInvalidRequest, tok, err)
	}
	var batch []json.RawMessage
	for dec.More() {
		if len(batch) == max {
			return nil, fmt.Errorf("read request: %w: a batch of more than %d calls (the server's limit of a batch): send them in several batches", ErrTooLarge, max)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%w: %v", errParse, err)
		}
		batch = append(batch, raw)
	}
	if len(batch) == 0 {
		return nil, fmt.Errorf("%w: empty batch", errInvalidRequest)
	}
	return batch, nil
}

// batchContext returns the context of a batch's calls: they answer in
// one response, so their listings share the limit of results per
// response (rpcCtx.checkCount). The calls run one after the other.
func (s *Server) batchContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, batchKey{}, &batchBudget{left: s.opts.maxResults})
}

// setServerTiming sets the Server-Timing header (W3C Server Timing) of a
// JSON-RPC response to "call;dur=MS": the time the server spent in the
// request's calls (a batch's together), in milliseconds with microsecond
// precision, from the method's lookup to its result encoded. What a client
// measures beyond it is the call's way through HTTP: the encoding and
// decoding, the transport, the queueing for a connection and a core.
func setServerTiming(w http.ResponseWriter, d time.Duration) {
	b := make([]byte, 0, 24)
	b = append(b, "call;dur="...)
	b = strconv.AppendFloat(b, float64(d.Microseconds())/1000, 'f', 3, 64)
	w.Header()["Server-Timing"] = []string{string(b)}
}

// parseErrorResponse is the response to a body that is not JSON.
func parseErrorResponse(err error) rpcResponse {
	return rpcResponse{JSONRPC: "2.0", Error: rpcErrorOf(fmt.Errorf("%w: %v", errParse, err)), ID: jsonNull}
}

// call runs one request (raw is valid JSON) and returns its response;
// false for a notification, whose response is dropped.
func (s *Server) call(ctx context.Context, ns string, raw json.RawMessage) (rpcResponse, bool) {
	req, method, err := readRequest(raw)
	return s.callRequest(ctx, ns, req, method, err)
}

// callRequest is call of a request as readRequest read it.
func (s *Server) callRequest(ctx context.Context, ns string, req rpcRequest, method string, err error) (rpcResponse, bool) {
	resp := rpcResponse{JSONRPC: "2.0", ID: req.ID}
	if resp.ID == nil {
		resp.ID = jsonNull
	}
	if _, known := methods[method]; err == nil && known {
		err = allow(ctx, ns, roleOf("rpc "+method), method)
	}
	if err == nil {
		var v any
		if v, err = s.invokeGuarded(ctx, ns, method, req.Params); err == nil {
			resp.Result, err = marshal(v)
		}
	}
	s.metrics.rpcCall(method, err)
	if err != nil {
		resp.Result, resp.Error = nil, rpcErrorOf(err)
	}
	// A notification (no id) gets no response, unless the request was
	// invalid: then there is no telling it was one.
	if req.ID == nil && (err == nil || !isInvalidRequest(err)) {
		return resp, false
	}
	return resp, true
}

// invokeGuarded is invoke, but a call that panics fails with an internal
// error (-32603, kind internal), logged with its stack, instead of
// taking down its connection (net/http recovers a handler's panic by
// closing it, and the client reads no answer) or, on a JSON-RPC stream,
// whose calls run on goroutines of their own, the whole process.
func (s *Server) invokeGuarded(ctx context.Context, ns, method string, params json.RawMessage) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.opts.logger.Printf("rpc %s in namespace %s: panic: %v\n%s", method, ns, p, debug.Stack())
			v, err = nil, fmt.Errorf("%s: internal error: the call failed (panic: %v)", method, p)
		}
	}()
	return s.invoke(ctx, ns, method, params)
}

func isInvalidRequest(err error) bool {
	return rpcErrorOf(err).Code == rpcInvalidRequest
}

// rpcRequestTyped is a well-formed request object as read in one pass:
// readRequest tries it first, and reads rpcRequest (whose raw fields it
// checks one by one, for the errors) only when it fails.
type rpcRequestTyped struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	ID      json.RawMessage `json:"id"`
}

// readRequest checks a request object: "jsonrpc": "2.0", a string method,
// an id that is a string, a number or null (absent: a notification), and
// params, if any, an object or an array. Raw that is not JSON is an error
// matching errParse.
func readRequest(raw json.RawMessage) (rpcRequest, string, error) {
	var typed rpcRequestTyped
	err := json.Unmarshal(raw, &typed)
	if err == nil && typed.JSONRPC == "2.0" && typed.Method != "" && validID(typed.ID) && validParams(typed.Params) && exactMemberNames(raw) {
		return rpcRequest{Params: typed.Params, ID: typed.ID}, typed.Method, nil
	}
	// Unmarshal checks that raw is JSON before it reads any of it: a
	// syntax error is of raw, whatever it is read into.
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return rpcRequest{}, "", fmt.Errorf("%w: %w", errParse, jsonexact.SyntaxText(raw, err))
	}
	return readRequestChecked(raw)
}

// readRequestChecked is readRequest field by field: it says what is wrong
// with a request that is not well-formed. Member names are matched
// exactly, as JSON-RPC 2.0 wants (its section 3: case-sensitive), not as
// encoding/json matches the fields of a struct: "Method" or "ID" is a
// member the protocol does not know, ignored. A request member given
// twice is an invalid request (encoding/json would take the last, another
// reader the first); a repeated id is no id to answer with.
func readRequestChecked(raw json.RawMessage) (rpcRequest, string, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return rpcRequest{}, "", fmt.Errorf("%w: want a request object, got %s", errInvalidRequest, jsonKind(raw))
	}
	req := rpcRequest{JSONRPC: members["jsonrpc"], Method: members["method"], Params: members["params"], ID: members["id"]}
	if name := repeatedMember(raw); name != "" {
		if name == "id" || !validID(req.ID) {
			req.ID = nil
		}
		return req, "", fmt.Errorf("%w: duplicate member %q", errInvalidRequest, name)
	}
	if req.ID != nil {
		switch jsonKind(req.ID) {
		case "string", "number", "null":
		default:
			id := req.ID
			req.ID = nil
			return req, "", fmt.Errorf("%w: id must be a string, a number or null, not %s", errInvalidRequest, jsonKind(id))
		}
	}
	var version, method string
	if err := json.Unmarshal(req.JSONRPC, &version); err != nil || version != "2.0" {
		return req, "", fmt.Errorf(`%w: "jsonrpc" must be "2.0"`, errInvalidRequest)
	}
	if err := json.Unmarshal(req.Method, &method); err != nil || req.Method == nil || method == "" {
		return req, "", fmt.Errorf(`%w: "method" must be a non-empty string`, errInvalidRequest)
	}
	if req.Params != nil {
		switch jsonKind(req.Params) {
		case "object", "array", "null":
		default:
			return req, method, fmt.Errorf(`%w: "params" must be an object or an array, not %s`, errInvalidRequest, jsonKind(req.Params))
		}
	}
	return req, method, nil
}

// requestMembers are the member names of a request object.
var requestMembers = [...][]byte{[]byte("jsonrpc"), []byte("method"), []byte("params"), []byte("id")}

// exactMemberNames reports whether raw, valid JSON, is read the same by
// rpcRequestTyped, whose fields encoding/json matches case-insensitively,
// as by exact names: no member name of the top-level object is a request
// member's in another case ("Method", "ID"), none is escaped (it may
// spell one), and no request member is given twice. It scans raw once,
// without allocating; for anything but an object it reports true.
func exactMemberNames(raw []byte) bool {
	depth := 0
	var seen uint8 // requestMembers[i] seen: bit i
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			start, escaped := i+1, false
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					escaped = true
					i++
				}
			}
			if depth != 1 || !isMemberName(raw, i+1) {
				continue
			}
			if escaped {
				return false
			}
			name := raw[start:i]
			for j, m := range requestMembers {
				if !bytes.EqualFold(name, m) {
					continue
				}
				if !bytes.Equal(name, m) || seen&(1<<j) != 0 {
					return false
				}
				seen |= 1 << j
			}
		}
	}
	return true
}

// repeatedMember returns the first request member (jsonrpc, method,
// params, id) that raw, a JSON object, names twice, escaped or not; "" if
// none is.
func repeatedMember(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return ""
	}
	var seen uint8
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		name, _ := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
		for j, m := range requestMembers {
			if name != string(m) {
				continue
			}
			if seen&(1<<j) != 0 {
				return name
			}
			seen |= 1 << j
		}
	}
	return ""
}

// isMemberName reports whether the string that ends before raw[i] is a
// member name: the next byte that is not white space is a colon.
func isMemberName(raw []byte, i int) bool {
	for ; i < len(raw); i++ {
		switch raw[i] {
		case ' ', '\t', '\r', '\n':
		case ':':
			return true
		default:
			return false
		}
	}
	return false
}

// validID reports whether id is absent or a string, a number or null.
func validID(id json.RawMessage) bool {
	if id == nil {
		return true
	}
	k := jsonKind(id)
	return k == "string" || k == "number" || k == "null"
}

// validParams reports whether params is absent or an object, an array or
// null.
func validParams(params json.RawMessage) bool {
	if params == nil {
		return true
	}
	k := jsonKind(params)
	return k == "object" || k == "array" || k == "null"
}

// jsonKind names the JSON type of raw (valid JSON).
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// decodeParams reads params (an object; absent or null: {}) into v with
// member names matched exactly (jsonexact.Unmarshal): a name that is not
// a field's as its tag writes it ("Team" for "team"), and a name given
// twice at any depth, are refused, as unknown fields are. Errors match
// api.ErrUsage (invalid params, -32602) and name the member, except a
// number too large (or small) for the numeric field it is read into
// (1e400 for a float64, 1e20 for an int64, -1 for an unsigned one): that
// is a value out of range, not a malformed request, and matches
// api.ErrInvalid (kind invalid, exit 7) as the embedded Manager's errors
// for values out of range do, naming the field: `params: threshold:
// number 1e400 is out of range for a float64`.
func decodeParams(params json.RawMessage, v any) error {
	if params == nil || jsonKind(params) == "null" {
		params = json.RawMessage("{}")
	}
	if k := jsonKind(params); k != "object" {
		return fmt.Errorf("%w: params must be an object with named members, not an %s", api.ErrUsage, k)
	}
	if err := jsonexact.Unmarshal(params, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && outOfRange(te) {
			field := ""
			if path := jsonexact.TypePath(params, v, te); path != "" {
				field = path + ": "
			}
			lit := strings.TrimPrefix(te.Value, "number ")
			if len(lit) > 64 { // a JSON number: ASCII
				lit = lit[:30] + "..." + lit[len(lit)-30:]
			}
			return fmt.Errorf("%w: params: %snumber %s is out of range for a%s %s", api.ErrInvalid, field, lit, article(te.Type.Kind()), te.Type.Kind())
		}
		return fmt.Errorf("%w: params: %s", api.ErrUsage, strings.TrimPrefix(jsonexact.Text(params, v, err).Error(), "json: "))
	}
	return nil
}

// outOfRange reports whether te is encoding/json's refusal of a number
// that the numeric type it is read into cannot hold: too large (or too
// small) for it, or negative for an unsigned one. A number of the wrong
// form for its type (1.5 for an int64) is not out of range: it is of the
// wrong type, as a string would be.
func outOfRange(te *json.UnmarshalTypeError) bool {
	lit, ok := strings.CutPrefix(te.Value, "number ")
	if !ok || te.Type == nil {
		return false
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return false
	}
	switch k := te.Type.Kind(); k {
	case reflect.Float32, reflect.Float64:
		_, err := strconv.ParseFloat(lit, te.Type.Bits())
		return errors.Is(err, strconv.ErrRange)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		limit := math.Ldexp(1, te.Type.Bits()-1)
		return f == math.Trunc(f) && (f >= limit || f < -limit)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return f == math.Trunc(f) && (f < 0 || f >= math.Ldexp(1, te.Type.Bits()))
	}
	return false
}

// article is the indefinite article's ending before the name of kind k:
// "n" for "an int64", "" for "a float64".
func article(k reflect.Kind) string {
	if strings.HasPrefix(k.String(), "int") {
		return "n"
	}
	return ""
}

// required returns an invalid-params error naming the first field of
// pairs (name, value) whose value is empty, or nil. For an id of a team,
// agent, task, message, conflict or snapshot it returns an emptyIDError,
// which invoke answers with an unknown team first if the call names one,
// as the Manager looks the team up first, else with the invalid-params
// error (kind usage, exit 2). The methods check their ids with
// requiredGiven: an id given empty ("") is the Manager's to refuse, which
// it does as in process (an invalid id, kind invalid, exit 7, in its
// words and order of checks), so only an id not given at all is
// required's.
func required(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			if emptyID[pairs[i]] != nil {
				return emptyIDError{param: pairs[i]}
			}
			return fmt.Errorf("%w: params: %q is required", api.ErrUsage, pairs[i])
		}
	}
	return nil
}

// requiredGiven is required for the params of a callee that answers an
// empty value itself, as in process (the workflow Engine: an empty run,
// step, actor or driver is its invalid id or run, after an unknown run):
// an empty value is refused only if params do not give it at all (absent,
// or null); given as "", it is left to the callee. A name with a dot
// names a member of an object param ("driver.id").
func requiredGiven(params json.RawMessage, pairs ...string) error {
	var absent []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" && !givenString(params, pairs[i]) {
			absent = append(absent, pairs[i], "")
		}
	}
	return required(absent...)
}

// givenString reports whether params (an object) give the member at path
// (names joined by dots) as a string.
func givenString(params json.RawMessage, path string) bool {
	v := params
	for name := range strings.SplitSeq(path, ".") {
		var members map[string]json.RawMessage
		if jsonKind(v) != "object" || json.Unmarshal(v, &members) != nil {
			return false
		}
		v = members[name]
	}
	return jsonKind(v) == "string"
}

// emptyIDError is required's error for an id not given: invoke answers
// an unknown team instead, if the call names one, as the Manager looks
// the team up before the other ids (and, with taskFirst, an unknown
// task); else the error of the param not given (missing).
type emptyIDError struct {
	param string // team, agent, task, message, conflict or snapshot
	// taskFirst: the id is the agent's, in a call about a task that the
	// Manager looks up before the member (decodeTaskRef): invoke answers
	// an unknown task too.
	taskFirst bool
}

// Error is the error of a param not given.
func (e emptyIDError) Error() string { return e.missing().Error() }

// Unwrap returns the error of a param not given.
func (e emptyIDError) Unwrap() error { return e.missing() }

// missing is the error of e's param not given at all: a malformed request
// (kind usage), matching the lookup error of its kind too.
func (e emptyIDError) missing() error {
	return fmt.Errorf("%w: params: %q is required: %w", api.ErrUsage, e.param, emptyID[e.param])
}

// emptyID maps the id params of required to the sentinel error of the
// Manager for an empty id of that kind.
var emptyID = map[string]error{
	"team":     teammanager.ErrUnknownTeam,
	"agent":    teammanager.ErrUnknownAgent,
	"task":     teammanager.ErrUnknownTask,
	"message":  teammanager.ErrUnknownMessage,
	"conflict": teammanager.ErrUnknownConflict,
	"snapshot": teammanager.ErrUnknownSnapshot,
}

// jsonContentType is the Content-Type header of a JSON-RPC response, set
// as is (shared, never modified: net/http copies the header map and only
// reads its values).
var jsonContentType = []string{"application/json"}

// writeRPC writes v as a JSON response with the given status. A response
// object that succeeded is written as encoding/json would write it
// (appendSuccess), without its reflection.
func writeRPC(w http.ResponseWriter, status int, v any) {
	w.Header()["Content-Type"] = jsonContentType
	if resp, ok := v.(rpcResponse); ok && resp.Error == nil && len(resp.Result) > 0 {
		w.WriteHeader(status)
		w.Write(appendSuccess(make([]byte, 0, 40+len(resp.Result)+len(resp.ID)), resp)) //nolint:errcheck // a client gone is not ours to report
		return
	}
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a client gone is not ours to report
}

// appendSuccess appends resp, a response with a result and no error, and
// a newline, as an Encoder without HTML escaping writes it: its result
// and id are compact JSON already (marshal's output; an id as the request
// gave it, a string, a number or null, which has no space to drop).
func appendSuccess(b []byte, resp rpcResponse) []byte {
	b = append(b, `{"jsonrpc":"2.0","result":`...)
	b = append(b, resp.Result...)
	b = append(b, `,"id":`...)
	b = append(b, resp.ID...)
	return append(b, "}\n"...)
}

// marshal encodes v as JSON without HTML escaping ("<http://s>", not
// "\u003chttp://s\u003e"), as cortexctl prints it.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
