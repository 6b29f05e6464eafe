package model

import (
	"math/bits"
	"unsafe"
)

// buffers are the broker's free lists of the slices its hot path fills and empties for
// every message: blocks of fragments and packets of acknowledgements (given back by the
// world with RecyclePacket once a link is done with them), selective acknowledgement
// ranges, and an endpoint's transmission queue rows, fragments in flight, partial messages
// and ready messages (given back when the endpoint lets go of them). A slice goes to a
// free list only when nothing else can still reach its memory: each call of put says who
// held it last.
type buffers struct {
	fragments slabs[Fragment]
	acks      slabs[Ack]
	ranges    slabs[FragmentRange]
	rows      slabs[txqRow]
	unacked   slabs[inFlight]
	pending   slabs[partialMessage]
	ready     slabs[queuedMessage]
}

// slabs is a free list of slices of T by capacity class: class k holds slices with room for
// at least 1<<k elements, at most slabBytesPerClass of room in all, or slabsPerClassMin
// slices where fewer would fit, as long as they hold at most slabBytesMaxPerClass; a
// class whose one slice is larger than that keeps none. What a burst left behind is
// bounded: at most slabBytesMaxPerClass a class.
type slabs[T any] struct {
	free [slabClasses][][]T
	// keep is set when recycling is off: put forgets the slice instead (SetRecycling).
	keep bool
}

const (
	slabClasses          = 24
	slabBytesPerClass    = 1 << 20
	slabsPerClassMin     = 16
	slabBytesMaxPerClass = 16 << 20
)

// class returns the class of a slice with room for c elements: the largest k with 1<<k <= c.
func slabClass(c int) int { return bits.Len(uint(c)) - 1 }

// slabsPerClass is how many slices of class k, of elements of size bytes, a free list keeps.
func slabsPerClass(size uintptr, k int) int {
	slice := int(size) << k
	if n := slabBytesPerClass / slice; n >= slabsPerClassMin {
		return n
	}
	return min(slabsPerClassMin, slabBytesMaxPerClass/slice)
}

// get returns an empty slice with room for at least n elements.
func (p *slabs[T]) get(n int) []T {
	k := slabClass(max(n, 1))
	if 1<<k < n {
		k++
	}
	if k < slabClasses {
		if l := p.free[k]; len(l) > 0 {
			s := l[len(l)-1]
			l[len(l)-1] = nil
			p.free[k] = l[:len(l)-1]
			return s
		}
	}
	return make([]T, 0, 1<<k)
}

// put takes back a slice its holder no longer uses: nothing may read or write its memory
// afterwards. Its elements are cleared, so that it keeps nothing alive.
func (p *slabs[T]) put(s []T) {
	if cap(s) == 0 || p.keep {
		return
	}
	var zero T
	k := slabClass(cap(s))
	if k >= slabClasses || len(p.free[k]) >= slabsPerClass(unsafe.Sizeof(zero), k) {
		return
	}
	s = s[:cap(s)]
	clear(s)
	p.free[k] = append(p.free[k], s[:0])
}

// grow returns s with room for at least one more element, its elements kept; when it moves
// them, the old slice goes back to the free list.
func (p *slabs[T]) grow(s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	t := append(p.get(2*len(s)), s...)
	p.put(s)
	return t
}

// push appends v to s, growing it from the free list.
func (p *slabs[T]) push(s []T, v T) []T {
	return append(p.grow(s), v)
}

// SetRecycling turns the free lists on (the default) or off. Off, every buffer the broker
// lets go of is left to the garbage collector and never reused: the broker behaves the
// same either way, which is how a test shows that no buffer is reused while something
// still reads it.
func (b *Broker) SetRecycling(on bool) {
	f := &b.buf
	f.fragments.keep, f.acks.keep, f.ranges.keep, f.rows.keep = !on, !on, !on, !on
	f.unacked.keep, f.pending.keep, f.ready.keep = !on, !on, !on
}

// RecyclePacket gives back the buffers of a packet from Effects.Transmit that the world is
// done with: every copy of it was delivered (PacketArrived has returned), lost or dropped.
// The packet must not be used afterwards, nor anything it points to; a world that keeps
// packets need never call it.
func (b *Broker) RecyclePacket(p *Packet) {
	for i := range p.Fragments {
		b.buf.ranges.put(p.Fragments[i].Ack.Selective)
	}
	for i := range p.Acks {
		b.buf.ranges.put(p.Acks[i].Selective)
	}
	b.buf.fragments.put(p.Fragments)
	b.buf.acks.put(p.Acks)
	p.Fragments, p.Acks = nil, nil
}

// releaseBuffers gives back the buffers of an endpoint that leaves the broker's tables or
// closes: nothing is sent, stored or made ready on it any more, and every pointer into them
// is gone (nextFragment's rows live only while a fragment is chosen and sent).
func (b *Broker) releaseBuffers(ep *endpoint) {
	if o := ep.out; o != nil && o.empty() && len(o.unacked) == 0 {
		b.buf.rows.put(o.rows)
		b.buf.unacked.put(o.unacked)
		o.rows, o.unacked, o.head = nil, nil, 0
	}
	if in := ep.in; in != nil && len(in.pending) == 0 {
		b.buf.pending.put(in.pending)
		in.pending = nil
	}
	if len(ep.ready) == 0 {
		b.buf.ready.put(ep.ready)
		ep.ready = nil
	}
}
