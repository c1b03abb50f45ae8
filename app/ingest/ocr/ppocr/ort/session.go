package ort

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// Session is one loaded model with one input and one output, both float32
// tensors (as PP-OCR's detector and recogniser are). Run may be called
// from one goroutine at a time; Close frees it.
type Session struct {
	rt      *Runtime
	mu      sync.Mutex
	handle  uintptr
	inName  uintptr // char*, from the runtime's allocator
	outName uintptr
}

// Tensor is a float32 tensor: its shape and its values in row-major order.
type Tensor struct {
	Shape []int64
	Data  []float32
}

// NewSession loads a model from its bytes; threads bounds the threads
// the session computes with (0: the runtime's default, one per core).
func (r *Runtime) NewSession(model []byte, threads int) (*Session, error) {
	if len(model) == 0 {
		return nil, errors.New("onnxruntime: empty model")
	}
	a := r.api
	var opts uintptr
	if err := a.check("create session options", a.createSessionOptions(&opts)); err != nil {
		return nil, err
	}
	defer a.releaseSessionOptions(opts)
	if err := a.check("set intra-op threads", a.setIntraOpNumThreads(opts, int32(threads))); err != nil {
		return nil, err
	}
	if err := a.check("set inter-op threads", a.setInterOpNumThreads(opts, 1)); err != nil {
		return nil, err
	}
	if err := a.check("set graph optimization", a.setSessionGraphOptimization(opts, graphOptimizeAll)); err != nil {
		return nil, err
	}
	s := &Session{rt: r}
	err := a.check("load model", a.createSessionFromArray(r.env, unsafe.Pointer(&model[0]), uintptr(len(model)), opts, &s.handle))
	runtime.KeepAlive(model)
	if err != nil {
		return nil, err
	}
	var nIn, nOut uintptr
	if err := a.check("count inputs", a.sessionGetInputCount(s.handle, &nIn)); err != nil {
		s.Close()
		return nil, err
	}
	if err := a.check("count outputs", a.sessionGetOutputCount(s.handle, &nOut)); err != nil {
		s.Close()
		return nil, err
	}
	if nIn != 1 || nOut != 1 {
		s.Close()
		return nil, fmt.Errorf("onnxruntime: model has %d inputs and %d outputs, want one of each", nIn, nOut)
	}
	if err := a.check("input name", a.sessionGetInputName(s.handle, 0, r.alloc, &s.inName)); err != nil {
		s.Close()
		return nil, err
	}
	if err := a.check("output name", a.sessionGetOutputName(s.handle, 0, r.alloc, &s.outName)); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close frees the session; a closed session is not used again.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.rt.api
	for _, p := range []*uintptr{&s.inName, &s.outName} {
		if *p != 0 {
			_ = a.allocatorFree(s.rt.alloc, *p)
			*p = 0
		}
	}
	if s.handle != 0 {
		a.releaseSession(s.handle)
		s.handle = 0
	}
}

// Run computes the model's output for in.
func (s *Session) Run(in Tensor) (Tensor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handle == 0 {
		return Tensor{}, errors.New("onnxruntime: session is closed")
	}
	n := int64(1)
	for _, d := range in.Shape {
		if d <= 0 {
			return Tensor{}, fmt.Errorf("onnxruntime: input shape %v", in.Shape)
		}
		n *= d
	}
	if n != int64(len(in.Data)) {
		return Tensor{}, fmt.Errorf("onnxruntime: input shape %v holds %d values, got %d", in.Shape, n, len(in.Data))
	}
	a := s.rt.api
	var value uintptr
	// ONNX Runtime reads in.Data in place while the value lives: Go's
	// collector does not move heap memory, and KeepAlive below holds it.
	if err := a.check("create input tensor", a.createTensorWithData(s.rt.mem, unsafe.Pointer(&in.Data[0]), uintptr(len(in.Data)*4),
		unsafe.Pointer(&in.Shape[0]), uintptr(len(in.Shape)), elementTypeFloat, &value)); err != nil {
		return Tensor{}, err
	}
	defer a.releaseValue(value)
	inNames := []uintptr{s.inName}
	outNames := []uintptr{s.outName}
	inputs := []uintptr{value}
	outputs := []uintptr{0}
	err := a.check("run", a.run(s.handle, 0, unsafe.Pointer(&inNames[0]), unsafe.Pointer(&inputs[0]), 1,
		unsafe.Pointer(&outNames[0]), 1, unsafe.Pointer(&outputs[0])))
	runtime.KeepAlive(in)
	runtime.KeepAlive(inNames)
	runtime.KeepAlive(outNames)
	runtime.KeepAlive(inputs)
	if err != nil {
		return Tensor{}, err
	}
	defer a.releaseValue(outputs[0])
	return s.read(outputs[0])
}

// read copies a float32 output tensor into Go memory.
func (s *Session) read(v uintptr) (Tensor, error) {
	a := s.rt.api
	var info uintptr
	if err := a.check("output shape", a.getTensorTypeAndShape(v, &info)); err != nil {
		return Tensor{}, err
	}
	defer a.releaseTensorTypeAndShapeInfo(info)
	var dims, count uintptr
	if err := a.check("output dimensions", a.getDimensionsCount(info, &dims)); err != nil {
		return Tensor{}, err
	}
	shape := make([]int64, dims)
	if dims > 0 {
		if err := a.check("output dimensions", a.getDimensions(info, unsafe.Pointer(&shape[0]), dims)); err != nil {
			return Tensor{}, err
		}
	}
	if err := a.check("output size", a.getTensorShapeElementCount(info, &count)); err != nil {
		return Tensor{}, err
	}
	var p unsafe.Pointer
	if err := a.check("output data", a.getTensorMutableData(v, &p)); err != nil {
		return Tensor{}, err
	}
	out := Tensor{Shape: shape, Data: make([]float32, count)}
	if count > 0 {
		copy(out.Data, unsafe.Slice((*float32)(p), count))
	}
	return out, nil
}
