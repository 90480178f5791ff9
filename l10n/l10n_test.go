package l10n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIn(t *testing.T) {
	t.Parallel()
	passed := T("%.2f, passed (passing score %.2f)", 85.0, 80.0)
	text := T("%s was audited: %s.", "call-0142.wav", passed)
	require.Equal(t, "call-0142.wav was audited: 85.00, passed (passing score 80.00).", text.In("en"))
	require.Equal(t, "call-0142.wav was audited: 85.00, passed (passing score 80.00).", text.String())
	require.Equal(t, "call-0142.wav se ha auditado: 85,00, aprobada (nota de aprobado 80,00).", text.In("es"))
	require.Equal(t, text.In("es"), text.In("es-MX"), "any Spanish")
	require.Equal(t, map[string]string{"en": text.In("en"), "es": text.In("es")}, text.Translations())
	for _, other := range []string{"", "fr", "not a language", "EN_us"} {
		require.Equal(t, text.In("en"), text.In(other), other)
	}

	// Parts are rendered one by one; what a person wrote never is.
	sync := T("User sync from %s started.", "scim").And("; %d skipped for lack of a subject", 2).And(".")
	require.Equal(t, "Ha empezado la sincronización de usuarios desde scim.; 2 omitidos por no tener identificador (subject).", sync.In("es"))
	require.Equal(t, "100% sure: %s", Plain("100% sure: %s").In("es"))
	require.Empty(t, Text{}.In("es"))

	// And never changes the Text it extends.
	base := T("You validated %s; its result is being e-mailed to %s.", "a.wav", Plain("ana@example.com"))
	_ = base.And(".")
	require.Equal(t, "Has validado a.wav; su resultado se está enviando por correo a ana@example.com.", base.In("es"))
}

// Every message the code writes is in the Spanish catalog, and the
// catalog holds no message the code no longer writes.
func TestEveryMessageIsTranslated(t *testing.T) {
	t.Parallel()
	used := map[string]bool{}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, isIdent := sel.X.(*ast.Ident)
			if sel.Sel.Name == "T" && isIdent && pkg.Name == "l10n" || sel.Sel.Name == "And" && filepath.Base(filepath.Dir(path)) != "l10n" {
				format, ok := constantString(call.Args[0])
				require.True(t, ok, "%s: the format of %s must be a constant string", fset.Position(call.Pos()), sel.Sel.Name)
				used[format] = true
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, len(used), 20, "the code's messages were found")
	for format := range used {
		require.Contains(t, spanish, format, "no Spanish for a message the code writes")
	}
	for format := range spanish {
		require.True(t, used[format], "the catalog translates %q, which nothing writes", format)
	}
}

// constantString is the value of a string literal or a sum of them.
func constantString(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		a, okA := constantString(e.X)
		b, okB := constantString(e.Y)
		return a + b, okA && okB && e.Op == token.ADD
	case *ast.ParenExpr:
		return constantString(e.X)
	}
	return "", false
}

func TestCategoryAndZone(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Opening", Category("OPENING", "en-GB"))
	require.Equal(t, "Apertura", Category("OPENING", "es"))
	require.Equal(t, "Cierre", Category("CLOSING", "es-MX"))
	require.Equal(t, "Ventas cruzadas", Category("Ventas cruzadas", "en"), "a scorecard's own category is as written")

	loc, err := Zone("Europe/Madrid")
	require.NoError(t, err)
	require.Equal(t, "Europe/Madrid", loc.String())
	for _, bad := range []string{"", "Local", "Mars/Olympus", "../../etc/passwd", strings.Repeat("A", 65)} {
		_, err := Zone(bad)
		require.ErrorIs(t, err, ErrZone, bad)
	}
}
