package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/server"
)

// tokensFileName is the token file of a data directory (mode 0600).
const tokensFileName = "tokens.json"

func tokensCommand(e *env) *cli.Command {
	nsFlag := func(usage string) cli.Flag {
		return &cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: usage}
	}
	return &cli.Command{
		Name:  "tokens",
		Usage: "create, list and revoke the bearer tokens a server accepts over TCP",
		Description: `A token is scoped to one namespace and a role: read (queries, gets, lists,
events, exports, graphs), write (+ team and finding writes, imports), admin
(+ tokens, namespaces list, stats, deletes, snapshot restores, mail retention); a
token's namespaces list, stats and /metrics show its own namespace only. Tokens are kept hashed in DIR/tokens.json (mode
0600); a running server sees a change at its next request. A tokens.json that other
users may write (or that another user owns) is refused (chmod 600 or chown it),
by these commands and by a server.

Once any token exists (a revoked or expired one too), every HTTP request on
TCP needs one (Authorization: Bearer TOKEN; cortexctl --token or
CORTEX_TOKEN): 401 without a valid one, 403 for another namespace or too
low a role (exit code 10). The Unix socket (mode 0600) needs none.

With --server, the commands go to that server (an admin token of the
namespace), and only that namespace's tokens are seen.

Example:
   cortexctl tokens create --namespace acme --role write --expires 720h
   cortexctl tokens list
   cortexctl tokens revoke 3f2a9c0d1b7e`,
		Subcommands: []*cli.Command{
			{
				Name:  "create",
				Usage: "create a token and print it (the only time it is shown)",
				Description: `Prints the token alone on stdout (TOKEN=$(cortexctl tokens create ...)).
JSON: {id, namespace, role, created, expires? (none: no expiry), token}.`,
				Flags: withOutput(
					nsFlag("`NS` the token is for (default: --namespace of cortexctl)"),
					&cli.StringFlag{Name: "role", Usage: "`ROLE`: read, write or admin, any case (required)"},
					&cli.StringFlag{Name: "expires", Usage: "valid for `DURATION` (24h, 90m; default: no expiry)"},
				),
				Action: func(c *cli.Context) error { return tokensCreate(c, e) },
			},
			{
				Name:        "list",
				Usage:       "list the tokens: id, namespace, role, created, expires, status (never the token)",
				Description: `JSON: [{id, namespace, role, created, expires? (none: no expiry), revoked? (the time it was revoked)}]; status, which the table shows, is active, expired or revoked by those times.`,
				Flags:       withOutput(nsFlag("only the tokens of `NS` (default: all; with --server: --namespace of cortexctl)")),
				Action:      func(c *cli.Context) error { return tokensList(c, e) },
			},
			{
				Name:      "revoke",
				Usage:     "revoke a token: it is refused (401) from the next request on",
				ArgsUsage: "ID",
				Description: `ID is the token's id (tokens list): 12 lower-case hexadecimal digits; an
id no token can have exits 7, one no token has 3. Revoked tokens stay
listed (status revoked). JSON: the token revoked.`,
				Flags:  outputFlags(),
				Action: func(c *cli.Context) error { return tokensRevoke(c, e) },
			},
		},
	}
}

// tokenFile returns the token file of --data. A --data that is a file,
// or under one, holds none: no store for a read (exit 3), an invalid
// value for a write (exit 7), as for the store itself (env.open); for a
// read, a --data that does not exist is no store either (exit 3).
func (e *env) tokenFile(mode openMode) (*server.TokenFile, error) {
	if notDir(e.dataDir) {
		if mode == readWrite {
			return nil, fmt.Errorf("%w: --data %s is not a directory (want the store directory)", errInvalid, pathText(e.dataDir))
		}
		return nil, fmt.Errorf("%w at %s (not a directory)", cortex.ErrNoStore, pathText(e.dataDir))
	}
	if mode == readOnly {
		// A --data that does not exist (a typo) is no store, as for
		// every other read, not a store without tokens.
		if _, err := os.Stat(e.dataDir); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w at %s", cortex.ErrNoStore, pathText(e.dataDir))
		}
	}
	return server.OpenTokens(filepath.Join(e.dataDir, tokensFileName)), nil
}

// tokensClient returns the client of --server in namespace ns, or nil
// without --server.
func (e *env) tokensClient(ns string) (*client.Client, error) {
	if e.serverURL == "" {
		return nil, nil
	}
	return e.newClient(e.serverURL, ns)
}

