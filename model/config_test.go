package model

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestConfigValidateNamesTheField(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{FragmentSize: -1}, "broker config: FragmentSize -1 is negative"},
		{Config{AckDelay: -time.Second}, "broker config: AckDelay -1s is negative"},
		{Config{RetryIntervalMax: time.Second}, "broker config: RetryIntervalMax 1s is below RetryIntervalMin 4s"},
		{Config{ClosedTargetRetention: time.Minute},
			"broker config: ClosedTargetRetention 1m0s is below twice RetryIntervalMax 1m4s: a retried fragment could outlive a closed target and create a second one"},
		{Config{FragmentSize: 2 << 30}, "broker config: FragmentSize 2147483648 is above 1 GiB"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.EqualError(t, tt.cfg.WithDefaults().Validate(), tt.want)
			_, err := NewBroker(mustCompile(t), 0, tt.cfg)
			assert.ErrorContains(t, err, tt.want, "NewBroker validates the config it will use")
		})
	}
	assert.NoError(t, Config{}.WithDefaults().Validate(), "the defaults are valid")
	assert.Equal(t, DefaultConfig(), Config{}.WithDefaults())
}

func mustCompile(t *testing.T) *Catalog {
	t.Helper()
	cat, err := Compile(testInstances())
	if err != nil {
		t.Fatal(err)
	}
	return cat
}
