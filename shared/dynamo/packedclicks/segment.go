package packedclicks

import (
	"bytes"
	"cmp"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/visitors"
)

const secondsPerDay = 24 * 60 * 60

// dimKey is one breakdown entry of a code's day: a kind other than Hour and
// Day (Country, Referrer, and whatever kind is added later) and its value.
type dimKey struct {
	kind clickstore.Kind
	dim  string
}

// codeDay is everything counted for one code on one UTC day.
type codeDay struct {
	day   clickstore.Counts
	hours map[uint8]clickstore.Counts  // hour of the day, 0-23
	dims  map[dimKey]clickstore.Counts // per breakdown kind and value
}

func (c *codeDay) add(o *codeDay) {
	c.day.Add(o.day)
	for h, n := range o.hours {
		if c.hours == nil {
			c.hours = map[uint8]clickstore.Counts{}
		}
		v := c.hours[h]
		v.Add(n)
		c.hours[h] = v
	}
	for k, n := range o.dims {
		if c.dims == nil {
			c.dims = map[dimKey]clickstore.Counts{}
		}
		v := c.dims[k]
		v.Add(n)
		c.dims[k] = v
	}
}

// segment holds counts per UTC day (epoch seconds of its start) and code:
// a rollup (one chunk, any days, any codes) or a compacted item (one day,
// the codes of one bucket) once decoded.
type segment map[int64]map[string]*codeDay

func (s segment) get(day int64, code string) *codeDay {
	codes := s[day]
	if codes == nil {
		codes = map[string]*codeDay{}
		s[day] = codes
	}
	c := codes[code]
	if c == nil {
		c = &codeDay{}
		codes[code] = c
	}
	return c
}

// addItem adds one counter item of a chunk.
func (s segment) addItem(it clickstore.Item) {
	day := it.Start - mod(it.Start, secondsPerDay)
	c := s.get(day, it.Code)
	switch it.Kind {
	case clickstore.Hour:
		if c.hours == nil {
			c.hours = map[uint8]clickstore.Counts{}
		}
		h := uint8((it.Start - day) / 3600)
		v := c.hours[h]
		v.Add(it.Counts)
		c.hours[h] = v
	case clickstore.Day:
		c.day.Add(it.Counts)
	default:
		if c.dims == nil {
			c.dims = map[dimKey]clickstore.Counts{}
		}
		k := dimKey{kind: it.Kind, dim: it.Dim}
		v := c.dims[k]
		v.Add(it.Counts)
		c.dims[k] = v
	}
}

// merge adds o's counts to s.
func (s segment) merge(o segment) {
	for day, codes := range o {
		for code, c := range codes {
			s.get(day, code).add(c)
		}
	}
}

// items lists s as counter items, in clickstore.CompareKeys order.
func (s segment) items() []clickstore.Item {
	var out []clickstore.Item
	for day, codes := range s {
		for code, c := range codes {
			if c.day != (clickstore.Counts{}) {
				out = append(out, clickstore.Item{Key: clickstore.Key{Code: code, Kind: clickstore.Day, Start: day}, Counts: c.day})
			}
			for h, n := range c.hours {
				out = append(out, clickstore.Item{Key: clickstore.Key{Code: code, Kind: clickstore.Hour, Start: day + int64(h)*3600}, Counts: n})
			}
			for k, n := range c.dims {
				out = append(out, clickstore.Item{Key: clickstore.Key{Code: code, Kind: k.kind, Start: day, Dim: k.dim}, Counts: n})
			}
		}
	}
	slices.SortFunc(out, func(a, b clickstore.Item) int { return clickstore.CompareKeys(a.Key, b.Key) })
	return out
}

func mod(a, b int64) int64 {
	r := a % b
	if r < 0 {
		r += b
	}
	return r
}

// The encoding, before DEFLATE (RFC 1951): a version byte, then the
// dimension values once each (a string table: most are a few countries
// and hosts shared by many codes), then per day (sorted) its codes
// (sorted), each with its day counts (or a 0 byte when they are its hours'
// sum, as they are for every click the clicks function counts), its hours
// and its breakdown entries. Numbers are varints; a string is its length
// and bytes; counts are human (shifted left, the low bit set when total is
// not human + bot), bot, and total only then.
//
// Version 3 marks a breakdown entry that counts what its code's day counts
// (the kind byte's high bit, sameAsDay) and leaves its counts out; and it
// adds, after a code's breakdown entries, its visitor register
// observations (clickstore.Visitor), which are not in the string table: a
// number n, then, when n is denseMark, the registers packed 5 bits each
// (visitors.DenseBytes); when n is 1 to maxSparse, its n observations
// (sorted, one per register index: the highest rank) are in the columns
// after the last day (visitorColumns). Before it is written, a code's day keeps at most
// clickstore.MaxCampaigns campaigns (clickstore.CapCampaigns). Version 2
// segments, without observations, still read.
const segmentVersion = 3

