package wasmbuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Embed writes each tool once; run again over unchanged sources it writes
// nothing (a different Go toolchain would build other bytes: they must not
// churn the repository); a tool whose recorded sources' hash differs, or
// whose module was damaged, is built again, and only it.
func TestEmbedRebuildsOnlyChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the WASM tools")
	}
	ctx := context.Background()
	dir := t.TempDir()
	written, err := Embed(ctx, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	names := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			out = append(out, filepath.Base(p))
		}
		return out
	}
	want := []string{"layout.wasm.gz", "layout.tool.json", "cluster.wasm.gz", "cluster.tool.json", SumsFile}
	if diff := cmp.Diff(want, names(written)); diff != "" {
		t.Fatalf("first Embed wrote (-want +got):\n%s", diff)
	}
	if written, err = Embed(ctx, dir, false); err != nil || len(written) != 0 {
		t.Fatalf("Embed of unchanged sources wrote %v, %v", written, err)
	}
	sums := filepath.Join(dir, SumsFile)
	data, _ := os.ReadFile(sums)
	s, err := ReadSums(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0].File != "layout.wasm.gz" {
		t.Fatalf("sums: %+v", s)
	}
	// Another recorded hash (the sources changed): rebuilt, to the same
	// bytes with this toolchain, so only the record is written.
	edited := strings.Replace(string(data), s[0].Sources, "sha256:"+strings.Repeat("0", 64), 1)
	os.WriteFile(sums, []byte(edited), 0o644)
	if written, err = Embed(ctx, dir, false); err != nil || !cmp.Equal(names(written), []string{SumsFile}) {
		t.Errorf("after a sources change: wrote %v, %v; want the same module and its record", written, err)
	}
	if now, _ := os.ReadFile(sums); string(now) != string(data) {
		t.Errorf("the record is not as before:\n%s\nwant\n%s", now, data)
	}
	// A damaged module is built again.
	os.WriteFile(filepath.Join(dir, "cluster.wasm.gz"), []byte("junk"), 0o644)
	if written, err = Embed(ctx, dir, false); err != nil || !cmp.Equal(names(written), []string{"cluster.wasm.gz"}) {
		t.Errorf("after damage: wrote %v, %v; want the module", written, err)
	}
	// A tool no longer there is removed.
	os.WriteFile(filepath.Join(dir, "gone.wasm.gz"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "gone.tool.json"), nil, 0o644)
	if written, err = Embed(ctx, dir, false); err != nil || len(written) != 2 {
		t.Errorf("with a removed tool's files: wrote %v, %v; want them removed", written, err)
	}
}

func TestReadSumsErrors(t *testing.T) {
	for _, bad := range []string{"x.wasm.gz", "x.wasm.gz sources=md5:1 module=sha256:2 bytes=3", "x sources=sha256:1 module=sha256:2 bytes=many"} {
		if _, err := ReadSums([]byte("# comment\n" + bad + "\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
