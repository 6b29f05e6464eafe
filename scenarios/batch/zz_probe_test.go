package batch

import (
	"fmt"
	"testing"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios/file"
)

func TestZZProbe(t *testing.T) {
	var all MarkTally
	for _, name := range file.LibraryNames() {
		s, err := file.Library(name)
		if err != nil {
			t.Fatal(err)
		}
		var jobs []Job
		for seed := 1; seed <= 3; seed++ {
			jobs = append(jobs, Job{Config: judged(s.Config), Seed: uint64(seed)})
		}
		var tl MarkTally
		for o := range Run(jobs, 2, nil) {
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			tl.AddResult(o.Kept)
		}
		var got []string
		for _, info := range MarkNamesReached(&tl) {
			got = append(got, info)
		}
		fmt.Printf("%s: %v\n", name, got)
		all.Merge(&tl)
	}
	fmt.Printf("NEVER: %v\n", MarkNames(all.NeverReached()))
}

func MarkNamesReached(t *MarkTally) []string {
	var out []string
	never := map[string]bool{}
	for _, n := range MarkNames(t.NeverReached()) {
		never[n] = true
	}
	for _, n := range MarkNames(allMarks()) {
		if !never[n] {
			out = append(out, n)
		}
	}
	return out
}

func allMarks() (out []model.Mark) {
	for _, i := range model.MarkTable() {
		out = append(out, i.Mark)
	}
	return
}
