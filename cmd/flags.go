package cmd

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/schema"
	"github.com/wstools/ws/pkg/workspace"
)

// badValue is a flag value that does not parse: want says what the flag
// takes ("an integer ≥ 1"), for the usage error that names the flag.
type badValue struct{ want string }

func (e *badValue) Error() string { return "must be " + e.want }

// optional is a flag that sets *p only when it is given: a request field
// left nil keeps the tool's own default, as an absent JSON parameter does.
type optional[T any] struct {
	p     **T
	parse func(string) (T, error)
	def   string // the default, as help shows it
	typ   string // the value's kind, as help shows it
}

func (o *optional[T]) String() string { return o.def }
func (o *optional[T]) Type() string   { return o.typ }

func (o *optional[T]) Set(s string) error {
	v, err := o.parse(s)
	if err != nil {
		return err
	}
	*o.p = &v
	return nil
}

// optionalBool is a boolean optional flag: given alone it means true, and
// it takes =true or =false.
type optionalBool struct{ optional[bool] }

func (o *optionalBool) IsBoolFlag() bool { return true }

// binder declares a tool's flags into its request. The bounds and allowed
// values of a flag come from the tool's parameter of the same meaning, so
// the flag refuses what the parameter refuses, in flag terms.
type binder struct {
	f    *pflag.FlagSet
	spec *workspace.ToolSpec
}

// want describes what a number flag takes: "an integer ≥ 1".
func want(kind string, c schema.Constraint) string {
	s := kind
	if c.Min != nil {
		s += " ≥ " + js.FormatNumber(*c.Min)
	}
	if c.Max != nil {
		s += " ≤ " + js.FormatNumber(*c.Max)
	}
	return s
}

func inBounds(v float64, c schema.Constraint) bool {
	return (c.Min == nil || v >= *c.Min) && (c.Max == nil || v <= *c.Max)
}

func (b *binder) constraint(param string) schema.Constraint {
	if b.spec == nil {
		return schema.Constraint{}
	}
	return b.spec.Constraint(param)
}

// maxSafe is JavaScript's Number.MAX_SAFE_INTEGER, the largest integer a
// tool's parameter takes.
const maxSafe = 1<<53 - 1

// parseInt reads an integer flag within c (and the bounds of a safe
// integer, as a tool's parameters have them).
func parseInt(c schema.Constraint) func(string) (int, error) {
	return func(s string) (int, error) {
		s = strings.TrimSpace(s)
		n, err := strconv.Atoi(s)
		if errors.Is(err, strconv.ErrRange) {
			// Too many digits for an int: as far out as it is.
			n, err = maxSafe+1, nil
			if strings.HasPrefix(s, "-") {
				n = -maxSafe - 1
			}
		}
		switch {
		case err != nil && notation(s, c) != "":
			return 0, &badValue{want("an integer", c) + " written in plain digits: " + notation(s, c)}
		case err != nil || !inBounds(float64(n), c):
			return 0, &badValue{want("an integer", c)}
		case n > maxSafe:
			return 0, &badValue{"an integer ≤ " + strconv.Itoa(maxSafe)}
		case n < -maxSafe:
			return 0, &badValue{"an integer ≥ -" + strconv.Itoa(maxSafe)}
		}
		return n, nil
	}
}

// notation is, for s a whole number in c's bounds that is not written in
// plain digits (1e3, 10.0), that number as it should be given ("1000, not
// 1e3"), else "".
func notation(s string, c schema.Constraint) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafe || !inBounds(f, c) {
		return ""
	}
	return strconv.FormatInt(int64(f), 10) + ", not " + s
}

// atLeast is the parameter's constraint with a lowest value of the
// command line's own: a count of 0 or below that the JSON parameter takes
// in Mastra's reading (maxCount:0 is no limit, topK:0 no results) is a
// mistake on a command line.
func (b *binder) atLeast(param string, min float64) schema.Constraint {
	c := b.constraint(param)
	if c.Min == nil || *c.Min < min {
		c.Min = &min
	}
	return c
}

// int declares an integer flag for an *int parameter.
func (b *binder) int(p **int, name, short, param, def, usage string) {
	b.intIn(p, name, short, b.constraint(param), def, usage)
}