const (
	// sameAsDay, in version 3, marks a breakdown entry whose counts are
	// its code-day's (the kind byte's high bit; kinds stay below it).
	sameAsDay = 0x80
	// maxSparse is the most observations kept as a list: past it, the
	// dense registers take fewer bytes.
	maxSparse = visitors.DenseBytes / 2
	denseMark = maxSparse + 1
)

// normalize caps c's campaigns and keeps one visitor observation per
// register index, the highest. Neither changes what a reader gets: the
// totals stay, and an estimate takes each index's highest rank.
func (c *codeDay) normalize() {
	var campaigns map[string]clickstore.Counts
	best := map[int]visitors.Register{}
	for k, n := range c.dims {
		switch k.kind {
		case clickstore.Campaign:
			if campaigns == nil {
				campaigns = map[string]clickstore.Counts{}
			}
			campaigns[k.dim] = n
		case clickstore.Visitor:
			r, ok := visitors.FromDim(k.dim)
			if ok && r.Rank() > best[r.Index()].Rank() {
				best[r.Index()] = r
			}
			delete(c.dims, k)
		}
	}
	for _, r := range best {
		c.dims[dimKey{kind: clickstore.Visitor, dim: r.Dim()}] = clickstore.Counts{Total: 1, Human: 1}
	}
	if len(campaigns) > clickstore.MaxCampaigns {
		for d := range campaigns {
			delete(c.dims, dimKey{kind: clickstore.Campaign, dim: d})
		}
		clickstore.CapCampaigns(campaigns)
		for d, n := range campaigns {
			c.dims[dimKey{kind: clickstore.Campaign, dim: d}] = n
		}
	}
}

// visitorColumns gathers the sparse observations of a segment's code-days
// in encoding order, written after them as two columns: register indexes
// packed Precision bits each, then ranks one byte each. Apart, DEFLATE
// codes the ranks (most are 1 to 3) in about two bits and leaves the
// indexes, which are uniform, at their ten, instead of both costing a
// Huffman code of random bytes amid the rest.
type visitorColumns struct {
	regs []visitors.Register
}

// appendVisitors writes c's visitor observations (normalized): their
// count, and the registers dense when they are many; the sparse ones go
// to cols.
func (c *codeDay) appendVisitors(raw []byte, cols *visitorColumns) []byte {
	var regs []visitors.Register
	for k := range c.dims {
		if k.kind == clickstore.Visitor {
			if r, ok := visitors.FromDim(k.dim); ok {
				regs = append(regs, r)
			}
		}
	}
	if len(regs) > maxSparse {
		var sk visitors.Sketch
		for _, r := range regs {
			sk.Add(r)
		}
		raw = binary.AppendUvarint(raw, denseMark)
		return sk.AppendDense(raw)
	}
	slices.Sort(regs)
	raw = binary.AppendUvarint(raw, uint64(len(regs)))
	cols.regs = append(cols.regs, regs...)
	return raw
}

func (cols *visitorColumns) append(raw []byte) []byte {
	var acc uint64
	n := 0
	for _, r := range cols.regs {
		acc = acc<<visitors.Precision | uint64(r.Index())
		n += visitors.Precision
		for n >= 8 {
			n -= 8
			raw = append(raw, byte(acc>>n))
		}
	}
	if n > 0 {
		raw = append(raw, byte(acc<<(8-n)))
	}
	for _, r := range cols.regs {
		raw = append(raw, r.Rank())
	}
	return raw
}

// pendingVisitors is a code-day whose sparse observations are in the
// columns: n of them, added to c when c is not nil.
type pendingVisitors struct {
	c *codeDay
	n int
}

