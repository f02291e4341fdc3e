package server_test

import (
	"testing"

	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/clustertest"
)

// TestMemoryCluster holds the in-process cluster to the conformance suite:
// three servers over one memory store.
func TestMemoryCluster(t *testing.T) {
	clustertest.Run(t, func(t *testing.T, n int) []clustertest.Member {
		store, cluster := server.NewMemoryStore(), server.NewMemoryCluster()
		var ms []clustertest.Member
		for range n {
			ms = append(ms, clustertest.Member{Store: store, Cluster: cluster.Join()})
		}
		return ms
	})
}