func tokensCreate(c *cli.Context, e *env) error {
	if c.NArg() > 0 {
		return usagef("tokens create: unexpected argument %q", c.Args().First())
	}
	if _, err := outputFormat(c); err != nil {
		return err
	}
	ns := e.nsName
	if c.IsSet("namespace") {
		ns = c.String("namespace")
	}
	if err := namespace.ValidateName(ns); err != nil {
		return fmt.Errorf("tokens create: %w", err)
	}
	if !c.IsSet("role") {
		return usagef("tokens create: want --role read|write|admin")
	}
	// Named as the other option values are (the server's errors name
	// them "role" and "expiry", and add Go's own reason: "(time: unknown
	// unit ...)").
	role, err := statusFilter(c.String("role"), server.ParseRole)
	if err != nil {
		return fmt.Errorf("%w: tokens create: --role %q: want read, write or admin", errInvalid, c.String("role"))
	}
	ttl, err := server.ParseExpiry(c.String("expires"))
	if err != nil {
		want := "want a positive duration such as 24h or 90m"
		if _, perr := time.ParseDuration(c.String("expires")); perr != nil && durationSyntax.MatchString(c.String("expires")) {
			want = "out of range: at most 2562047h47m16s (about 292 years)"
		}
		return fmt.Errorf("%w: tokens create: --expires %q: %s", errInvalid, c.String("expires"), want)
	}
	var out server.CreatedToken
	rc, err := e.tokensClient(ns)
	if err != nil {
		return err
	}
	if rc != nil {
		err = rc.Call(c.Context, "tokens.create", map[string]string{"role": string(role), "expires": c.String("expires")}, &out)
	} else {
		var tf *server.TokenFile
		if tf, err = e.tokenFile(readWrite); err == nil {
			out.Secret, out.Token, err = tf.Create(c.Context, ns, role, ttl)
		}
	}
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, out, func() error {
		fmt.Fprintf(e.stderr, "cortexctl: token %s for namespace %s, role %s%s; it is shown once\n", out.ID, out.Namespace, out.Role, expiresText(out.Expires))
		_, err := fmt.Fprintln(e.stdout, out.Secret)
		return err
	})
}

func expiresText(t *time.Time) string {
	if t == nil {
		return ""
	}
	return ", expires " + t.Format(time.RFC3339)
}

func tokensList(c *cli.Context, e *env) error {
	if c.NArg() > 0 {
		return usagef("tokens list: unexpected argument %q", c.Args().First())
	}
	if _, err := outputFormat(c); err != nil {
		return err
	}
	ns := c.String("namespace")
	if ns != "" {
		if err := namespace.ValidateName(ns); err != nil {
			return fmt.Errorf("tokens list: %w", err)
		}
	}
	remoteNS := ns
	if remoteNS == "" {
		remoteNS = e.nsName
	}
	var out []server.Token
	rc, err := e.tokensClient(remoteNS)
	if err != nil {
		return err
	}
	if rc != nil {
		err = rc.Call(c.Context, "tokens.list", nil, &out)
	} else {
		var tf *server.TokenFile
		if tf, err = e.tokenFile(readOnly); err == nil {
			out, err = tf.List(c.Context, ns)
		}
	}
	if err != nil {
		return err
	}
	now := time.Now()
	return printResult(c, e.stdout, out, func() error {
		t := newTable(e.stdout, false, "ID", "NAMESPACE", "ROLE", "CREATED", "EXPIRES", "STATUS")
		for _, k := range out {
			exp, status := "never", "active"
			if k.Expires != nil {
				exp = k.Expires.Format(time.RFC3339)
				if !now.Before(*k.Expires) {
					status = "expired"
				}
			}
			if k.Revoked != nil {
				status = "revoked"
			}
			t.row(k.ID, k.Namespace, string(k.Role), k.Created.Format(time.RFC3339), exp, status)
		}
		return t.flush()
	})
}

func tokensRevoke(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	if c.NArg() != 1 {
		return usagef("tokens revoke: want ID")
	}
	id := c.Args().First()
	if err := notEmpty("tokens revoke: want ID", id); err != nil {
		return err
	}
	var out server.Token
	rc, err := e.tokensClient(e.nsName)
	if err != nil {
		return err
	}
	if rc != nil {
		err = rc.Call(c.Context, "tokens.revoke", map[string]string{"id": id}, &out)
	} else {
		var tf *server.TokenFile
		if tf, err = e.tokenFile(readWrite); err == nil {
			out, err = tf.Revoke(c.Context, "", id)
		}
	}
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, out, func() error {
		_, err := fmt.Fprintf(e.stdout, "revoked token %s (namespace %s, role %s)\n", out.ID, out.Namespace, out.Role)
		return err
	})
}
