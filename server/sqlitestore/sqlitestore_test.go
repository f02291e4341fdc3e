package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/sqlitestore"
	"github.com/codemode-dev/codemode/server/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) server.Store {
		s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "boards.db"), sqlitestore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, storetest.MaxHistory(sqlitestore.DefaultMaxHistory))
}
