package results

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
)

// Progress returns a progress bar of total steps on stderr when it is a terminal, and
// nothing (a nil tick) otherwise: a pipe or a file gets no control characters.
func Progress(stderr io.Writer, total int, what string) (tick func(), finish func()) {
	f, ok := stderr.(*os.File)
	if !ok {
		return nil, func() {}
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil, func() {}
	}
	bar := progressbar.NewOptions(total, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	return func() { _ = bar.Add(1) }, func() { _ = bar.Finish() }
}
