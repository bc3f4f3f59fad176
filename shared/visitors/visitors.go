package visitors

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/bits"
)

// Precision is log2 of the registers: 10, 1,024 registers.
const Precision = 10

// Registers is the number of registers, m.
const Registers = 1 << Precision

// MaxRank is the largest rank a register holds (5 bits): a rank of 31
// needs 30 zero bits after the index, at odds of 1 in 2^30 a visitor.
const MaxRank = 31

// StandardError is the relative standard error of an estimate,
// 1.04/sqrt(Registers): 3.25 %.
var StandardError = 1.04 / math.Sqrt(Registers)

// SaltBytes is the size of a day's salt.
const SaltBytes = 32

// Register is one observation: a register index (the hash's high
// Precision bits) in the high 11 bits (the top one 0 at precision 10) and the rank (1 + the leading zeros
// of the rest, at most MaxRank) in the low 5.
type Register uint16

// Index is the register the observation is for.
func (r Register) Index() int { return int(r >> 5) }

// Rank is the observation's rank, 1 to MaxRank; 0 for the zero Register,
// which is no observation.
func (r Register) Rank() uint8 { return uint8(r & 31) }

// Observe hashes a viewer under the day's salt into a register
// observation. ip and userAgent are read and forgotten.
func Observe(salt []byte, ip, userAgent string) Register {
	mac := hmac.New(sha256.New, salt)
	mac.Write([]byte(ip))
	mac.Write([]byte{0}) // an address never holds a NUL: the two cannot run into each other
	mac.Write([]byte(userAgent))
	var sum [sha256.Size]byte
	return FromHash(binary.BigEndian.Uint64(mac.Sum(sum[:0])))
}

// FromHash makes the observation of a uniform 64-bit hash.
func FromHash(h uint64) Register {
	idx := h >> (64 - Precision)
	rest := h<<Precision | 1<<(Precision-1) // a guard bit bounds the zeros
	rank := min(bits.LeadingZeros64(rest)+1, MaxRank)
	return Register(idx<<5 | uint64(rank))
}

// Dim is r as a breakdown value: four lower-case hex digits, text so that
// any store can key by it (a DynamoDB string must be UTF-8); the packed
// store keeps it as two bytes.
func (r Register) Dim() string {
	const hex = "0123456789abcdef"
	return string([]byte{hex[r>>12], hex[r>>8&15], hex[r>>4&15], hex[r&15]})
}

// FromDim reads a value Dim made; ok is false for anything else.
func FromDim(d string) (Register, bool) {
	if len(d) != 4 {
		return 0, false
	}
	var r Register
	for i := 0; i < 4; i++ {
		c := d[i]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | Register(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | Register(c-'a'+10)
		default:
			return 0, false
		}
	}
	return r, r.Rank() > 0
}

// Sketch is a dense HyperLogLog: one rank per register. The zero value is
// empty.
type Sketch struct {
	regs [Registers]uint8
}

// Add records an observation; the zero Register adds nothing.
func (s *Sketch) Add(r Register) {
	if i := r.Index(); r.Rank() > s.regs[i] {
		s.regs[i] = r.Rank()
	}
}

// Merge adds every observation of o.
func (s *Sketch) Merge(o *Sketch) {
	for i, v := range o.regs {
		s.regs[i] = max(s.regs[i], v)
	}
}

// Estimate is the number of distinct visitors added, within StandardError
// (linear counting while many registers are empty).
func (s *Sketch) Estimate() float64 {
	const m = float64(Registers)
	alpha := 0.7213 / (1 + 1.079/m)
	sum, zeros := 0.0, 0
	for _, v := range s.regs {
		sum += math.Ldexp(1, -int(v))
		if v == 0 {
			zeros++
		}
	}
	e := alpha * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros))
	}
	return e
}

// Observations lists the sketch's non-empty registers, by index: its
// sparse form.
func (s *Sketch) Observations() []Register {
	var out []Register
	for i, v := range s.regs {
		if v > 0 {
			out = append(out, Register(i<<5|int(v)))
		}
	}
	return out
}

// DenseBytes is the size of a sketch's dense encoding: 5 bits a register.
const DenseBytes = Registers * 5 / 8

// AppendDense appends the registers, 5 bits each, packed big-endian.
func (s *Sketch) AppendDense(b []byte) []byte {
	var acc uint64
	n := 0
	for _, v := range s.regs {
		acc = acc<<5 | uint64(v&31)
		n += 5
		for n >= 8 {
			n -= 8
			b = append(b, byte(acc>>n))
		}
	}
	return b
}

// ReadDense reads DenseBytes of AppendDense's encoding into s.
func (s *Sketch) ReadDense(b []byte) bool {
	if len(b) != DenseBytes {
		return false
	}
	var acc uint64
	n, j := 0, 0
	for i := range s.regs {
		for n < 5 {
			acc = acc<<8 | uint64(b[j])
			j++
			n += 8
		}
		n -= 5
		s.regs[i] = uint8(acc>>n) & 31
	}
	return true
}
