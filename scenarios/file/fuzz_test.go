package file

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzLoad feeds the loader arbitrary bytes: it never panics, every failure is a
// Errors naming the file, and every file it accepts is written and loaded back to the
// same File. The seed corpus (the files of testdata/files, the bad files of
// TestLoadReportsBadFiles, and fault plans) runs with go test; go test -fuzz=FuzzLoad
// ./scenarios explores.
func FuzzLoad(f *testing.F) {
	for _, path := range testdataFiles(f) {
		data, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(data)
	}
	for _, tc := range slices.Concat(badFiles, faultPlanBadFiles) {
		f.Add([]byte(tc.file))
	}
	f.Add([]byte(planSites + "fault_plan: []\n"))
	f.Add([]byte(planSites + "broker: {defects: [share-held-lock]}\nfault_plan: [{from: B, to: A, packet: \"ack c1 T→I seq=0 frag=0\", copy: 3, at: 1s, corrupt: yes, jitter: 1ms}]\n"))
	f.Add([]byte("x-a: &a [*a]\ninstances: *a\n"))
	f.Add([]byte("instances: [{name: A, databases: [{name: D, <<: {queues: [{name: Q}]}}]}]\n"))
	f.Add([]byte("instances: [{name: \"\\xff\\u0000\", databases: [{name: D}]}]\nexpect: [{metric: end_time, below: 9223372036s}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Load("fuzz.yaml", data)
		if err != nil {
			var errs Errors
			require.True(t, errors.As(err, &errs), "error %v is not Errors", err)
			require.NotEmpty(t, errs)
			for _, e := range errs {
				require.Equal(t, "fuzz.yaml", e.File, "error %v", e)
			}
			return
		}
		out, err := file.Marshal()
		require.NoError(t, err)
		again, err := Load("fuzz.yaml", out)
		require.NoError(t, err, "written:\n%s", out)
		again.Source, again.Hash, again.Places = file.Source, file.Hash, file.Places // of the text, which Marshal rewrites
		require.Equal(t, file, again, "written:\n%s", out)
	})
}
