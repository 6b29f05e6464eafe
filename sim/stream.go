package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// newStream returns the PCG generator for the stream called name under seed. The generator's
// two state words are the seed and a hash of the name, passed through splitmix64 so that
// nearby seeds and similar names give unrelated streams.
func newStream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	x := splitmix64(seed ^ splitmix64(h.Sum64()))
	return rand.New(rand.NewPCG(x, splitmix64(x)))
}

// splitmix64 is the finaliser of Steele, Lea and Flood's SplitMix64: a bijection on uint64
// whose output bits each depend on every input bit.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
