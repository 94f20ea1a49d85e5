// Command modzip does the two steps of a module release that need golang.org/x/mod, for
// .ci/install, which releases the root module and the command to a local module proxy and
// installs the command from it with go install …@latest:
//
//	modzip zip PATH VERSION DIR OUT.zip   writes DIR as the module zip of PATH@VERSION
//	modzip sum PATH VERSION ZIP GO.MOD    prints the two go.sum lines of PATH@VERSION
package main

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	"golang.org/x/mod/zip"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "modzip:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 5 {
		return fmt.Errorf("usage: modzip zip PATH VERSION DIR OUT.zip | modzip sum PATH VERSION ZIP GO.MOD")
	}
	mv := module.Version{Path: args[1], Version: args[2]}
	switch args[0] {
	case "zip":
		return writeZip(mv, args[3], args[4])
	case "sum":
		return printSum(mv, args[3], args[4])
	}
	return fmt.Errorf("unknown step %q", args[0])
}

// writeZip writes the module zip of mv from dir, leaving out nested modules as the go command does.
func writeZip(mv module.Version, dir, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := zip.CreateFromDir(f, mv, dir); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printSum prints the go.sum lines of mv: the hash of its zip and of its go.mod.
func printSum(mv module.Version, zipFile, goMod string) error {
	h, err := dirhash.HashZip(zipFile, dirhash.Hash1)
	if err != nil {
		return err
	}
	open := func(string) (io.ReadCloser, error) { return os.Open(goMod) }
	hm, err := dirhash.Hash1([]string{"go.mod"}, open)
	if err != nil {
		return err
	}
	fmt.Printf("%s %s %s\n%s %s/go.mod %s\n", mv.Path, mv.Version, h, mv.Path, mv.Version, hm)
	return nil
}