// intIn declares an integer flag for an *int parameter, taking values in c.
func (b *binder) intIn(p **int, name, short string, c schema.Constraint, def, usage string) {
	b.f.VarP(&optional[int]{p: p, parse: parseInt(c), def: def, typ: "int"}, name, short, usage)
}

// count declares an integer flag for a parameter the tool takes as a
// JSON number (Mastra's counts): the command line takes whole numbers.
func (b *binder) count(p **float64, name, short, param, def, usage string) {
	b.countIn(p, name, short, b.constraint(param), def, usage)
}

// countIn is count, taking values in c.
func (b *binder) countIn(p **float64, name, short string, c schema.Constraint, def, usage string) {
	parse := parseInt(c)
	b.f.VarP(&optional[float64]{p: p, def: def, typ: "int", parse: func(s string) (float64, error) {
		n, err := parse(s)
		return float64(n), err
	}}, name, short, usage)
}

// seconds declares a flag of a number of seconds (fractions allowed), or
// of a duration as Go and timeout(1) users write one (90s, 1m30s, 500ms).
func (b *binder) seconds(p **float64, name, param, def, usage string) {
	b.numberOf(p, name, param, "seconds", "a number of seconds", def, usage+"; or a duration: 90s, 2m, 500ms", secondsOf)
}

// secondsOf reads a number of seconds, or a duration with its units.
func secondsOf(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err == nil {
		return f, nil
	}
	if d, derr := time.ParseDuration(s); derr == nil {
		return d.Seconds(), nil
	}
	return 0, err
}

