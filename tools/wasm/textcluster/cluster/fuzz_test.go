package cluster

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzCluster clusters the lines of arbitrary text: never an error for a
// valid input, never a panic, and every property verify checks.
func FuzzCluster(f *testing.F) {
	f.Add("CI is slow\nSlow CI builds\nFlaky tests in CI\nMore tests needed", uint8(0))
	f.Add("PRs wait\nQA and PRs\nÜberprüfung läuft\nläuft\x00\xff", uint8(2))
	f.Add("stories\nstory\nrunning\nrun\nrunn", uint8(20))
	f.Fuzz(func(t *testing.T, text string, maxGroups uint8) {
		in := Input{Items: []Item{}}
		for i, line := range strings.Split(text, "\n") {
			in.Items = append(in.Items, Item{ID: fmt.Sprint(i), Text: line})
		}
		if maxGroups > 0 {
			m := float64(int(maxGroups-1)%MaxGroups + 1)
			in.MaxGroups = &m
		}
		if len(in.Items) > MaxItems {
			return
		}
		out, err := Cluster(in)
		if err != nil {
			if strings.Contains(err.Error(), "characters, at most") {
				return
			}
			t.Fatal(err)
		}
		if err := verify(in, out); err != nil {
			t.Fatal(err)
		}
	})
}