// readVisitors reads what appendVisitors wrote into c (when want); sparse
// observations are noted in pending, for readColumns.
func (r *reader) readVisitors(c *codeDay, want bool, pending *[]pendingVisitors) {
	n := r.uvarint()
	switch {
	case n == denseMark:
		if len(r.b) < visitors.DenseBytes {
			r.fail("registers")
			return
		}
		var sk visitors.Sketch
		sk.ReadDense(r.b[:visitors.DenseBytes])
		r.b = r.b[visitors.DenseBytes:]
		if want {
			addVisitors(c, sk.Observations())
		}
	case n > maxSparse:
		r.fail("observations")
	case n > 0:
		p := pendingVisitors{n: int(n)}
		if want {
			p.c = c
		}
		*pending = append(*pending, p)
	}
}

// readColumns reads the observation columns of pending's code-days.
func (r *reader) readColumns(pending []pendingVisitors) {
	total := 0
	for _, p := range pending {
		total += p.n
	}
	idxBytes := (total*visitors.Precision + 7) / 8
	if len(r.b) < idxBytes+total {
		r.fail("observation columns")
		return
	}
	idx, ranks := r.b[:idxBytes], r.b[idxBytes:idxBytes+total]
	r.b = r.b[idxBytes+total:]
	var acc uint64
	bitsIn, j, k := 0, 0, 0
	for _, p := range pending {
		regs := make([]visitors.Register, 0, p.n)
		for range p.n {
			for bitsIn < visitors.Precision {
				acc = acc<<8 | uint64(idx[j])
				j++
				bitsIn += 8
			}
			bitsIn -= visitors.Precision
			i := (acc >> bitsIn) & (visitors.Registers - 1)
			rank := ranks[k] & 31
			k++
			regs = append(regs, visitors.Register(i<<5|uint64(rank)))
		}
		if p.c != nil {
			addVisitors(p.c, regs)
		}
	}
}

func addVisitors(c *codeDay, regs []visitors.Register) {
	for _, o := range regs {
		if o.Rank() == 0 {
			continue
		}
		if c.dims == nil {
			c.dims = map[dimKey]clickstore.Counts{}
		}
		c.dims[dimKey{kind: clickstore.Visitor, dim: o.Dim()}] = clickstore.Counts{Total: 1, Human: 1}
	}
}

// encode writes s compressed. The same segment encodes to the same bytes.
func (s segment) encode() ([]byte, error) {
	var raw []byte
	strs := map[string]uint64{}
	var table []string
	for _, day := range slices.Sorted(maps.Keys(s)) {
		for _, c := range s[day] {
			c.normalize()
			for k := range c.dims {
				if k.kind == clickstore.Visitor {
					continue
				}
				if _, ok := strs[k.dim]; !ok {
					strs[k.dim] = 0
					table = append(table, k.dim)
				}
			}
		}
	}
	slices.Sort(table)
	for i, v := range table {
		strs[v] = uint64(i)
	}
	raw = append(raw, segmentVersion)
	raw = binary.AppendUvarint(raw, uint64(len(table)))
	for _, v := range table {
		raw = appendString(raw, v)
	}
	raw = binary.AppendUvarint(raw, uint64(len(s)))
	var cols visitorColumns
	for _, day := range slices.Sorted(maps.Keys(s)) {
		codes := s[day]
		raw = binary.AppendVarint(raw, day/secondsPerDay)
		raw = binary.AppendUvarint(raw, uint64(len(codes)))
		for _, code := range slices.Sorted(maps.Keys(codes)) {
			c := codes[code]
			raw = appendString(raw, code)
			// The day's counts are usually its hours' sum: then only a
			// flag says so.
			if sum := c.hourSum(); len(c.hours) > 0 && sum == c.day {
				raw = append(raw, 0)
			} else {
				raw = append(raw, 1)
				raw = appendCounts(raw, c.day)
			}
			raw = binary.AppendUvarint(raw, uint64(len(c.hours)))
			for _, h := range slices.Sorted(maps.Keys(c.hours)) {
				raw = append(raw, h)
				raw = appendCounts(raw, c.hours[h])
			}
			dims := slices.SortedFunc(maps.Keys(c.dims), func(a, b dimKey) int {
				return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.dim, b.dim))
			})
			dims = slices.DeleteFunc(dims, func(k dimKey) bool { return k.kind == clickstore.Visitor })
			raw = binary.AppendUvarint(raw, uint64(len(dims)))
			for _, k := range dims {
				// Most code-days hold one click, so most entries count
				// what the day counts: then the kind's high bit says so
				// and the counts are left out.
				n := c.dims[k]
				if n == c.day {
					raw = append(raw, byte(k.kind)|sameAsDay)
					raw = binary.AppendUvarint(raw, strs[k.dim])
					continue
				}
				raw = append(raw, byte(k.kind))
				raw = binary.AppendUvarint(raw, strs[k.dim])
				raw = appendCounts(raw, n)
			}
			raw = c.appendVisitors(raw, &cols)
		}
	}
	raw = cols.append(raw)
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendCounts writes human and bot, and total only when it is not their
// sum (the low bit of the first number says which).
func appendCounts(b []byte, c clickstore.Counts) []byte {
	odd := c.Total != c.Human+c.Bot
	first := uint64(c.Human) << 1
	if odd {
		first |= 1
	}
	b = binary.AppendUvarint(b, first)
	b = binary.AppendUvarint(b, uint64(c.Bot))
	if odd {
		b = binary.AppendUvarint(b, uint64(c.Total))
	}
	return b
}