// number declares a flag that takes any number (what a number of, as
// help and errors say it).
func (b *binder) number(p **float64, name, param, typ, what, def, usage string) {
	b.numberOf(p, name, param, typ, what, def, usage, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
}

// numberOf is number with the reading of the value given.
func (b *binder) numberOf(p **float64, name, param, typ, what, def, usage string, read func(string) (float64, error)) {
	c := b.constraint(param)
	b.f.Var(&optional[float64]{p: p, def: def, typ: typ, parse: func(s string) (float64, error) {
		f, err := read(strings.TrimSpace(s))
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || !inBounds(f, c) {
			return 0, &badValue{want(what, c)}
		}
		return f, nil
	}}, name, usage)
}

// bool declares a boolean flag (every help says that these take =false).
func (b *binder) bool(p **bool, name, short string, def bool, usage string) {
	b.boolMapped(p, name, short, def, false, usage)
}

// boolMapped declares a boolean flag that sets the parameter to the
// opposite of its value when invert is set (-i sets caseSensitive=false).
func (b *binder) boolMapped(p **bool, name, short string, def, invert bool, usage string) {
	v := &optionalBool{optional[bool]{p: p, def: strconv.FormatBool(def), typ: "bool", parse: func(s string) (bool, error) {
		x, err := strconv.ParseBool(s)
		if err != nil {
			return false, &badValue{"true or false"}
		}
		return x != invert, nil
	}}}
	flag := b.f.VarPF(v, name, short, usage)
	flag.NoOptDefVal = "true"
}

// list declares a repeatable string flag whose every value must pass ok;
// want says what a value must be, for the error that names the flag.
func (b *binder) list(p *[]string, name, typ, want string, ok func(string) bool, usage string) {
	b.f.Var(&listValue{p: p, typ: typ, want: want, ok: ok}, name, usage)
}

type listValue struct {
	p        *[]string
	typ      string
	want     string
	ok       func(string) bool
	appended bool
}

func (l *listValue) String() string { return strings.Join(*l.p, ",") }
func (l *listValue) Type() string   { return l.typ }

func (l *listValue) Set(s string) error {
	if !l.ok(s) {
		return &badValue{l.want + ", not " + strconv.Quote(s)}
	}
	*l.p = append(*l.p, s)
	return nil
}

// positive is an integer flag of ws's own (no tool parameter behind it)
// that takes a whole number ≥ 1; its default is what *p holds.
type positive[T int | int64] struct{ p *T }

func (v positive[T]) String() string { return strconv.FormatInt(int64(*v.p), 10) }
func (v positive[T]) Type() string   { return "int" }

func (v positive[T]) Set(s string) error {
	one := 1.0
	n, err := parseInt(schema.Constraint{Min: &one})(s)
	if err == nil {
		*v.p = T(n)
	}
	return err
}

// interval is a flag of ws's own that takes a number of seconds ≥ 0
// (fractions allowed), or a duration (90s), into a duration; its default
// is what *p holds.
type interval struct{ p *time.Duration }

func (v interval) String() string { return strconv.FormatFloat(v.p.Seconds(), 'f', -1, 64) }
func (v interval) Type() string   { return "seconds" }

func (v interval) Set(s string) error {
	f, err := secondsOf(strings.TrimSpace(s))
	if err != nil || math.IsNaN(f) || f < 0 || math.IsInf(f, 0) || f > math.MaxInt64/float64(time.Second) {
		return &badValue{"a number of seconds ≥ 0, not " + strconv.Quote(s)}
	}
	*v.p = time.Duration(f * float64(time.Second))
	return nil
}

// choice declares a string flag that takes one of the parameter's values.
func (b *binder) choice(p *string, name, param, usage string) {
	values := b.constraint(param).Enum
	var v *string
	b.f.Var(&optional[string]{p: &v, typ: "string", parse: func(s string) (string, error) {
		for _, x := range values {
			if s == x {
				*p = s
				return s, nil
			}
		}
		return "", &badValue{"one of " + strings.Join(values, ", ")}
	}}, name, usage)
}

// flagError turns the error of a flag that did not parse into a usage
// error that names the flag, in the command line's words. An unknown
// short flag on a command that takes arguments may be one of them (a
// PATTERN or TEXT such as -1 or -foo): the error says where those go.
// argv is the command line (after ws), where a run of short flags that
// pflag took in part (-name: -n, then -a unknown) is found whole.
func flagError(c *cobra.Command, err error, argv []string) error {
	var bad *badValue
	var inv *pflag.InvalidValueError
	var req *pflag.ValueRequiredError
	var none *pflag.NotExistError
	switch {
	case errors.As(err, &inv) && inv.GetFlag().Shorthand != "" &&
		habit(c.Name(), inv.GetFlag().Shorthand+inv.GetValue()) != "" &&
		slices.Contains(argv, "-"+inv.GetFlag().Shorthand+inv.GetValue()):
		// find's -type, read as -t with the value ype.
		run := inv.GetFlag().Shorthand + inv.GetValue()
		return usagef("unknown flag -%s: %s", run, habit(c.Name(), run))
	case errors.As(err, &none) && len(shortRun(argv, none.GetSpecifiedShortnames())) > len(none.GetSpecifiedShortnames()):
		// A run whose first flags were known: name the one that is not,
		// in its run, and what the run means from habit (-name).
		s, run := none.GetSpecifiedShortnames(), shortRun(argv, none.GetSpecifiedShortnames())
		if h := habit(c.Name(), run); h != "" {
			return usagef("unknown flag -%s: %s", run, h)
		}
		if h := flagHabit(c.Name(), none); h != "" {
			return usagef("unknown flag -%c in -%s: %s", s[0], run, h)
		}
		return usagef("unknown flag -%c in -%s%s", s[0], run, dashHint(c))
	case errors.As(err, &inv) && errors.As(err, &bad):
		return usagef("--%s %s", inv.GetFlag().Name, bad.Error())
	case errors.As(err, &inv) && inv.GetFlag().Value.Type() == "bool":
		return usagef("--%s must be true or false", inv.GetFlag().Name)
	case errors.As(err, &inv):
		return usagef("--%s does not take %q", inv.GetFlag().Name, inv.GetValue())
	case errors.As(err, &req):
		return usagef("--%s needs a value", req.GetFlag().Name)
	case errors.As(err, &none) && flagHabit(c.Name(), none) != "":
		flag := "--" + none.GetSpecifiedName()
		if s := none.GetSpecifiedShortnames(); s != "" {
			flag = "-" + s
		}
		return usagef("unknown flag %s: %s", flag, flagHabit(c.Name(), none))
	case errors.As(err, &none) && none.GetSpecifiedShortnames() != "":
		return usagef("unknown flag -%s%s", none.GetSpecifiedShortnames(), dashHint(c))
	case errors.As(err, &none):
		msg := "unknown flag --" + none.GetSpecifiedName()
		// A long flag is more likely a typo than an argument, except
		// on exec (the command's own flags) and grep (a PATTERN such
		// as --verbose is searched for).
		if c.Name() == "exec" || c.Name() == "grep" {
			msg += dashHint(c)
		}
		return usagef("%s", msg)
	}
	return usagef("%v", err)
}

// shortRun is the run of short flags on the command line (before "--")
// that ends with rest, the part pflag had yet to read when it met a flag
// it does not know, without its dash: "name" for rest "ame"; "" for none.
func shortRun(argv []string, rest string) string {
	if rest == "" {
		return ""
	}
	for _, a := range argv {
		if a == "--" {
			break
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, rest) {
			return a[1:]
		}
	}
	return ""
}

// flagHabit is habit for the flag none names: its name, or, for a run of
// short flags, the whole run as find(1) spells its flags (-name).
func flagHabit(command string, none *pflag.NotExistError) string {
	if h := habit(command, none.GetSpecifiedName()); h != "" {
		return h
	}
	if s := none.GetSpecifiedShortnames(); len(s) > 1 {
		return habit(command, s)
	}
	return ""
}

// habit is what an unknown flag that users of grep, rg, head or ls type
// from habit should say on command, instead of a bare "unknown flag"; ""
// for any other.
func habit(command, flag string) string {
	switch command {
	case "grep":
		switch flag {
		case "r", "R", "recursive", "dereference-recursive":
			return "ws grep searches directories recursively already; leave it out"
		case "include", "exclude", "exclude-dir":
			return "choose files with -g GLOB, and leave them out with -g '!GLOB'"
		case "E", "extended-regexp", "P", "perl-regexp":
			return "the pattern is a regular expression already (RE2, or ECMAScript for lookaround and backreferences); leave it out"
		case "e", "regexp":
			return `the PATTERN is the first argument (after --, when it starts with "-")`
		case "files":
			return "ws glob lists files by name: ws glob '**/*' --max-results 0 lists every file a search reads (--hidden, --no-ignore as here)"
		case "Z":
			return "-0 (--null) ends each of -l's and -L's paths with a NUL, for xargs -0"
		case "name", "iname", "path":
			return "choose the files searched by name with -g GLOB: ws grep PATTERN -g '*.go'"
		case "type":
			return "-t TYPE chooses files by type (-t go, -t py); ws grep reads files only"
		}
	case "glob":
		switch flag {
		case "name", "iname", "type", "path", "maxdepth", "mindepth":
			return "the PATTERN is the first argument, matched against paths below PATH: ws glob '**/*.go' (at any depth), ws glob '*.go' (the top level); directories are not listed"
		case "print0":
			return "-0 (--null) ends each path with a NUL, for xargs -0"
		}
	case "read":
		switch flag {
		case "n", "lines", "head":
			return "--limit N shows N lines, and --offset LINE where they start"
		}
	case "ls":
		switch flag {
		case "R", "recursive", "depth", "L":
			return "ws ls shows a tree; --max-depth N sets how deep (default 2)"
		case "name", "iname", "path":
			return "--pattern GLOB shows only the files that match it: ws ls --pattern '**/*.go'"
		case "type":
			return "--dirs-only shows directories only"
		}
	}
	return ""
}

// dashHint is what an unknown flag's error adds on c: for exec, that the
// command goes after "--"; for another command that takes arguments (its
// Use names one in capitals), that an argument starting with "-" does.
func dashHint(c *cobra.Command) string {
	if c.Name() == "exec" {
		return `; ws's own flags come first, the command after "--": ws exec [flags] -- COMMAND`
	}
	_, args, _ := strings.Cut(c.Use, " ")
	if strings.IndexFunc(args, unicode.IsUpper) < 0 {
		return ""
	}
	return ` (an argument that starts with "-" goes after "--")`
}
