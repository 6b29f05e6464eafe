package results

import (
	"fmt"
	"io"

	"github.com/sbsim/sbsim/scenarios"
)

// writePrograms writes what the reader programs' statements did (docs/programs.md), one
// row per reader whose program ran any; nothing when none did, so that a world without
// programs reads as before.
func writePrograms(w io.Writer, res *scenarios.Result) {
	ran := false
	for _, r := range res.Readers {
		ran = ran || programRan(r)
	}
	if !ran {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "program statements in committed transactions (failures and lock waits: all):")
	tw := newTable(w)
	fmt.Fprintln(tw, "queue\tsend\tbegin-dialog\tend\ttimer\tgathered\tfailed\twaited\t")
	for _, r := range res.Readers {
		if programRan(r) {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", r.Queue, r.Sends, r.BeginDialogs, r.Ends, r.Timers,
				r.Gathered, r.StatementFailures, r.StatementWaits)
		}
	}
	tw.Flush()
}

func programRan(r scenarios.ReaderResult) bool {
	return r.Sends+r.BeginDialogs+r.Ends+r.Timers+r.Gathered+r.StatementFailures+r.StatementWaits > 0
}
