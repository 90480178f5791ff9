package auditd_test

import (
	"encoding/json"
	"fmt"
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
// table: each package (with the …test packages that stand in for it)
// imports only what its row names, its tests only that and what the row
// names after "tests also", every package has a row, and every package a
// row names is imported where the row says: the table is the picture,
// neither looser nor tighter than the code.
func TestImportGraph(t *testing.T) {
	t.Parallel()
	rows := layout(t)
	cmd := exec.Command("go", "list", "-tags", "faults", "-json=ImportPath,Imports,TestImports,XTestImports", "./...")
	out, err := cmd.Output()
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	code, tests := map[string]map[string]bool{}, map[string]map[string]bool{}
	for {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
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
		row := rowOf(pkg)
		ours(code, row, p.Imports)
		ours(tests, row, slices.Concat(p.TestImports, p.XTestImports))
	}
	require.Greater(t, len(code), 20, "go list listed the packages")
	var problems []string
	for row := range code {
		if _, ok := rows[row]; !ok {
			problems = append(problems, row+" has no row")
		}
	}
	for row, may := range rows {
		if code[row] == nil {
			problems = append(problems, row+" has a row, but go list does not list it")
			continue
		}
		if may.anything {
			continue
		}
		for imp := range code[row] {
			if !slices.Contains(may.code, imp) {
				problems = append(problems, fmt.Sprintf("%s imports %s, which its row does not name", row, imp))
			}
		}
		for imp := range tests[row] {
			if !slices.Contains(may.code, imp) && !slices.Contains(may.tests, imp) {
				problems = append(problems, fmt.Sprintf("%s's tests import %s, which its row does not name", row, imp))
			}
		}
		for _, m := range may.code {
			if !code[row][m] {
				problems = append(problems, fmt.Sprintf("the row of %s names %s, which it does not import", row, m))
			}
		}
		for _, m := range may.tests {
			if !tests[row][m] || code[row][m] {
				problems = append(problems, fmt.Sprintf("the row of %s names %s for its tests alone, which they do not import or it does", row, m))
			}
		}
	}
	slices.Sort(problems)
	require.Empty(t, problems, "the README's Layout table and the import graph disagree")
}

// ours adds to seen[row] the rows of the packages of ours in imports, but
// row itself.
func ours(seen map[string]map[string]bool, row string, imports []string) {
	if seen[row] == nil {
		seen[row] = map[string]bool{}
	}
	for _, imp := range imports {
		if p, ok := strings.CutPrefix(imp, module+"/"); ok && rowOf(p) != row {
			seen[row][rowOf(p)] = true
		}
	}
}

// rowOf is the Layout table's row of pkg: a …test package stands in for its
// parent (db/dbtest for db).
func rowOf(pkg string) string {
	for strings.HasSuffix(pkg[strings.LastIndex(pkg, "/")+1:], "test") && strings.Contains(pkg, "/") {
		pkg = pkg[:strings.LastIndex(pkg, "/")]
	}
	return pkg
}

// imports is a row's last column: the packages of ours it may import, and
// those its tests alone also may.
type imports struct {
	anything    bool
	code, tests []string
}

// layout reads the README's Layout table: package → what it may import.
func layout(t *testing.T) map[string]imports {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n## Layout\n")
	require.True(t, ok, "the README has a Layout section")
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9/]+)` \\| [^|]+ \\| ([^|]+) \\|$")
	out := map[string]imports{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		cell := strings.TrimSpace(m[2])
		if cell == "anything" {
			out[m[1]] = imports{anything: true}
			continue
		}
		code, tests, _ := strings.Cut(cell, "tests also")
		may := imports{code: names(code), tests: names(tests)}
		require.True(t, len(may.code) > 0 || strings.HasPrefix(cell, "nothing of ours"), "the row of %s names what it may import", m[1])
		out[m[1]] = may
	}
	require.Greater(t, len(out), 20, "the Layout table has a row per package")
	return out
}

// names are the package names in backticks in s.
func names(s string) []string {
	var out []string
	for _, n := range regexp.MustCompile("`([a-z0-9/]+)`").FindAllStringSubmatch(s, -1) {
		out = append(out, n[1])
	}
	return out
}
