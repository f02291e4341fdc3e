//go:build unix

package main

import (
	"encoding/json"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/codemode-dev/codemode/internal/pgtest"
)

// --store, $CODEMODE_STORE and --data: which store, or which usage error.
// No message shows the URL, which may hold a password.
func TestServeStorePlan(t *testing.T) {
	const pg = "postgres://alice:s3cret@db.example:5432/codemode"
	for _, tc := range []struct {
		store, data, env string
		url, from, err   string
	}{
		{"", "", "", "", "", ""},        // SQLite in the default data directory
		{"", "/d", "", "", "", ""},      // SQLite in /d
		{pg, "", "", pg, "--store", ""}, // PostgreSQL
		{"postgresql://db/x", "", "", "postgresql://db/x", "--store", ""},
		{"POSTGRES://db/x", "", "", "POSTGRES://db/x", "--store", ""},
		{"", "", pg, pg, "$CODEMODE_STORE", ""},                           // from the environment
		{"postgres://flag/x", "", pg, "postgres://flag/x", "--store", ""}, // the flag wins
		{"", "/d", pg, "", "", ""},                                        // --data wins over the environment
		{pg, "/d", "", "", "", "--store and --data: give one, --store URL to keep the boards in PostgreSQL or --data DIR to keep them in SQLite"},
		{"mysql://alice:s3cret@db/x", "", "", "", "", `--store: codemode keeps no boards in "mysql://": want postgres://USER:PASSWORD@HOST:PORT/DATABASE (or postgresql://); for boards in SQLite, --data DIR`},
		{"sqlite:///tmp/boards.db", "", "", "", "", `--store: codemode keeps no boards in "sqlite://": want`},
		{"host=db password=s3cret", "", "", "", "", "--store is not a URL: want postgres://"},
		{"/var/lib/boards.db", "", "", "", "", "--store is not a URL: want postgres://"},
		{"", "", "mysql://alice:s3cret@db/x", "", "", `$CODEMODE_STORE: codemode keeps no boards in "mysql://"`},
		{"postgres://alice:s3cret@db:x:y/%zz", "", "", "", "", "--store is not a URL"},
	} {
		o := options{store: tc.store, data: tc.data}
		p, err := o.storePlan(func(k string) string {
			if k == storeEnv {
				return tc.env
			}
			return ""
		})
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if p.url != tc.url || p.from != tc.from || !strings.HasPrefix(msg, tc.err) || (tc.err == "") != (msg == "") {
			t.Errorf("--store %q --data %q, %s=%q: got %q from %q, error %q; want %q from %q, %q…", tc.store, tc.data, storeEnv, tc.env, p.url, p.from, msg, tc.url, tc.from, tc.err)
		}
		if strings.Contains(msg, "s3cret") {
			t.Errorf("the error shows the password: %s", msg)
		}
	}
}

// Usage errors of --store are one line, exit status 2, before anything is
// listened on or connected to.
func TestServeStoreUsageErrors(t *testing.T) {
	t.Setenv(tokenEnv, "")
	t.Setenv(storeEnv, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--store", "postgres://u:pw-xyz@127.0.0.1:1/db", "--data", t.TempDir()}, "codemode: serve: --store and --data: give one"},
		{[]string{"--store", "redis://u:pw-xyz@127.0.0.1:1/0"}, `codemode: serve: --store: codemode keeps no boards in "redis://"`},
		{[]string{"--store", ""}, `codemode: serve: --store needs a value (--store URL), not ""`},
	} {
		out, errs, code := cli(t, "", append([]string{"serve", "--addr", "127.0.0.1:0"}, tc.args...)...)
		if code != exitUsage || out != "" || !strings.HasPrefix(errs, tc.want) || strings.Count(errs, "\n") != 1 || strings.Contains(errs, "pw-xyz") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q…", tc.args, code, out, errs, tc.want)
		}
	}
}

