package auditd_test

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/api"
	"github.com/auditd/auditd/config"
)

// notConfig are the environment variables the documentation names that
// config does not read: the command line client's, the tests' and the
// scripts'.
var notConfig = []string{
	"AUDITD_URL", "AUDITD_TOKEN", // auditd upload, tasks and jobs
	"TEST_DATABASE_URL", "FAULTS_LOG", "SSE_CLIENTS", "AUDITD_BIN", // make test, make bench
	"DEV_PG_PORT",                                // make run
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", // read by the S3 blob store's SDK
}

// variable is a name in backticks that looks like an environment
// variable, alone or set (`NAME` or `NAME=value`).
var variable = regexp.MustCompile("`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=[^`]*)?`")

// TestDocumentedVariables checks the README and every page of docs/
// against what config reads: each variable a page names exists (or is one
// of notConfig), and each variable config reads is named somewhere.
func TestDocumentedVariables(t *testing.T) {
	t.Parallel()
	read := map[string]bool{}
	_, _ = config.FromEnv(func(name string) string {
		read[name] = true
		return ""
	})
	require.Greater(t, len(read), 40, "config reads its variables through getenv")
	delete(read, "PATH") // the system's: where the speech engine's tools are looked for

	var codes []string // the error codes, also in capitals and backticks
	for _, c := range api.New(api.Options{}).OpenAPI().Components.Schemas.Map()["Error"].Properties["code"].Enum {
		codes = append(codes, c.(string))
	}
	pages, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, pages)
	documented := map[string]bool{}
	var unknown []string
	for _, page := range append(pages, "README.md") {
		raw, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range variable.FindAllStringSubmatch(string(raw), -1) {
			name := m[1]
			if slices.Contains(codes, name) || slices.Contains(notConfig, name) {
				continue
			}
			if !read[name] {
				unknown = append(unknown, page+": "+name)
			}
			documented[name] = true
		}
	}
	require.Empty(t, unknown, "pages name variables that config does not read")
	var missing []string
	for name := range read {
		if !documented[name] {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	require.Empty(t, missing, "config reads variables that no page documents: %s", strings.Join(missing, ", "))
}

// link is a relative Markdown link: a file, an anchor, or both.
var link = regexp.MustCompile(`\]\(([^)#:\s]*)(?:#([^)\s]+))?\)`)

// TestDocumentationLinks checks that every relative link of the README and
// docs/ leads to a file that exists and, when it names one, to a heading
// of that file.
func TestDocumentationLinks(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	anchors := func(page string) []string {
		raw, err := os.ReadFile(page)
		require.NoError(t, err, page)
		var out []string
		for _, m := range regexp.MustCompile(`(?m)^#{1,4} (.+)$`).FindAllStringSubmatch(string(raw), -1) {
			slug := strings.ToLower(strings.TrimSpace(m[1]))
			slug = regexp.MustCompile(`[^\p{L}\p{N}\- _]`).ReplaceAllString(slug, "")
			out = append(out, strings.ReplaceAll(slug, " ", "-"))
		}
		return out
	}
	checked := 0
	for _, page := range append(pages, "README.md") {
		raw, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(string(raw), -1) {
			target := page
			if m[1] != "" {
				target = filepath.Join(filepath.Dir(page), m[1])
				if strings.HasPrefix(target, "..") {
					continue // beside the project (../shared)
				}
				_, err := os.Stat(target)
				require.NoError(t, err, "%s links to %s", page, m[1])
			}
			if m[2] != "" {
				require.Contains(t, anchors(target), m[2], "%s links to %s#%s", page, m[1], m[2])
			}
			checked++
		}
	}
	require.Greater(t, checked, 20, "the links were found")
}

// TestTourIsTheEndToEndTests checks the README's pictures against the
// end-to-end tests: each is a screenshot a spec of web/e2e/ takes (so a test
// checked what it shows), kept in docs/tour/ by scripts/tour.sh, and
// docs/tour/ holds nothing else.
func TestTourIsTheEndToEndTests(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	specs, err := filepath.Glob("web/e2e/*.spec.ts")
	require.NoError(t, err)
	require.NotEmpty(t, specs, "the end-to-end specs")
	shots := map[string]bool{}
	for _, spec := range specs {
		e2e, err := os.ReadFile(spec)
		require.NoError(t, err)
		for _, m := range regexp.MustCompile(`shot\(\w+, '([a-z0-9-]+)'`).FindAllStringSubmatch(string(e2e), -1) {
			shots[m[1]] = true
		}
	}
	shown := map[string]bool{}
	for _, m := range regexp.MustCompile(`\]\(docs/tour/([a-z0-9-]+)\.jpg\)`).FindAllStringSubmatch(string(readme), -1) {
		shown[m[1]+".jpg"] = true
		require.True(t, shots[m[1]], "the README shows %s, which no end-to-end test takes", m[0])
	}
	require.NotEmpty(t, shown, "the README has a tour")
	files, err := os.ReadDir("docs/tour")
	require.NoError(t, err)
	var kept []string
	for _, f := range files {
		kept = append(kept, f.Name())
	}
	require.ElementsMatch(t, slices.Sorted(maps.Keys(shown)), kept, "docs/tour/ holds the README's pictures, and only them")
}
