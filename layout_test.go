package auditd_test

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/auditd/auditd"

// TestImportGraph checks the real import graph against the README's Layout
// table: each package imports only what its row names (a …test package
// what its parent's row names, and its parent), and every package has a
// row.
func TestImportGraph(t *testing.T) {
	t.Parallel()
	allowed := layout(t)
	cmd := exec.Command("go", "list", "-tags", "faults", "-json=ImportPath,Imports", "./...")
	out, err := cmd.Output()
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if pkg == "" {
			continue // this test
		}
		seen++
		row := pkg
		for strings.HasSuffix(row[strings.LastIndex(row, "/")+1:], "test") {
			row = row[:strings.LastIndex(row, "/")] // a …test package stands in for its parent
		}
		may, ok := allowed[row]
		require.True(t, ok, "%s has no row in the README's Layout table", pkg)
		if may == nil {
			continue // anything
		}
		for _, imp := range p.Imports {
			ours, ok := strings.CutPrefix(imp, module+"/")
			if !ok || ours == row {
				continue
			}
			require.True(t, slices.Contains(may, ours), "%s imports %s, which its row in the README's Layout table does not name", pkg, ours)
		}
	}
	require.Greater(t, seen, 20, "go list listed the packages")
}

// layout reads the README's Layout table: package → the packages it may
// import (nil for anything).
func layout(t *testing.T) map[string][]string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n## Layout\n")
	require.True(t, ok, "the README has a Layout section")
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9/]+)` \\| [^|]+ \\| ([^|]+) \\|$")
	name := regexp.MustCompile("`([a-z0-9/]+)`")
	out := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		may := []string{}
		switch cell := strings.TrimSpace(m[2]); cell {
		case "anything":
			may = nil
		case "nothing of ours":
		default:
			for _, n := range name.FindAllStringSubmatch(cell, -1) {
				may = append(may, n[1])
			}
			require.NotEmpty(t, may, "the row of %s names what it may import", m[1])
		}
		out[m[1]] = may
	}
	require.Greater(t, len(out), 20, "the Layout table has a row per package")
	return out
}
