//go:build !linux

package ort

// oneMallocArena matters only with glibc (malloc_linux.go).
func oneMallocArena() {}
