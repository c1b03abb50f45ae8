//go:build !windows

package ort

import "github.com/ebitengine/purego"

// openLibrary loads the shared library at path, its symbols kept to it.
func openLibrary(path string) (uintptr, error) {
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

func librarySymbol(h uintptr, name string) (uintptr, error) { return purego.Dlsym(h, name) }
