package pgstore_test

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/pgstore"
)

// Boards are listed in the byte order of their ids whatever the database's
// collation: in English's, "_" sorts before "9" and "a" before "B", so a
// store leaning on the database's default would list them otherwise.
func TestListOrderInAnEnglishDatabase(t *testing.T) {
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := u.Path[1:] + "_en"
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+name+` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`); err != nil {
		t.Fatalf("creating a database with an English collation: %v", err)
	}
	t.Cleanup(func() { conn.Exec(ctx, `DROP DATABASE `+name+` WITH (FORCE)`) })
	var order []string
	if err := conn.QueryRow(ctx, `SELECT array_agg(x ORDER BY x COLLATE "en-US-x-icu") FROM unnest(ARRAY['B', 'a', '_', '9']) x`).Scan(&order); err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(order, []string{"9", "B", "_", "a"}) {
		t.Fatalf("the English collation sorts as bytes do (%v): this test would test nothing", order)
	}
	u.Path = "/" + name
	s := open(t, u.String(), pgstore.Options{})
	for _, id := range []string{"a", "B", "_", "9", "b-", "b"} {
		if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: id}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for after := ""; ; {
		page, err := s.ListBoards(ctx, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range page {
			got = append(got, b.ID)
		}
		if len(page) < 2 {
			break
		}
		after = page[1].ID
	}
	if diff := cmp.Diff([]string{"9", "B", "_", "a", "b", "b-"}, got); diff != "" {
		t.Errorf("ListBoards in pages of 2 (-want +got):\n%s", diff)
	}
}
