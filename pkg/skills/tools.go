package skills

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/search"
)

// Activation is the text of the skill tool: the instructions, then the
// non-empty lists of references, scripts and assets.
func Activation(sk *Skill) string {
	var sb strings.Builder
	sb.WriteString(sk.Instructions)
	list := func(title, dir string, files []string) {
		if len(files) == 0 {
			return
		}
		sb.WriteString("\n\n## " + title + "\n")
		for i, f := range files {
			if i > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString("- " + dir + "/" + f)
		}
	}
	list("References", "references", sk.References)
	list("Scripts", "scripts", sk.Scripts)
	list("Assets", "assets", sk.Assets)
	return sb.String()
}

// Catalog is the list of skills Mastra's Agent puts in the system prompt
// (SkillsProcessor, format xml): each skill's name, description, location
// (<path>/SKILL.md) and source, sorted by name (ties in discovery order),
// then the system message that tells the model how to use them. It is ""
// for no skills.
func Catalog(list []*Skill) string {
	if len(list) == 0 {
		return ""
	}
	sorted := slices.Clone(list)
	slices.SortStableFunc(sorted, func(a, b *Skill) int { return strings.Compare(a.Name, b.Name) })
	var sb strings.Builder
	sb.WriteString("<available_skills>\n")
	for i, sk := range sorted {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString("  <skill>\n    <name>" + escapeXML(sk.Name) + "</name>\n    <description>" + escapeXML(sk.Description) +
			"</description>\n    <location>" + escapeXML(sk.Path+"/SKILL.md") + "</location>\n    <source>" + escapeXML(sk.Source) +
			"</source>\n  </skill>")
	}
	sb.WriteString("\n</available_skills>\n\n" + catalogGuidance)
	return sb.String()
}

// catalogGuidance is the system message Mastra adds after the catalogue.
const catalogGuidance = "IMPORTANT: Skills are NOT tools. Do not call skill names directly as tool names. " +
	"To use a skill, call the `skill` tool with the skill name as the \"name\" parameter. " +
	"If multiple skills share the same name, use the exact location (shown in the location field) instead of the name to disambiguate. " +
	"The location field identifies a skill for the `skill` and `skill_read` tools; it is not guaranteed to exist on your workspace filesystem, " +
	"so read skill files with `skill_read` rather than with filesystem tools. " +
	"When a user asks about a topic covered by an available skill, activate it immediately without asking for permission first."

// escapeXML escapes the five XML special characters, as Mastra's catalogue does.
func escapeXML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}

// NotFound is Mastra's text for a skill that is not there.
func (s *Set) NotFound(id string) string {
	var items []string
	for _, sk := range s.List() {
		items = append(items, sk.Name+" ("+sk.Path+")")
	}
	return fmt.Sprintf("Skill \"%s\" not found. Available skills: %s", id, strings.Join(items, ", "))
}

// Hit is one skill_search result.
type Hit struct {
	SkillName string            `json:"skill_name"`
	SkillPath Name              `json:"skill_path"`
	Source    Name              `json:"source"` // "SKILL.md" or "references/<file>"
	Content   string            `json:"content"`
	Score     float64           `json:"score"`
	LineRange *search.LineRange `json:"line_range,omitempty"`
}

// Search modes of skill_search.
const (
	ModeBM25      = "bm25"
	ModeSubstring = "substring"
)

// Search is skill_search. With BM25 (the workspace has search) it ranks
// the instructions and every reference file of every skill, keeps one
// result per skill and source and at most topK; without, it is Mastra's
// case-insensitive substring fallback (score 1 for instructions, 0.8 for a
// reference, contents cut to 200 characters). bm25 holds the workspace's
// BM25 settings, nil when it has no search. rank, when set, ranks the
// skills' documents instead of BM25 (the workspace's vector or hybrid
// search); it gets them as an index built with bm25's settings (or the
// defaults).
func (s *Set) Search(query string, skillNames []string, topK float64, bm25 *search.Params, rank Ranker) ([]Hit, error) {
	if bm25 != nil || rank != nil {
		p := search.DefaultParams()
		if bm25 != nil {
			p = *bm25
		}
		return s.searchBM25(query, skillNames, topK, p, rank)
	}
	return s.searchSubstring(query, skillNames, topK)
}

// Ranker ranks all the documents of an index for a query, best first.
type Ranker func(x *search.Index, p search.Params, query string) ([]search.Hit, error)

