package pgstore_test

import (
	"testing"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server/clustertest"
	"github.com/codemode-dev/codemode/server/pgstore"
)

// TestCluster holds the PostgreSQL cluster to the conformance suite: three
// replicas, each with a Store and a membership of its own, over one
// database.
func TestCluster(t *testing.T) {
	clustertest.Run(t, func(t *testing.T, n int) []clustertest.Member {
		url := pgtest.URL(t)
		var ms []clustertest.Member
		for range n {
			s := open(t, url, pgstore.Options{})
			c, err := s.Join(ctx, pgstore.ClusterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			ms = append(ms, clustertest.Member{Store: s, Cluster: c})
		}
		return ms
	})
}