func (c *codeDay) hourSum() clickstore.Counts {
	var sum clickstore.Counts
	for _, n := range c.hours {
		sum.Add(n)
	}
	return sum
}

// maxDecoded bounds what one segment may inflate to: an item is at most
// 400 KB and this data compresses a few times at most.
const maxDecoded = 64 << 20

var errCorrupt = errors.New("corrupt click segment")

// decodeSegment reads an encoded segment; only reads into keep when
// keep is not empty (the codes a reader wants), which saves building the
// rest.
func decodeSegment(data []byte, keep string) (segment, error) {
	raw, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(data)), maxDecoded))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errCorrupt, err)
	}
	r := reader{b: raw}
	version := r.byte()
	if version != segmentVersion && version != 2 {
		return nil, fmt.Errorf("%w: unknown version", errCorrupt)
	}
	table := make([]string, r.count())
	for i := range table {
		table[i] = r.string()
	}
	s := segment{}
	var pending []pendingVisitors
	days := r.count()
	for range days {
		day := r.varint() * secondsPerDay
		codes := r.count()
		for range codes {
			code := r.string()
			want := keep == "" || code == keep
			var c *codeDay
			if want {
				c = s.get(day, code)
			} else {
				c = &codeDay{}
			}
			explicitDay := r.byte() == 1
			var dayCounts clickstore.Counts
			if explicitDay {
				dayCounts = r.counts()
			}
			var hourSum clickstore.Counts
			for range r.count() {
				h := r.byte()
				n := r.counts()
				hourSum.Add(n)
				if want {
					if c.hours == nil {
						c.hours = map[uint8]clickstore.Counts{}
					}
					v := c.hours[h]
					v.Add(n)
					c.hours[h] = v
				}
			}
			if explicitDay {
				c.day.Add(dayCounts)
			} else {
				c.day.Add(hourSum)
			}
			for range r.count() {
				b := r.byte()
				kind := clickstore.Kind(b &^ sameAsDay)
				i := r.uvarint()
				var n clickstore.Counts
				if version >= 3 && b&sameAsDay != 0 {
					if explicitDay {
						n = dayCounts
					} else {
						n = hourSum
					}
				} else {
					n = r.counts()
				}
				if r.err == nil && i >= uint64(len(table)) {
					r.err = errCorrupt
				}
				if want && r.err == nil {
					if c.dims == nil {
						c.dims = map[dimKey]clickstore.Counts{}
					}
					k := dimKey{kind: kind, dim: table[i]}
					v := c.dims[k]
					v.Add(n)
					c.dims[k] = v
				}
			}
			if version >= 3 {
				r.readVisitors(c, want, &pending)
			}
			if r.err != nil {
				return nil, r.err
			}
		}
	}
	if r.err == nil && version >= 3 {
		r.readColumns(pending)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", errCorrupt, len(r.b))
	}
	return s, nil
}

// reader reads the encoding, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: truncated %s", errCorrupt, what)
	}
	r.b = nil
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.fail("byte")
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a length, bounded by the bytes left (every element takes at
// least one), so a corrupt length cannot make a reader loop for long.
func (r *reader) count() int {
	v := r.uvarint()
	if v > uint64(len(r.b)) {
		r.fail("count")
		return 0
	}
	return int(v)
}

func (r *reader) string() string {
	n := r.count()
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *reader) counts() clickstore.Counts {
	first := r.uvarint()
	c := clickstore.Counts{Human: int64(first >> 1), Bot: int64(r.uvarint())}
	c.Total = c.Human + c.Bot
	if first&1 == 1 {
		c.Total = int64(r.uvarint())
	}
	return c
}
