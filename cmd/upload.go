package cmd

import (
	"io"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/upload"
)

// uploadTool names upload in JSON envelopes: it is a processor, not a
// model tool, so it has no mastra_workspace_* id.
const uploadTool = "upload"

func newUploadCmd(app *App) *cobra.Command {
	var req upload.Request
	var messages, name, mimeType string
	cmd := &cobra.Command{
		Use:   "upload FILE… | --messages FILE|-",
		Short: "Put files in the sandbox's uploads directory; print the notes that replace them in a prompt",
		Long: `Place each FILE (- for stdin) in the sandbox working directory (the workspace root) at
uploads/<thread, else --resource, else "shared">/<sha256>.<ext>, as Mastra's
FileUploadProcessor does, and print the note that replaces the file in the prompt.
The same content is written once. With --messages, read a JSON message list (as a
function-calling shim holds it) and print it with each inline file part of its user
messages replaced by its note; a file of the last user message that can't be
uploaded stops the turn (exit 1, tripwire metadata in --json), one of the history
becomes a "[File not uploaded]" note. URLs and provider file ids are left alone.

Filters: --include/--exclude take extensions (pdf, *.pdf) or MIME type globs (image/*).
Limits: --max-size SIZE (default 10MiB) and --max-size PATTERN=SIZE rules.
The config's "upload" section holds the same options, and filterCommand /
maxSizeCommand: commands that get the file's info as JSON on stdin.`,
		Example: `  ws upload report.pdf 'scan 1.png'
  curl -s https://example.com/data.csv | ws upload - --name data.csv --thread support-42
  ws upload --messages conversation.json --json | jq .data.messages
  ws upload *.xlsx --include xlsx --max-size 'image/*=5MiB' --max-size 20MiB`,
		Annotations: map[string]string{"tool": uploadTool, interruptibleKey: "true"},
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case messages == "" && len(args) == 0:
				return usagef("needs a FILE (- for stdin) or --messages")
			case messages != "" && len(args) > 0:
				return usagef("takes FILE arguments or --messages, not both")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			if err := notBoth(f, "messages", "name"); err != nil {
				return err
			}
			if err := notBoth(f, "messages", "mime-type"); err != nil {
				return err
			}
			if _, err := upload.ParsePatterns(req.Include); err != nil {
				return usagef("--include: %v", err)
			}
			if _, err := upload.ParsePatterns(req.Exclude); err != nil {
				return usagef("--exclude: %v", err)
			}
			if _, err := upload.ParseLimits(req.MaxSize); err != nil {
				return usagef("--max-size: %v", err)
			}
			desc := sourceDesc{name: name, mimeType: mimeType, setName: f.Changed("name"), setType: f.Changed("mime-type")}
			if err := fillUploadRequest(app, &req, f.Changed, messages, args, desc); err != nil {
				return err
			}
			ws, err := app.Workspace()
			if err != nil {
				return app.fail(uploadTool, err)
			}
			res, err := ws.Upload(cmd.Context(), req)
			return app.printRun(uploadTool, res, err)
		},
	}
	f := cmd.Flags()
	f.StringVar(&messages, "messages", "", "a JSON message list to rewrite (- for stdin)")
	localFiles(f, "messages")
	f.StringVar(&name, "name", "", "the file name stdin (or the one FILE) is sent with")
	f.StringVar(&mimeType, "mime-type", "", "the MIME type stdin (or the one FILE) is sent with (default: by name, else by content)")
	f.StringVar(&req.Resource, "resource", "", "resource id: names the upload directory when there is no --thread")
	f.StringSliceVar(&req.Include, "include", nil, "upload only files with these extensions or MIME types (globs; repeatable, comma-separated)")
	f.StringSliceVar(&req.Exclude, "exclude", nil, "never upload files with these extensions or MIME types (globs; repeatable, comma-separated)")
	f.StringArrayVar(&req.MaxSize, "max-size", nil, "size limit: SIZE (default 10MiB), or PATTERN=SIZE for some files (repeatable)")
	return cmd
}

// fillUploadRequest completes the request: flags not given leave the
// config's settings in force; the message list or the sources are read.
func fillUploadRequest(app *App, req *upload.Request, changed func(string) bool, messages string, args []string, desc sourceDesc) error {
	if !changed("include") {
		req.Include = nil
	}
	if !changed("exclude") {
		req.Exclude = nil
	}
	if !changed("max-size") {
		req.MaxSize = nil
	}
	var err error
	if messages != "" {
		req.Messages, err = readMessages(app, messages)
	} else {
		req.Files, err = uploadSources(app, args, desc)
	}
	return err
}

// readMessages reads the message list from a file or, for "-", stdin.
func readMessages(app *App, path string) ([]byte, error) {
	if path != "-" {
		data, err := app.readFile(path)
		if err != nil {
			return nil, usagef("--messages: %s", errs.Errno(err))
		}
		return data, nil
	}
	if app.IO.InTTY {
		return nil, usagef("--messages -: pipe the message list on stdin")
	}
	if err := app.stdinTaken(); err != nil {
		return nil, err
	}
	return io.ReadAll(app.IO.In)
}

// sourceDesc is what --name and --mime-type say.
type sourceDesc struct {
	name, mimeType   string
	setName, setType bool
}

// uploadSources turns the FILE arguments into sources. --name and
// --mime-type describe stdin, or the one FILE when it is alone.
func uploadSources(app *App, args []string, desc sourceDesc) ([]upload.Source, error) {
	stdin := 0
	for _, a := range args {
		if a == "-" {
			stdin++
		}
	}
	switch {
	case stdin > 1:
		return nil, usagef("reads stdin (-) once")
	case stdin == 1 && app.IO.InTTY:
		return nil, usagef("-: pipe the file on stdin")
	case stdin == 1:
		if err := app.stdinTaken(); err != nil {
			return nil, err
		}
	case (desc.setName || desc.setType) && stdin == 0 && len(args) > 1:
		return nil, usagef("--name and --mime-type describe stdin (-) or a single FILE")
	}
	out := make([]upload.Source, 0, len(args))
	for _, a := range args {
		src := upload.Source{Label: a}
		if a == "-" {
			src.Open = func() (io.ReadCloser, error) { return io.NopCloser(app.IO.In), nil }
		} else {
			path := a
			src.Name = filepath.Base(a)
			src.Open = func() (io.ReadCloser, error) { return app.openFile(path) }
		}
		if a == "-" || stdin == 0 {
			if desc.setName || a == "-" {
				src.Name = desc.name
			}
			if desc.setType {
				src.MIMEType = desc.mimeType
			}
		}
		out = append(out, src)
	}
	return out, nil
}
