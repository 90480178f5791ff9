package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// exportCommand writes the tasks the filters select, with their audits, as
// CSV or XLSX (GET /tasks/export), to a file or to stdout.
func exportCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	server, token := clientFlags(fs, getenv)
	params := filterFlags(fs)
	params["format"] = fs.String("format", "csv", "csv or xlsx")
	params["shape"] = fs.String("shape", "wide", "wide (a row per task, a column per criterion) or long (a row per criterion)")
	output := fs.String("output", "", "the file to write (default: stdout); written whole or not at all")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("export takes flags only, not %q", fs.Arg(0))
	}
	c, err := newAPIClient(*server, *token)
	if err != nil {
		return err
	}
	path := "/tasks/export?" + query(params).Encode()
	if *output == "" {
		return c.download(ctx, path, stdout)
	}
	// A temporary file beside the output, renamed over it once the whole
	// export has arrived: a failed export leaves no partial file.
	tmp, err := os.CreateTemp(filepath.Dir(*output), "."+filepath.Base(*output)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // gone once renamed
	err = c.download(ctx, path, tmp)
	err = errors.Join(err, tmp.Close())
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), *output); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "exported to %s\n", *output)
	return nil
}
