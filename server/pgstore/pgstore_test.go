package pgstore_test

import (
	"context"
	"testing"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/pgstore"
	"github.com/codemode-dev/codemode/server/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var ctx = context.Background()

func open(t testing.TB, url string, opts pgstore.Options) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) server.Store {
		s, err := pgstore.Open(ctx, pgtest.URL(t), pgstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, storetest.MaxHistory(pgstore.DefaultMaxHistory))
}
