package ort

import "syscall"

// openLibrary loads the DLL at path: purego has no dlopen on Windows, and
// the system's loader needs no cgo either, so the Windows build stays
// a cross-compiled one. Windows looks for onnxruntime.dll's own
// dependencies beside it too.
func openLibrary(path string) (uintptr, error) {
	h, err := syscall.LoadLibrary(path)
	return uintptr(h), err
}

func librarySymbol(h uintptr, name string) (uintptr, error) {
	return syscall.GetProcAddress(syscall.Handle(h), name)
}
