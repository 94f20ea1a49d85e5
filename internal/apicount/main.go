// Command apicount counts the exported identifiers of every package of this repository's
// modules, tests and internal packages excluded: the size of the API a user must learn. From the
// root:
//
//	go run ./internal/apicount
//
// It prints one line a package (its import path and the count) and the total. An identifier is
// exported when a user can name it: a type, function, constant or variable at package level, a
// method of an exported type or interface, or an exported field of an exported struct (embedded
// ones by their type's name).
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	counts, err := count(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "apicount:", err)
		os.Exit(1)
	}
	paths := make([]string, 0, len(counts))
	for p := range counts {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	total := 0
	for _, p := range paths {
		fmt.Printf("%-40s %4d\n", p, counts[p])
		total += counts[p]
	}
	fmt.Printf("%-40s %4d\n", "total", total)
}

// count returns the exported identifiers of each package below root, by directory.
func count(root string) (map[string]int, error) {
	counts := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skip(path) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		n, pkg, err := exported(path)
		if err != nil || pkg == "main" {
			return err
		}
		counts[filepath.ToSlash(filepath.Dir(path))] += n
		return nil
	})
	return counts, err
}

// skip reports whether a directory holds no user-facing package: internal ones, test data,
// hidden directories.
func skip(path string) bool {
	base := filepath.Base(path)
	return path != "." && (base == "internal" || base == "testdata" || strings.HasPrefix(base, "."))
}

// exported returns the number of exported identifiers a file declares, and its package name.
func exported(path string) (int, string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return 0, "", err
	}
	n := 0
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && (d.Recv == nil || receiverExported(d.Recv)) {
				n++
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				n += exportedSpec(spec)
			}
		}
	}
	return n, f.Name.Name, nil
}

func exportedSpec(spec ast.Spec) int {
	n := 0
	switch s := spec.(type) {
	case *ast.TypeSpec:
		if !s.Name.IsExported() {
			return 0
		}
		n++
		switch t := s.Type.(type) {
		case *ast.StructType:
			n += exportedFields(t.Fields)
		case *ast.InterfaceType:
			n += exportedFields(t.Methods)
		}
	case *ast.ValueSpec:
		for _, name := range s.Names {
			if name.IsExported() {
				n++
			}
		}
	}
	return n
}

// exportedFields counts the exported names of a struct's fields or an interface's methods,
// embedded ones by their type's name (an embedded interface's methods count where it is declared).
func exportedFields(fl *ast.FieldList) int {
	n := 0
	for _, f := range fl.List {
		if f.Names == nil {
			if embeddedExported(f.Type) {
				n++
			}
			continue
		}
		for _, name := range f.Names {
			if name.IsExported() {
				n++
			}
		}
	}
	return n
}

// embeddedExported reports whether an embedded field or interface element is named by an
// exported identifier (a union or ~T of a constraint names no field).
func embeddedExported(t ast.Expr) bool {
	switch x := t.(type) {
	case *ast.StarExpr:
		return embeddedExported(x.X)
	case *ast.SelectorExpr:
		return x.Sel.IsExported()
	case *ast.Ident:
		return x.IsExported()
	}
	return false
}

// receiverExported reports whether a method's receiver type is exported.
func receiverExported(recv *ast.FieldList) bool {
	t := recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}
