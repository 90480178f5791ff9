package db_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNoWireTags holds db to its rows and stored JSON: a field of a db type
// carries a json tag at most, never the OpenAPI ones (doc, enum, format,
// example, minimum…) Huma reads. The API's wire types are api's, which map
// db's rows.
func TestNoWireTags(t *testing.T) {
	t.Parallel()
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.SkipObjectResolution)
	require.NoError(t, err)
	var offenders []string
	for _, pkg := range pkgs {
		for path, f := range pkg.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				field, ok := n.(*ast.Field)
				if !ok || field.Tag == nil {
					return true
				}
				tag, err := strconv.Unquote(field.Tag.Value)
				require.NoError(t, err)
				if strings.TrimSpace(strings.Replace(tag, `json:"`+reflect.StructTag(tag).Get("json")+`"`, "", 1)) != "" {
					offenders = append(offenders, path+": "+tag)
				}
				return true
			})
		}
	}
	require.Empty(t, offenders, "tags other than json on db types")
}
