package results

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
)

// A seed whose runs differ fails the check (exit 1) with the report of the first record
// that differs and the command that replays the seed: here lossy-wan, whose readers end
// each conversation on its reply, with an error or without, as the first key of a Go map
// says.
func TestDeterminismReportFailsASeedWhoseRunsDiffer(t *testing.T) {
	s, err := file.Library("lossy-wan")
	require.NoError(t, err)
	cfg := s.Config
	choices := map[string]int32{"a": 0, "b": 50001, "c": 0, "d": 50002, "e": 0, "f": 50003, "g": 0, "h": 50004}
	cfg.Readers = append([]scenarios.Reader(nil), cfg.Readers...)
	require.NotEmpty(t, cfg.Readers)
	for i := range cfg.Readers {
		cfg.Readers[i].Hook = func(ctx *scenarios.HookContext) ([]scenarios.Statement, bool) {
			if ctx.Message.MessageType == model.EndDialogMessageType {
				return nil, false
			}
			for _, code := range choices {
				return []scenarios.Statement{{Kind: scenarios.StatementEnd, ErrorCode: code}}, true
			}
			return nil, false
		}
	}
	jobs := []batch.Job{{Config: s.Config, Seed: 1}, {Config: cfg, Seed: 2}}
	var out, errOut bytes.Buffer

	code := reportDeterminism(context.Background(), jobs, 2, nil, func(i int) string { return "REPLAY" }, &out, &errOut)

	assert.Equal(t, ExitFailed, code, out.String())
	assert.Contains(t, out.String(), "NOT DETERMINISTIC  lossy-wan seed 2: the run is not deterministic")
	assert.NotContains(t, out.String(), "seed 1:")
	assert.Contains(t, out.String(), "\n      run twice more side by side (A and B), they first differ at trace record ")
	assert.Contains(t, out.String(), "\n        fields that differ (A / B): ")
	assert.Contains(t, out.String(), "      replay: REPLAY\n")
	assert.Contains(t, out.String(), "determinism: 1 of 2 seeds not deterministic, 0 could not run")
}
