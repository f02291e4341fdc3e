package server_test

import (
	"testing"

	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/storetest"
)

func TestMemoryStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) server.Store { return server.NewMemoryStore() }, storetest.MaxHistory(100))
}
