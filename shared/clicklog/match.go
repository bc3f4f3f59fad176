package clicklog

import "strconv"

// botMatcher is built once from BotAgents.
var botMatcher = newMatcher(BotAgents)

// matcher finds any of a set of lower-case ASCII tokens in a string,
// ignoring ASCII case: the Wu-Manber multi-pattern search. It slides a
// window as long as the shortest token along the string and looks at the
// window's last two bytes: when no token has them anywhere in its first
// window-length bytes, the window jumps ahead by up to window-1 bytes; only
// where a token's prefix could end does it compare tokens. A browser's
// User-Agent is mostly skipped over, which makes the check a fraction of a
// byte-by-byte scan, let alone of one search per token.
type matcher struct {
	window int
	// shift is how far the window may move when its last two bytes hash
	// to the index; 0 means a token's prefix may end here.
	shift [shiftSize]uint8
	// ends numbers, by the hash of the last two bytes of their prefix, the
	// group of tokens to compare where the shift is 0: 1 + an index into
	// groups. Both stay small enough for the L1 cache.
	ends   [shiftSize]uint8
	groups [][]string
}

// shiftSize is the number of buckets the two-byte blocks hash into: 4 KiB,
// which stays in the L1 cache. Blocks that share a bucket share the smaller
// shift, which costs speed, never correctness.
const shiftSize = 1 << 12

func blockHash(a, b byte) uint { return (uint(a)<<6 ^ uint(b)) & (shiftSize - 1) }

// lower maps ASCII capitals to small letters and every other byte to itself.
var lower = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

func newMatcher(tokens []string) *matcher {
	m := &matcher{window: 1 << 30}
	for _, t := range tokens {
		if len(t) < 2 {
			panic("clicklog: bot agent " + strconv.Quote(t) + " is shorter than two bytes")
		}
		m.window = min(m.window, len(t))
	}
	for i := range m.shift {
		m.shift[i] = uint8(m.window - 1)
	}
	for _, t := range tokens {
		p := t[:m.window]
		for q := 1; q < len(p); q++ { // the block p[q-1:q+1]
			h := blockHash(p[q-1], p[q])
			m.shift[h] = min(m.shift[h], uint8(len(p)-1-q))
		}
		end := blockHash(p[len(p)-2], p[len(p)-1])
		if m.ends[end] == 0 {
			if len(m.groups) == 255 {
				panic("clicklog: too many bot agents for the matcher")
			}
			m.groups = append(m.groups, nil)
			m.ends[end] = uint8(len(m.groups))
		}
		g := m.ends[end] - 1
		m.groups[g] = append(m.groups[g], t)
	}
	return m
}

func (m *matcher) match(s string) bool {
	for pos := m.window - 1; pos < len(s); {
		h := blockHash(lower[s[pos-1]], lower[s[pos]])
		if sh := m.shift[h]; sh > 0 {
			pos += int(sh)
			continue
		}
		start := pos - m.window + 1
		for _, t := range m.groups[m.ends[h]-1] {
			if hasPrefixFold(s[start:], t) {
				return true
			}
		}
		pos++
	}
	return false
}

// hasPrefixFold reports whether s starts with the lower-case token t,
// ignoring ASCII case.
func hasPrefixFold(s, t string) bool {
	if len(s) < len(t) {
		return false
	}
	for i := 0; i < len(t); i++ {
		if lower[s[i]] != t[i] {
			return false
		}
	}
	return true
}