func nameAllowed(names []string, n string) bool {
	if names == nil {
		return true
	}
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

type docRef struct {
	skill  *Skill
	source string
}

func (s *Set) searchBM25(query string, skillNames []string, topK float64, params search.Params, rank Ranker) ([]Hit, error) {
	x := search.NewIndexWith(params)
	refs := map[string]docRef{}
	for _, sk := range s.all() {
		id := "skill:" + sk.Path + ":SKILL.md"
		x.Add(search.Doc{ID: id, Content: sk.Instructions, Source: -1})
		refs[id] = docRef{sk, "SKILL.md"}
		for _, r := range sk.References {
			data, err := s.readReference(sk, r)
			if err != nil {
				continue
			}
			id := "skill:" + sk.Path + ":" + r
			x.Add(search.Doc{ID: id, Content: js.DecodeUTF8(data), Source: -1})
			refs[id] = docRef{sk, "references/" + r}
		}
	}
	var hits []search.Hit
	if rank != nil {
		var err error
		if hits, err = rank(x, params, query); err != nil {
			return nil, err
		}
	} else {
		hits = x.Search(query, math.Inf(1), 0)
	}
	out := []Hit{}
	seen := map[string]bool{}
	for _, h := range hits {
		ref, ok := refs[h.ID]
		if !ok {
			continue
		}
		sk := ref.skill
		if win, _, err := s.byNameWinner(sk.Name); err != nil {
			return nil, err
		} else if win != nil {
			sk = win
		}
		if !nameAllowed(skillNames, sk.Name) {
			continue
		}
		key := sk.Path + ":" + ref.source
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Hit{SkillName: sk.Name, SkillPath: Name(sk.Path), Source: Name(ref.source),
			Content: h.Content, Score: h.Score, LineRange: h.Range})
		if float64(len(out)) >= topK {
			break
		}
	}
	return out, nil
}

// readReference reads a reference file of sk for a search; one that cannot
// be read is not searched, and a warning says so.
func (s *Set) readReference(sk *Skill, r string) ([]byte, error) {
	data, err := s.fs.ReadFile(joinPath(sk.Path, "references", r))
	if err != nil {
		why := err.Error()
		var big *TooLargeError
		if errors.As(err, &big) {
			why = fmt.Sprintf("larger than %d MiB", big.Limit>>20)
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("skill %s: references/%s not searched: %s", sk.Name, r, why))
	}
	return data, err
}

func (s *Set) searchSubstring(query string, skillNames []string, topK float64) ([]Hit, error) {
	q := search.LowerJS(query)
	out := []Hit{}
	for _, n := range s.names {
		sk, _, err := s.byNameWinner(n)
		if err != nil {
			return nil, err
		}
		if sk == nil || !nameAllowed(skillNames, sk.Name) {
			continue
		}
		if strings.Contains(search.LowerJS(sk.Instructions), q) {
			out = append(out, Hit{SkillName: sk.Name, SkillPath: Name(sk.Path), Source: "SKILL.md",
				Content: js.CutUTF16(sk.Instructions, 200), Score: 1})
		}
		for _, r := range sk.References {
			if float64(len(out)) >= topK {
				break
			}
			data, err := s.readReference(sk, r)
			if err != nil {
				continue
			}
			content := js.DecodeUTF8(data)
			if content != "" && strings.Contains(search.LowerJS(content), q) { // Mastra: an empty file is no hit
				out = append(out, Hit{SkillName: sk.Name, SkillPath: Name(sk.Path), Source: Name("references/" + r),
					Content: js.CutUTF16(content, 200), Score: 0.8})
			}
		}
		if float64(len(out)) >= topK {
			break
		}
	}
	return out[:search.SliceEnd(len(out), topK)], nil
}

// FormatHits is the text of skill_search.
func FormatHits(hits []Hit) string {
	if len(hits) == 0 {
		return "No results found."
	}
	parts := make([]string, len(hits))
	for i, h := range hits {
		loc := ""
		if h.LineRange != nil {
			loc = fmt.Sprintf(" (lines %d-%d)", h.LineRange.Start, h.LineRange.End)
		}
		preview := js.CutUTF16(h.Content, 200)
		if js.UTF16Len(h.Content) > 200 {
			preview += "..."
		}
		parts[i] = fmt.Sprintf("[%s]%s (score: %s)\n%s", h.SkillName, loc, ToFixed2(h.Score), preview)
	}
	return strings.Join(parts, "\n\n")
}

// ToFixed2 is JavaScript's number.toFixed(2): the exact value rounded
// half away from zero (Go's formatting rounds half to even).
func ToFixed2(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) >= 1e21 {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	neg := x < 0
	f := new(big.Float).SetPrec(256).SetFloat64(math.Abs(x))
	f.Mul(f, big.NewFloat(100))
	f.Add(f, big.NewFloat(0.5))
	n, _ := f.Int(nil)
	s := n.String()
	for len(s) < 3 {
		s = "0" + s
	}
	out := s[:len(s)-2] + "." + s[len(s)-2:]
	if neg && n.Sign() != 0 {
		out = "-" + out
	}
	return out
}

