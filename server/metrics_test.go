package server_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cortexgraph/cortex/server"
)

// TestMetrics_Exposition: /metrics is valid Prometheus text exposition
// (format 0.0.4) after requests with hostile names (a JSON-RPC method and
// a path with quotes, backslashes and line breaks, a namespace name that
// is no name): every family has one HELP and one TYPE line, before its
// samples, which are together; no series is given twice; label values
// are escaped. Parsed by expfmt (what Prometheus's own scraper accepts)
// and checked line by line, which expfmt leaves to its callers.
func TestMetrics_Exposition(t *testing.T) {
	ts := serve(t, server.DefaultOptions())
	seed(t, ts)
	for _, ns := range []string{"b-2", "c3"} {
		if resp, body := ts.do("PUT", "/ns/"+ns+"/data?default", "application/n-triples", strings.NewReader("<http://ex/a> <http://ex/p> \"1\" .\n")); resp.StatusCode != http.StatusCreated {
			t.Fatalf("PUT in %s: %d %s", ns, resp.StatusCode, body)
		}
	}
	ts.rpcRaw("acme", `{"jsonrpc":"2.0","id":1,"method":"x\"\\\ny{}=,","params":{}}`)
	ts.do("GET", "/ns/acme/sparql?query="+url.QueryEscape("ASK {}"), "", nil)
	ts.do("GET", "/ns/a%22b%5Cc%0Ad/sparql?query=ASK%7B%7D", "", nil)
	ts.do("GET", "/x%22y%5Cz%0A%7D", "", nil)
	ts.do("HEAD", "/metrics", "", nil)

	resp, body := ts.do("GET", "/metrics", "", nil)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	mfs, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("not valid text exposition: %v\n%s", err, body)
	}
	for _, name := range []string{"cortex_http_requests_total", "cortex_rpc_calls_total", "cortex_namespace_quads", "cortex_http_request_duration_seconds"} {
		if mfs[name] == nil {
			t.Errorf("no family %s", name)
		}
	}
	if n := len(mfs["cortex_namespace_quads"].GetMetric()); n != 3 {
		t.Errorf("cortex_namespace_quads has %d series, want 3 (acme, b-2, c3)", n)
	}

	checkExposition(t, body)
	if t.Failed() {
		t.Log(body)
	}
}

// checkExposition checks, line by line, the rules of the text exposition
// format that expfmt does not: one HELP and one TYPE per family, before
// its samples, which are together; no series twice; label values escaped.
func checkExposition(t *testing.T, body string) {
	t.Helper()
	var (
		sample  = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*\})? \S+$`)
		help    = map[string]bool{}
		typ     = map[string]string{}
		seen    = map[string]bool{}
		done    = map[string]bool{} // families whose samples ended
		current string
	)
	family := func(name string) string {
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && typ[base] == "histogram" {
				return base
			}
		}
		return name
	}
	for i, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "# HELP "):
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "# HELP "), " ")
			if help[name] {
				t.Errorf("line %d: a second HELP for %s", i+1, name)
			}
			help[name] = true
		case strings.HasPrefix(line, "# TYPE "):
			name, kind, _ := strings.Cut(strings.TrimPrefix(line, "# TYPE "), " ")
			if typ[name] != "" {
				t.Errorf("line %d: a second TYPE for %s", i+1, name)
			}
			typ[name] = kind
		case strings.HasPrefix(line, "#"):
			t.Errorf("line %d: a comment that is neither HELP nor TYPE: %q", i+1, line)
		default:
			m := sample.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("line %d: not a sample: %q", i+1, line)
				continue
			}
			f := family(m[1])
			if typ[f] == "" || !help[f] {
				t.Errorf("line %d: a sample of %s before its HELP and TYPE", i+1, f)
			}
			if f != current {
				if done[f] {
					t.Errorf("line %d: samples of %s apart from its others", i+1, f)
				}
				done[current], current = true, f
			}
			series := line[:strings.LastIndexByte(line, ' ')]
			if seen[series] {
				t.Errorf("line %d: series %s given twice", i+1, series)
			}
			seen[series] = true
		}
	}
}