// A wrong password, no server, or no database at start: one line saying
// which, exit status 2, with the other problems found (every problem at
// once), never the password.
func TestServeStoreCannotConnect(t *testing.T) {
	t.Setenv(tokenEnv, "")
	t.Setenv(storeEnv, "")
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	good, _ := u.User.Password()
	if good == "" {
		t.Skipf("%s has no password: its server lets anyone in, wrong passwords too", pgtest.EnvURL)
	}
	wrong := *u
	wrong.User = url.UserPassword("postgres", "pw-wrong-"+good[:4])
	_, errs, code := cli(t, "", "serve", "--addr", "127.0.0.1:0", "--store", wrong.String(), "--config", "/nonexistent/config.json", "--runner", "inprocess")
	want := `codemode: serve: --store: connecting to PostgreSQL at ` + u.Host + ` as postgres: password authentication failed for user "postgres"; --config /nonexistent/config.json: no such file or directory`
	if code != exitUsage || !strings.HasPrefix(errs, want) || strings.Count(errs, "\n") != 1 || strings.Contains(errs, "pw-wrong") {
		t.Errorf("a wrong password: exit %d, stderr %q; want 2 and %q…", code, errs, want)
	}

	// From the environment, the message names it.
	t.Setenv(storeEnv, "postgres://postgres:"+good+"@"+u.Host+"/no_such_db")
	_, errs, code = cli(t, "", "serve", "--addr", "127.0.0.1:0", "--runner", "inprocess")
	want = `codemode: serve: $CODEMODE_STORE: connecting to PostgreSQL at ` + u.Host + ` as postgres: database "no_such_db" does not exist`
	if code != exitUsage || !strings.HasPrefix(errs, want) || strings.Contains(errs, good) {
		t.Errorf("no such database: exit %d, stderr %q; want 2 and %q…", code, errs, want)
	}
}

// codemode serve --store: the ready line says where the boards are (never
// the password), a script run on a board is committed to PostgreSQL, and
// the board is there when the server starts again; no lock file keeps a
// second server off the same database.
func TestServeStoreStartStopRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	password, _ := u.User.Password()
	if password == "" { // a server that lets anyone in: nothing to leak, nothing to look for
		password = "\x00no password"
	}
	s := startServe(t, "--addr", "127.0.0.1:0", "--store", u.String())
	first := strings.SplitN(s.stderr.String(), "\n", 2)[0]
	if want := "(boards in PostgreSQL at " + u.Host + u.Path + ")"; !strings.HasSuffix(first, want) || strings.Contains(first, password) {
		t.Errorf("ready line %q: want it to end %q, without the password", first, want)
	}
	if code, body := s.do(t, "POST", "/v1/boards", `{"id": "demo"}`); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	script, _ := json.Marshal(map[string]string{"code": `await tools.createStickyNote({text: "kept", x: 0, y: 0}); return "ok";`})
	if code, body := s.do(t, "POST", "/v1/boards/demo/execute", string(script)); code != 200 || !strings.Contains(strings.Join(strings.Fields(body), ""), `"result":"ok"`) {
		t.Fatalf("execute: %d %s", code, body)
	}
	// A second server on the same database at the same time sees it.
	s2 := startServe(t, "--addr", "127.0.0.1:0", "--store", u.String())
	if code, body := s2.do(t, "GET", "/v1/boards/demo", ""); code != 200 || !cmp.Equal(objectTexts(t, body), []string{"kept"}) {
		t.Errorf("the board on a second server: %d %s", code, body)
	}
	for _, srv := range []*servedCmd{s, s2} {
		if code := srv.stop(t, syscall.SIGTERM); code != 0 {
			t.Fatalf("exit status %d after SIGTERM, want 0:\n%s", code, srv.stderr.String())
		}
	}

	s = startServe(t, "--addr", "127.0.0.1:0", "--store", u.String())
	code, body := s.do(t, "GET", "/v1/boards/demo", "")
	if code != 200 {
		t.Fatalf("after the restart: %d %s", code, body)
	}
	if d := cmp.Diff([]string{"kept"}, objectTexts(t, body)); d != "" {
		t.Errorf("the board after the restart (-want +got):\n%s", d)
	}
	if code := s.stop(t, syscall.SIGINT); code != 0 {
		t.Errorf("exit status %d after SIGINT, want 0:\n%s", code, s.stderr.String())
	}
	if strings.Contains(s.stderr.String(), password) {
		t.Errorf("serve printed the password:\n%s", s.stderr.String())
	}
}
