// Package ort is the few calls of ONNX Runtime's C API that PP-OCR needs
// (app/ingest/ocr/ppocr), made through purego: the shared library is
// loaded at run time with dlopen, so Docent builds without cgo and a
// machine without the library still runs everything else.
//
// The C API is one struct of function pointers (OrtApi) that later
// versions only ever append to; the indexes below are the positions in
// include/onnxruntime/core/session/onnxruntime_c_api.h, counted from 0,
// all of them in the struct since API version 1.
package ort

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
)

// apiVersion is the C API version asked of the library: every function
// used here is in version 1, and a library serves every version up to its
// own, so any ONNX Runtime since 1.0 would do; the one installed is
// Version.
const apiVersion = 1

// Positions in struct OrtApi.
const (
	idxGetErrorMessage                = 2
	idxCreateEnv                      = 3
	idxCreateSessionFromArray         = 8
	idxRun                            = 9
	idxCreateSessionOptions           = 10
	idxSetSessionGraphOptimization    = 23
	idxSetIntraOpNumThreads           = 24
	idxSetInterOpNumThreads           = 25
	idxSessionGetInputCount           = 30
	idxSessionGetOutputCount          = 31
	idxSessionGetInputName            = 36
	idxSessionGetOutputName           = 37
	idxCreateTensorWithDataAsOrtValue = 49
	idxGetTensorMutableData           = 51
	idxGetDimensionsCount             = 61
	idxGetDimensions                  = 62
	idxGetTensorShapeElementCount     = 64
	idxGetTensorTypeAndShape          = 65
	idxCreateCpuMemoryInfo            = 69
	idxAllocatorFree                  = 76
	idxGetAllocatorWithDefaultOptions = 78
	idxReleaseEnv                     = 92
	idxReleaseStatus                  = 93
	idxReleaseMemoryInfo              = 94
	idxReleaseSession                 = 95
	idxReleaseValue                   = 96
	idxReleaseTensorTypeAndShapeInfo  = 99
	idxReleaseSessionOptions          = 100
)

// C enum values used.
const (
	loggingLevelError = 3 // ORT_LOGGING_LEVEL_ERROR
	elementTypeFloat  = 1 // ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT
	arenaAllocator    = 1 // OrtArenaAllocator
	memTypeDefault    = 0 // OrtMemTypeDefault
	graphOptimizeAll  = 99
	ptrSize           = unsafe.Sizeof(uintptr(0))
)

// api holds the C functions, typed for purego. Every function returning
// a status returns an OrtStatus*, nil (0) for success.
type api struct {
	getErrorMessage                func(status uintptr) string
	releaseStatus                  func(status uintptr)
	createEnv                      func(level int32, logID string, out *uintptr) uintptr
	releaseEnv                     func(env uintptr)
	createSessionOptions           func(out *uintptr) uintptr
	setIntraOpNumThreads           func(opts uintptr, n int32) uintptr
	setInterOpNumThreads           func(opts uintptr, n int32) uintptr
	setSessionGraphOptimization    func(opts uintptr, level int32) uintptr
	releaseSessionOptions          func(opts uintptr)
	createSessionFromArray         func(env uintptr, data unsafe.Pointer, n uintptr, opts uintptr, out *uintptr) uintptr
	releaseSession                 func(session uintptr)
	sessionGetInputCount           func(session uintptr, out *uintptr) uintptr
	sessionGetOutputCount          func(session uintptr, out *uintptr) uintptr
	sessionGetInputName            func(session uintptr, i uintptr, alloc uintptr, out *uintptr) uintptr
	sessionGetOutputName           func(session uintptr, i uintptr, alloc uintptr, out *uintptr) uintptr
	getAllocatorWithDefaultOptions func(out *uintptr) uintptr
	allocatorFree                  func(alloc uintptr, p uintptr) uintptr
	createCPUMemoryInfo            func(kind int32, mem int32, out *uintptr) uintptr
	releaseMemoryInfo              func(info uintptr)
	createTensorWithData           func(info uintptr, data unsafe.Pointer, n uintptr, shape unsafe.Pointer, dims uintptr, elem int32, out *uintptr) uintptr
	run                            func(session uintptr, runOpts uintptr, inNames unsafe.Pointer, in unsafe.Pointer, nIn uintptr, outNames unsafe.Pointer, nOut uintptr, out unsafe.Pointer) uintptr
	releaseValue                   func(v uintptr)
	getTensorMutableData           func(v uintptr, out *unsafe.Pointer) uintptr
	getTensorTypeAndShape          func(v uintptr, out *uintptr) uintptr
	getDimensionsCount             func(info uintptr, out *uintptr) uintptr
	getDimensions                  func(info uintptr, dims unsafe.Pointer, n uintptr) uintptr
	getTensorShapeElementCount     func(info uintptr, out *uintptr) uintptr
	releaseTensorTypeAndShapeInfo  func(info uintptr)
}

// bind types the function pointers of the OrtApi struct at table.
func bind(table unsafe.Pointer) *api {
	fn := func(i int) uintptr {
		return *(*uintptr)(unsafe.Add(table, uintptr(i)*ptrSize))
	}
	a := &api{}
	for _, f := range []struct {
		ptr any
		idx int
	}{
		{&a.getErrorMessage, idxGetErrorMessage},
		{&a.releaseStatus, idxReleaseStatus},
		{&a.createEnv, idxCreateEnv},
		{&a.releaseEnv, idxReleaseEnv},
		{&a.createSessionOptions, idxCreateSessionOptions},
		{&a.setIntraOpNumThreads, idxSetIntraOpNumThreads},
		{&a.setInterOpNumThreads, idxSetInterOpNumThreads},
		{&a.setSessionGraphOptimization, idxSetSessionGraphOptimization},
		{&a.releaseSessionOptions, idxReleaseSessionOptions},
		{&a.createSessionFromArray, idxCreateSessionFromArray},
		{&a.releaseSession, idxReleaseSession},
		{&a.sessionGetInputCount, idxSessionGetInputCount},
		{&a.sessionGetOutputCount, idxSessionGetOutputCount},
		{&a.sessionGetInputName, idxSessionGetInputName},
		{&a.sessionGetOutputName, idxSessionGetOutputName},
		{&a.getAllocatorWithDefaultOptions, idxGetAllocatorWithDefaultOptions},
		{&a.allocatorFree, idxAllocatorFree},
		{&a.createCPUMemoryInfo, idxCreateCpuMemoryInfo},
		{&a.releaseMemoryInfo, idxReleaseMemoryInfo},
		{&a.createTensorWithData, idxCreateTensorWithDataAsOrtValue},
		{&a.run, idxRun},
		{&a.releaseValue, idxReleaseValue},
		{&a.getTensorMutableData, idxGetTensorMutableData},
		{&a.getTensorTypeAndShape, idxGetTensorTypeAndShape},
		{&a.getDimensionsCount, idxGetDimensionsCount},
		{&a.getDimensions, idxGetDimensions},
		{&a.getTensorShapeElementCount, idxGetTensorShapeElementCount},
		{&a.releaseTensorTypeAndShapeInfo, idxReleaseTensorTypeAndShapeInfo},
	} {
		purego.RegisterFunc(f.ptr, fn(f.idx))
	}
	return a
}

// check turns an OrtStatus* into an error (nil for success) and frees it.
func (a *api) check(what string, status uintptr) error {
	if status == 0 {
		return nil
	}
	msg := a.getErrorMessage(status)
	a.releaseStatus(status)
	return fmt.Errorf("onnxruntime: %s: %s", what, msg)
}
