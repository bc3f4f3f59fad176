package packedclicks

import "context"

// Level names the part of the layout a DynamoDB call of the store works
// on, so that a meter can split what the store consumes by level: the
// store puts it in the context of every call it makes, and LevelOf reads
// it back in an SDK middleware (internal/capacity.Meter.Tag, cmd/cost).
type Level string

// Levels, from the click to the folded day.
const (
	// LevelRollup: Apply's transaction of a rollup and the checkpoint,
	// and checkpoint reads.
	LevelRollup Level = "rollup"
	// LevelCompaction: the compaction's state and its listing of the
	// rollups it takes.
	LevelCompaction Level = "compaction"
	// LevelSegment: a compaction's segment puts.
	LevelSegment Level = "segment"
	// LevelChain: a merge of a group's segments into its day items'
	// chains (the segment reads, the chains' reads, the new items).
	LevelChain Level = "chain"
	// LevelFold: a closed day's fold (the same reads, the folded items
	// and the deletes of the chains they replace).
	LevelFold Level = "fold"
	// LevelRead: a stats read (Series, Breakdown, View, Counts).
	LevelRead Level = "read"
)

type levelKey struct{}

func withLevel(ctx context.Context, l Level) context.Context {
	return context.WithValue(ctx, levelKey{}, l)
}

// LevelOf returns the level ctx's call works on; "" for a context that
// did not come from the store.
func LevelOf(ctx context.Context) Level {
	l, _ := ctx.Value(levelKey{}).(Level)
	return l
}

// WithLevel tags ctx's calls with l, for a caller whose calls on the same
// table belong with one of the store's levels in a meter (cmd/cost bills
// the day's visitor salt with the compaction state).
func WithLevel(ctx context.Context, l Level) context.Context { return withLevel(ctx, l) }