// ReadKind says what skill_read found.
const (
	ReadText    = "text"
	ReadBinary  = "binary"
	ReadPastEnd = "past_end"
	ReadEmpty   = "empty_range"
)

// ReadOutcome is the result of reading a file of a skill.
type ReadOutcome struct {
	Kind       string
	Text       string // the tool's text
	Content    string // the lines shown (text kind)
	Size       int
	StartLine  int
	EndLine    int
	TotalLines int
}

// ErrInvalidPath is skill_read's refusal of an absolute path or one with "..".
type ErrInvalidPath struct{ Path string }

func (e *ErrInvalidPath) Error() string { return "Invalid asset path: " + e.Path }

// NotFoundInSkill is skill_read's text for a missing file.
type NotFoundInSkill struct{ Msg string }

func (e *NotFoundInSkill) Error() string { return e.Msg }

// Read is skill_read on an already resolved skill. start and end are
// 1-based and inclusive, nil when not given. Lines are POSIX lines: a
// final newline ends the last line rather than starting an empty one.
func (s *Set) Read(sk *Skill, name, p string, start, end *float64) (*ReadOutcome, error) {
	norm := strings.ReplaceAll(p, `\`, "/")
	var segs []string
	for _, seg := range strings.Split(norm, "/") {
		if seg == ".." {
			return nil, &ErrInvalidPath{Path: p}
		}
		if seg != "" && seg != "." {
			segs = append(segs, seg)
		}
	}
	if strings.HasPrefix(norm, "/") {
		return nil, &ErrInvalidPath{Path: p}
	}
	file := joinPath(sk.Path, strings.Join(segs, "/"))
	var data []byte
	ok, err := s.fs.Exists(file)
	if err != nil {
		return nil, err // the workspace will not look there (a symlink leading out), as Mastra refuses it
	}
	if ok {
		data, err = s.fs.ReadFile(file)
	}
	if err != nil {
		// There but not readable (too large, permission denied, a FIFO,
		// a loop of links): say so. It read "not found in skill", with
		// the file among the "Available files" of the same message.
		return nil, err
	}
	if !ok {
		var all []string
		for _, f := range sk.References {
			all = append(all, "references/"+f)
		}
		for _, f := range sk.Scripts {
			all = append(all, "scripts/"+f)
		}
		for _, f := range sk.Assets {
			all = append(all, "assets/"+f)
		}
		msg := fmt.Sprintf("File \"%s\" not found in skill \"%s\".", p, name)
		if len(all) > 0 {
			msg += "\nAvailable files: " + strings.Join(all, ", ")
		}
		return nil, &NotFoundInSkill{Msg: msg}
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return &ReadOutcome{Kind: ReadBinary, Size: len(data),
			Text: fmt.Sprintf("Binary file: %s/%s (%d bytes)", sk.Path, p, len(data))}, nil
	}
	text := string(data)
	var lines []string
	if text != "" {
		lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	total := len(lines)
	if start == nil && end == nil {
		return &ReadOutcome{Kind: ReadText, Text: text, Content: text, Size: len(data), StartLine: 1, EndLine: total, TotalLines: total}, nil
	}
	from := 1.0
	if start != nil {
		from = math.Max(1, *start)
	}
	to := float64(total)
	if end != nil {
		to = math.Min(float64(total), *end)
	}
	if from > to {
		out := &ReadOutcome{Kind: ReadEmpty, Size: len(data), TotalLines: total}
		reason := ""
		s1 := 1.0
		if start != nil {
			s1 = *start
		}
		if s1 > float64(total) {
			out.Kind = ReadPastEnd
			reason = fmt.Sprintf("Requested startLine %s is past the end of the file. The file has been fully read; stop paginating.", optNum(start))
		} else {
			reason = fmt.Sprintf("Requested range %s-%s is empty because startLine is greater than endLine.", optNum(start), optNum(end))
		}
		out.Text = fmt.Sprintf("File \"%s\" has %d lines (valid range 1-%d). %s", p, total, total, reason)
		return out, nil
	}
	lo, hi := int(from)-1, int(to)
	if float64(lo) != from-1 {
		lo = int(math.Trunc(from - 1))
	}
	content := strings.Join(lines[lo:hi], "\n")
	return &ReadOutcome{
		Kind: ReadText, Content: content, Size: len(data),
		StartLine: int(from), EndLine: int(to), TotalLines: total,
		Text: fmt.Sprintf("%s (lines %s-%s of %d)\n%s", p, jsNum(from), jsNum(to), total, content),
	}, nil
}

func optNum(f *float64) string {
	if f == nil {
		return "undefined"
	}
	return jsNum(*f)
}

// jsNum prints a number as JavaScript does for the values line numbers take.
func jsNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
