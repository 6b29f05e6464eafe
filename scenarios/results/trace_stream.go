package results

import (
	"errors"
	"fmt"
)

// traceStream is trace.jsonl written while the run goes: its temporary file and the
// writer onto it.
type traceStream struct {
	file *pendingFile
	*TraceWriter
}

// StreamTrace starts trace.jsonl in the folder, under a temporary name, and returns the
// writer to give the run as its Config.TraceSink: the records go to the file as they
// happen rather than to memory. WriteRun (or WriteRunFolder) then puts the file into
// place, in the order of WriteAll, when the run traced anything, and removes it
// otherwise; Abandon removes it.
func (f *Folder) StreamTrace() (*TraceWriter, error) {
	if f.stream != nil {
		return nil, errors.New("output: the folder streams its trace already")
	}
	file, err := f.createUnlisted(TraceFile)
	if err != nil {
		return nil, err
	}
	f.stream = &traceStream{file: file, TraceWriter: NewTraceWriter(file)}
	return f.stream.TraceWriter, nil
}

// commitTrace puts the streamed trace into place and returns its path, or "" when the
// folder streamed none or the run traced nothing (then the file is removed: WriteAll
// writes no empty trace either).
func (f *Folder) commitTrace() (string, error) {
	s := f.stream
	if s == nil {
		return "", nil
	}
	f.stream = nil
	if s.Records() == 0 {
		s.file.abort()
		return "", nil
	}
	if err := s.Flush(); err != nil {
		s.file.abort()
		return "", fmt.Errorf("write %s: %w", s.file.path, err)
	}
	if err := f.expect(TraceFile); err != nil {
		s.file.abort()
		return "", err
	}
	if err := s.file.commit(f, TraceFile); err != nil {
		return "", err
	}
	return s.file.path, nil
}

// abortTrace removes the trace being streamed, if any.
func (f *Folder) abortTrace() {
	if f.stream != nil {
		f.stream.file.abort()
		f.stream = nil
	}
}
