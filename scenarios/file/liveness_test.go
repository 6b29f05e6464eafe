package file

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
)

// The liveness key (INV-12) loads each of its forms, and Marshal writes it back.
func TestLivenessKeyLoadsAndRoundTrips(t *testing.T) {
	cases := []struct {
		text string
		want scenarios.Liveness
	}{
		{"", scenarios.Liveness{}},
		{"liveness: on\n", scenarios.Liveness{}},
		{"liveness: off\n", scenarios.Liveness{Off: true}},
		{"liveness: {within: 3m}\n", scenarios.Liveness{Within: 3 * time.Minute}},
		{"liveness: {after: 40m, within: 10m}\n", scenarios.Liveness{After: 40 * time.Minute, Within: 10 * time.Minute}},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			f, err := Load("l.yaml", []byte(base+tc.text))
			require.NoError(t, err)
			assert.Equal(t, tc.want, f.Config.Liveness)

			out, err := f.Marshal()
			require.NoError(t, err)
			g, err := Load("l.yaml", out)
			require.NoError(t, err, "written:\n%s", out)
			assert.Equal(t, tc.want, g.Config.Liveness, "written:\n%s", out)
		})
	}
}
