// Package patch parses patches and works out what they do to files, for
// "ws patch" and the apply_patch tool. It is pure logic: it reads files only
// through the function given to [Patch.Plan] and writes nothing.
//
// [Parse] reads either format and tells them apart by their first lines;
// [Patch.Plan] computes every file's new content and checks every hunk
// before the caller writes anything, so that a patch applies entirely or
// not at all.
//
// # The Codex format
//
// This is the envelope of Codex's apply_patch tool:
//
//	*** Begin Patch
//	*** Add File: PATH
//	+each line of the new file, with a '+' before it
//	*** Delete File: PATH
//	*** Update File: PATH
//	*** Move to: NEWPATH          (optional: rename)
//	@@ class Example              (optional anchors: lines to find first)
//	@@     def method(self):
//	 a context line (one space before it)
//	-a line to remove
//	+a line to add
//	@@                            (a bare @@ starts the next hunk)
//	...
//	*** End of File               (optional: the hunk ends the file)
//	*** End Patch
//
// Like Codex, Parse accepts whitespace around the markers, the envelope
// inside a heredoc (<<'EOF' ... EOF, with or without the apply_patch
// command before it), a first hunk without its @@ line, and blank lines
// between sections and between hunks; a blank line inside a hunk is an
// empty context line. It also accepts what Codex refuses: a missing
// "*** End Patch" or "*** Begin Patch", a Markdown code fence around the
// patch, a byte-order mark before the text (Windows editors and
// PowerShell write one), a blank line between the '+' lines of an added
// file, an Update
// that only renames, and a unified range ("@@ -1,3 +1,4 @@") in place of an
// anchor, which is ignored. Several @@ anchors for one hunk are read in
// order, as Codex's instructions describe (not every version of Codex's
// parser reads them).
//
// # Unified diffs
//
// Parse reads the output of git diff and diff -u: "diff --git" headers
// with their extended lines (new file mode, deleted file mode, rename from,
// rename to, index, mode changes, similarity), "--- a/PATH" and "+++
// b/PATH" (or /dev/null) with the a/ and b/ prefixes removed (and, in
// the output of diff -r, whose "diff -ruN OLD NEW" line names the two
// trees, the first component of names that differ only in it, as patch
// -p1 and git apply read them), names quoted
// the way git quotes them, hunks "@@ -OLD,COUNT +NEW,COUNT @@", and "\ No
// newline at end of file". The counts of a hunk header are checked against
// its lines. A header without numbers ("@@", "@@ ... @@") is accepted too;
// its hunk then runs to the next header. Text around the diff (a commit
// message, the signature of git format-patch) is skipped. Binary diffs and
// copies are refused, and so is a diff whose two names differ without
// "rename from" and "rename to". The modes of "new file mode" and "new
// mode" lines set or clear the executable bit ([FilePatch.Exec]), as git
// apply does, and a diff that only changes a mode is an Update without
// hunks; symbolic links (mode 120000) and submodules (160000) are refused.
//
// # Finding a hunk
//
// The hunks of a file apply in order: each is searched for from the end of
// the previous one. Lines are compared at four levels of leniency, the
// strictest first, as Codex does: exactly ([LevelExact]), ignoring trailing
// whitespace ([LevelTrailingWhitespace]), ignoring whitespace at both ends
// ([LevelWhitespace]), and also reading typographic dashes, quotes and
// spaces as ASCII ([LevelUnicode]). A "\r" before the line ending and a
// byte-order mark never count.
//
// Which places count is the rule of edit_file's matcher (package
// editmatch), so that a change given to ws patch and to ws edit lands in
// the same place or is refused by both: an exact place wins, and when
// there is none, every place that fits at some level is a candidate, even
// when another fits more strictly. So two places that each need leniency
// are ambiguous, while an exact place is taken over looser ones (Codex
// instead takes the first place at the strictest level that has any).
//
// A hunk is a chain: its @@ anchors, then its old lines (context and
// removed). The first element of the chain is taken at every place where it
// counts by that rule; from each of those, each later element is taken at
// its first occurrence after the previous one (its first exact one when it
// has one). The hunk must end up in exactly one place, an exact one
// winning over looser ones. So a hunk without anchors must match exactly
// one place, and an anchor disambiguates: the hunk goes to the first match
// after it. That match must not be under a later line as little indented
// as an anchor line that opens a block (a function, a class) when the
// anchor line opens one too: the lines were then not found where the @@
// line says (Codex takes them in the next function). When two or more
// places remain, Plan refuses the hunk with
// [KindAmbiguous] and names their lines, except for a unified hunk whose
// header's line number (shifted by where the previous hunks landed) is one
// of them: that one is taken.
//
// An anchor is a whole line of the file; one that is none (at every
// level) also matches, at the loosest level, the lines it begins up to a
// word's end ("@@ def parse" for "def parse(self, text):"; anywhere, for
// one of 40 bytes or more, as git cuts its function lines). A hunk whose
// leading anchors repeat those of the hunk before it (a second change in
// the same function) is also looked for under the previous hunk's anchor
// line, up to the end of the block that line opens: there its lines must
// fit one place after the previous hunk, and when the search after the
// previous hunk finds another place (under a later line like the anchor),
// the hunk is ambiguous. Codex finds neither: it compares whole lines, and
// looks for a repeated anchor only after the previous hunk.
//
// A hunk without old lines adds its lines after its last anchor, or where
// its unified header says, or else at the end of the file (as Codex does).
// A hunk that is not found is retried without the blank context lines at its
// end, as Codex does.
//
// # Bytes kept
//
// Plan keeps what the patch does not change: each file's line endings
// (lines added to a CRLF file end in CRLF even when the patch has LF, unless
// the patch gives its lines endings of their own: a unified diff with a "\r"
// on some lines, as git makes of a CRLF file or of a change to line endings,
// is followed line by line), its
// byte-order mark (unless a unified diff removes a first line that has
// it for one that has not), and whether it ends with a newline. Context lines are
// copied from the file, not from the patch, so that what a leniency level
// ignored stays as it was; when that was indentation, the added lines are
// re-indented in the file's style (tabs for spaces, another width, a
// shifted block), each keeping its depth, if the hunk's indentation maps
// onto the file's consistently. Only the patch can change the final newline: "\
// No newline at end of file" on the new side removes it, on the old side
// only adds it; a Codex hunk marked "*** End of File" leaves the file ending
// with a newline (Codex gives every updated file one). An added file's
// content is the patch's lines, each ending in "\n" (unless a unified diff
// says "\ No newline at end of file").
//
// # Where Plan is stricter than Codex
//
// Codex applies a hunk at the first place it matches, overwrites an
// existing file on Add and on a move, and writes file by file, so a patch
// that fails halfway leaves the first files changed. Plan refuses a hunk
// that fits two places, an Add or a move onto an existing file, and a path
// named by two file sections, and it fails before anything is written. Parse
// refuses a hunk that has no '+' or '-' line (Codex applies it as a no-op;
// it is most often a '+' or '-' forgotten).
//
// # Errors
//
// Parse returns a [*ParseError]; Plan returns [*FileError] and
// [*HunkError] values, joined when there are several. Each has a stable
// [Kind], which [KindOf] returns. Their messages are written for the agent
// that made the patch: one line saying what is wrong and how to fix it, and
// for a hunk that is not found, the closest region of the file and its
// first line that differs from the patch.
package patch
