package scenarios

import "github.com/sbsim/sbsim/model"

// TraceSink receives the trace records of a run as they happen (Config.TraceSink): a
// writer that streams them to a file, so that a long run's trace need not fit in memory.
// The record is the world's and valid only during the call: a sink that keeps it copies
// it. A sink cannot fail the run: one that cannot write keeps its error for its caller.
type TraceSink interface {
	Record(r *model.TraceRecord)
}

// TraceSinkFunc adapts a function to a TraceSink.
type TraceSinkFunc func(r *model.TraceRecord)

// Record calls f(r).
func (f TraceSinkFunc) Record(r *model.TraceRecord) { f(r) }

// startTracing sets up what the world does with trace records, from its config: keep them
// (Trace), count the table of conversations from them (Trace or Conversations), hand them
// to a sink.
func (w *world) startTracing() {
	w.tracing = w.cfg.Trace || w.cfg.Conversations || w.cfg.TraceSink != nil
	if w.cfg.Trace || w.cfg.Conversations {
		w.convStats = map[model.ConversationID]*conversationStats{}
	}
}

// record hands a stamped trace record to what the config asked for.
func (w *world) record(r *model.TraceRecord) {
	if w.cfg.Trace {
		w.trace = append(w.trace, *r)
	}
	if w.convStats != nil {
		w.countConversation(r)
	}
	if w.cfg.TraceSink != nil {
		w.cfg.TraceSink.Record(r)
	}
}

// DiscardTrace is a TraceSink that keeps nothing: the brokers trace, so that the figures
// counted from the records (InstanceResult.ConversationsDelayed) are there, and no record
// is kept (a batch's runs, which only judge).
var DiscardTrace TraceSink = TraceSinkFunc(func(*model.TraceRecord) {})

// PacketSink receives the packets the links are offered (Config.PacketSink): sent is what
// Result.Packets would hold of it, p the packet itself, with every fragment and
// acknowledgement it carries. Both are the world's and valid only during the call.
type PacketSink interface {
	Packet(sent *SentPacket, p *model.Packet)
}

// PacketSinkFunc adapts a function to a PacketSink.
type PacketSinkFunc func(sent *SentPacket, p *model.Packet)

// Packet calls f(sent, p).
func (f PacketSinkFunc) Packet(sent *SentPacket, p *model.Packet) { f(sent, p) }
