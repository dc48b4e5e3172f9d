package search

import "sort"

// Search modes.
const (
	ModeBM25   = "bm25"
	ModeVector = "vector"
	ModeHybrid = "hybrid"
)

// EffectiveMode is the mode a search runs in (Mastra's rules): hybrid asked
// for but not available becomes vector when that is, else bm25; vector not
// available becomes bm25; no mode asked is hybrid when both kinds of search
// are available, else vector when it is, else bm25.
func EffectiveMode(asked string, canBM25, canVector bool) string {
	switch asked {
	case ModeHybrid:
		if canBM25 && canVector {
			return ModeHybrid
		}
		if canVector {
			return ModeVector
		}
		return ModeBM25
	case ModeVector:
		if canVector {
			return ModeVector
		}
		return ModeBM25
	case ModeBM25:
		return ModeBM25
	}
	switch {
	case canBM25 && canVector:
		return ModeHybrid
	case canVector:
		return ModeVector
	}
	return ModeBM25
}

// ScoreDetails are the scores a result got from each kind of search: the
// cosine similarity and the raw BM25 score (nil: that search did not
// return it).
type ScoreDetails struct {
	Vector *float64 `json:"vector,omitempty"`
	BM25   *float64 `json:"bm25,omitempty"`
}

// HybridTopK is how many results each search of a hybrid search returns:
// min(2·topK, 50).
func HybridTopK(topK float64) float64 { return min(topK*2, 50) }

// Scored is a result with the scores it got.
type Scored struct {
	Hit
	Details ScoreDetails
}

// Merge is the hybrid ranking: BM25 scores min-max normalised (all equal:
// 1), combined as weight·vector + (1−weight)·bm25 with a missing side 0,
// sorted by the combination (ties: vector results first, in their order,
// then the BM25-only ones), then minScore (when set) and topK applied. A
// result keeps the vector side's content and the BM25 side's line range
// when it has them; its details are both raw scores.
func Merge(vector, keyword []Hit, weight, topK float64, minScore *float64) []Scored {
	norm := make([]float64, len(keyword))
	if len(keyword) > 0 {
		lo, hi := keyword[0].Score, keyword[0].Score
		for _, h := range keyword {
			lo, hi = min(lo, h.Score), max(hi, h.Score)
		}
		for i, h := range keyword {
			if hi == lo {
				norm[i] = 1
			} else {
				norm[i] = (h.Score - lo) / (hi - lo)
			}
		}
	}
	byID := map[string]int{}
	for i, h := range keyword {
		byID[h.ID] = i
	}
	var out []Scored
	seen := map[string]bool{}
	for _, v := range vector {
		seen[v.ID] = true
		vs := v.Score
		s := Scored{Hit: v, Details: ScoreDetails{Vector: &vs}}
		combined := weight * vs
		if i, ok := byID[v.ID]; ok {
			k := keyword[i]
			ks := k.Score
			s.Details.BM25 = &ks
			combined += (1 - weight) * norm[i]
			if k.Range != nil {
				s.Range = k.Range
			}
		}
		s.Score = combined
		out = append(out, s)
	}
	for i, k := range keyword {
		if seen[k.ID] {
			continue
		}
		ks := k.Score
		s := Scored{Hit: k, Details: ScoreDetails{BM25: &ks}}
		s.Score = (1 - weight) * norm[i]
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if minScore != nil {
		kept := out[:0]
		for _, s := range out {
			if s.Score >= *minScore {
				kept = append(kept, s)
			}
		}
		out = kept
	}
	return out[:jsSliceEnd(len(out), topK)]
}
